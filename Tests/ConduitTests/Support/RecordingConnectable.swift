import Conduit

/// A connectable publisher over a hand-driven upstream that records connections.
final class RecordingConnectable: ConnectablePublisher, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never

  let upstream = HandDrivenUpstream<Int, Never>()
  private(set) var connections: [String] = []

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    upstream.receive(subscriber: subscriber)
  }

  func connect() -> any Cancellable {
    connections.append("connected")
    return AnyCancellable { [weak self] in self?.connections.append("disconnected") }
  }
}

import Conduit

/// An upstream driven by hand that is its own subscription and records what its subscriber asks
/// of it, for the replaceError and try-operator suites (tryMap, tryCompactMap, tryFilter,
/// tryRemoveDuplicates, tryScan). It does not enforce demand: tests compare what was requested
/// with what they send.
///
/// It holds one subscriber at a time and lets go of it on a completion, and on a cancel unless
/// `ignoresCancel` is set, in which case it keeps delivering, like an upstream that breaks
/// contract 4 (or one whose values race the cancel), to show that the operator drops them. It
/// counts cancels rather than flagging them, so a test can check an operator cancels exactly once.
///
/// How it differs from the other shared doubles:
/// - `HandDrivenPublisher` hands out a separate locked subscription (`Link`) per subscriber, can
///   be driven from several threads, records a cancel only as a flag, and always lets go of its
///   subscriber on a cancel.
/// - `RecordingUpstream` (Support/RecordingUpstream.swift) records requests and cancels as one
///   ordered list of events, can hold its subscription back or send a second one, and keeps its
///   subscriber after a cancel and a completion until the test calls `detach()`.
///
/// Like `RecordingUpstream`, it takes no lock: each test drives it from one thread.
final class ManualUpstream<Output, Failure: Error>: Publisher, Subscription {
  /// Every demand requested, in order.
  private(set) var requests: [Subscribers.Demand] = []
  /// How many times the subscriber cancelled.
  private(set) var cancelCount = 0
  /// Keeps delivering after `cancel`, like an upstream that breaks contract 4.
  var ignoresCancel = false
  private var downstream: AnySubscriber<Output, Failure>?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    downstream = AnySubscriber(subscriber)
    subscriber.receive(subscription: self)
  }

  func request(_ demand: Subscribers.Demand) { requests.append(demand) }

  func cancel() {
    cancelCount += 1
    if !ignoresCancel { downstream = nil }
  }

  /// Sends a value and returns the demand the subscriber answered with (`.none` if there is none).
  @discardableResult
  func send(_ value: Output) -> Subscribers.Demand {
    downstream?.receive(value) ?? .none
  }

  /// Completes the subscriber and lets go of it.
  func send(completion: Subscribers.Completion<Failure>) {
    let downstream = self.downstream
    self.downstream = nil
    downstream?.receive(completion: completion)
  }
}

/// A subject that broadcasts elements to downstream subscribers.
///
/// It keeps no value: a subscriber receives only what is sent after it subscribed, and only
/// while it has demand. A value sent to a subscriber with no outstanding demand is dropped for
/// that subscriber, as in Combine. After a completion, `send` does nothing, and a new subscriber
/// receives the completion at once.
///
/// ```swift
/// let subject = PassthroughSubject<Int, Never>()
/// let cancellable = subject.sink { print($0) }
/// subject.send(1)
/// subject.send(completion: .finished)
/// ```
public final class PassthroughSubject<Output, Failure: Error>: Subject {
  // Thread-safe by itself.
  @usableFromInline
  let core = SubjectCore<Output, Failure>(
    kind: .passthrough, subjectType: PassthroughSubject<Output, Failure>.self)

  /// Creates a subject with no subscribers.
  public init() {}

  deinit {
    core.cancelUpstreams()
  }

  /// Sends a value to the subscribers.
  @inlinable
  public func send(_ input: Output) {
    core.send(input)
  }

  /// Sends a completion signal to the subscribers.
  @inlinable
  public func send(completion: Subscribers.Completion<Failure>) {
    core.send(completion: completion)
  }

  /// Receives an upstream subscription, and requests unlimited demand from it once a subscriber
  /// has asked for a value, as in Combine.
  public func send(subscription: any Subscription) {
    core.send(subscription: subscription)
  }

  /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
  @inlinable @inline(__always)
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    core.receive(subscriber: subscriber)
  }
}

// Sendable only when its values are: a value sent on one thread reaches subscribers that subscribed
// on others, and may be delivered by another sender's thread. The core is thread-safe by itself.
extension PassthroughSubject: Sendable where Output: Sendable {}

extension PassthroughSubject: UpstreamForgetting {
  @usableFromInline
  func forgetUpstream(_ identifier: CombineIdentifier) {
    core.forgetUpstream(identifier)
  }
}

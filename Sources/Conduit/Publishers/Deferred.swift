/// A publisher that awaits subscription before running the supplied closure to create a
/// publisher for the new subscriber.
///
/// Unlike ``Future``, which runs its work once when created, `Deferred` runs it again for every
/// subscriber.
///
/// ```swift
/// let fresh = Deferred { Just(Date.now) }
/// ```
public struct Deferred<DeferredPublisher: Publisher>: Publisher {
  /// The kind of values published by this publisher.
  public typealias Output = DeferredPublisher.Output
  /// The kind of errors this publisher might publish.
  public typealias Failure = DeferredPublisher.Failure

  /// The closure to execute when this deferred publisher receives a subscription.
  public let createPublisher: () -> DeferredPublisher

  /// Creates a deferred publisher.
  @inlinable
  public init(createPublisher: @escaping () -> DeferredPublisher) {
    self.createPublisher = createPublisher
  }

  /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
  @inlinable
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    createPublisher().receive(subscriber: subscriber)
  }
}

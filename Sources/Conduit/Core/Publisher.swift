import Synchronization

/// Declares that a type can transmit a sequence of values over time.
///
/// A publisher delivers elements to one or more ``Subscriber`` instances. The subscriber's `Input`
/// and `Failure` must match the publisher's `Output` and `Failure`.
///
/// ```swift
/// let cancellable = [1, 2, 3].publisher
///     .sink { print($0) }
/// ```
public protocol Publisher<Output, Failure> {
  /// The kind of values published by this publisher.
  associatedtype Output

  /// The kind of errors this publisher might publish. Use `Never` if it cannot fail.
  associatedtype Failure: Error

  /// Attaches the specified subscriber to this publisher.
  ///
  /// Implementations must call `receive(subscription:)` on the subscriber exactly once.
  /// Call ``subscribe(_:)->()`` instead of this method to attach a subscriber.
  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure
}

extension Publisher {
  /// Attaches the specified subscriber to this publisher.
  ///
  /// ```swift
  /// Just(1).subscribe(mySubscriber)
  /// ```
  @inlinable @inline(__always)
  public func subscribe<S: Subscriber>(_ subscriber: S)
  where S.Input == Output, S.Failure == Failure {
    receive(subscriber: subscriber)
  }

  /// Attaches the specified subject to this publisher: the subject re-publishes every value and
  /// the completion.
  ///
  /// ```swift
  /// let relay = PassthroughSubject<Int, Never>()
  /// let cancellable = [1, 2].publisher.subscribe(relay)
  /// ```
  /// - Returns: A cancellable that ends the subject's subscription to this publisher.
  @inlinable
  public func subscribe<S: Subject>(_ subject: S) -> AnyCancellable
  where S.Output == Output, S.Failure == Failure {
    let subscriber = SubjectSubscriber(subject)
    receive(subscriber: subscriber)
    return AnyCancellable(cancelling: subscriber)
  }
}

/// A publisher that never publishes any values, and optionally finishes immediately.
///
/// ```swift
/// let finished = Empty<Int, Never>()                          // finishes at once
/// let silent = Empty<Int, Never>(completeImmediately: false)  // never completes
/// ```
public struct Empty<Output, Failure: Error>: Publisher, Equatable, Sendable {
  /// Whether the publisher immediately sends a completion.
  public let completeImmediately: Bool

  /// Creates an empty publisher.
  @inlinable
  public init(completeImmediately: Bool = true) {
    self.completeImmediately = completeImmediately
  }

  /// Creates an empty publisher with the given completion behavior and output and failure types.
  ///
  /// ```swift
  /// let empty = Empty(completeImmediately: true, outputType: Int.self, failureType: Never.self)
  /// ```
  @inlinable
  public init(completeImmediately: Bool = true, outputType: Output.Type, failureType: Failure.Type) {
    self.completeImmediately = completeImmediately
  }

  /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
  @inlinable
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    // flatMap and switchToLatest take `scalarOutcome` instead of subscribing (see
    // ScalarPublisher.swift): keep the two in step.
    subscriber.receive(subscription: Subscriptions.empty)
    if completeImmediately {
      subscriber.receive(completion: .finished)
    }
  }
}

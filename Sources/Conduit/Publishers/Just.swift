/// A publisher that emits an output to each subscriber just once, and then finishes.
///
/// ```swift
/// let cancellable = Just(42).sink { print($0) }   // prints 42
/// ```
public struct Just<Output>: Publisher {
  /// The kind of errors this publisher might publish.
  public typealias Failure = Never

  /// The one element that the publisher emits.
  public let output: Output

  /// Initializes a publisher that emits the specified output just once.
  @inlinable
  public init(_ output: Output) {
    self.output = output
  }

  /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
  @inlinable
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
    // flatMap and switchToLatest take `scalarOutcome` instead of subscribing (see
    // ScalarPublisher.swift): keep the two in step.
    subscriber.receive(
      subscription: SingleValueSubscription(output, downstream: subscriber, description: "Just"))
  }
}

extension Just: Equatable where Output: Equatable {}

extension Just: Sendable where Output: Sendable {}

/// A publisher that immediately terminates with the specified error.
///
/// ```swift
/// let cancellable = Fail<Int, MyError>(error: .notFound)
///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
/// ```
public struct Fail<Output, Failure: Error>: Publisher {
  /// The failure to send when terminating the publisher.
  public let error: Failure

  /// Creates a publisher that immediately terminates with the specified failure.
  @inlinable
  public init(error: Failure) {
    self.error = error
  }

  /// Creates publisher with the given output type, that immediately terminates with the
  /// specified failure.
  @inlinable
  public init(outputType: Output.Type, failure: Failure) {
    self.error = failure
  }

  /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
  @inlinable
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    // flatMap and switchToLatest take `scalarOutcome` instead of subscribing (see
    // ScalarPublisher.swift): keep the two in step.
    subscriber.receive(subscription: Subscriptions.empty)
    subscriber.receive(completion: .failure(error))
  }
}

extension Fail: Equatable where Failure: Equatable {}

extension Fail: Sendable {}

extension Result {
  /// A publisher that publishes an output to each subscriber exactly once then finishes, or
  /// fails immediately without producing any elements.
  ///
  /// ```swift
  /// let cancellable = Result<Int, MyError>.success(1).publisher.sink(
  ///     receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  public struct Publisher: Conduit.Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Success

    /// The result to deliver to each subscriber.
    public let result: Result<Success, Failure>

    /// Creates a publisher that delivers the specified result.
    @inlinable
    public init(_ result: Result<Output, Failure>) {
      self.result = result
    }

    /// Creates a publisher that sends the specified output to each subscriber once, then
    /// finishes.
    @inlinable
    public init(_ output: Output) {
      self.result = .success(output)
    }

    /// Creates a publisher that immediately fails with the specified error.
    @inlinable
    public init(_ failure: Failure) {
      self.result = .failure(failure)
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Success, S.Failure == Failure {
      // flatMap and switchToLatest take `scalarOutcome` instead of subscribing (see
      // ScalarPublisher.swift): keep the two in step.
      switch result {
      case .success(let output):
        subscriber.receive(
          subscription: SingleValueSubscription(output, downstream: subscriber, description: "Once"))
      case .failure(let error):
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .failure(error))
      }
    }
  }

  /// A publisher that delivers this result to each subscriber.
  ///
  /// ```swift
  /// let p = Result<Int, Never>.success(1).publisher
  /// ```
  public var publisher: Publisher {
    Publisher(self)
  }
}

extension Result.Publisher: Equatable where Success: Equatable, Failure: Equatable {}

extension Result.Publisher: Sendable where Success: Sendable {}

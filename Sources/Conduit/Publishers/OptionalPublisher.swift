extension Optional {
  /// A publisher that publishes an optional value to each subscriber exactly once, if the
  /// optional has a value; otherwise it just finishes.
  ///
  /// ```swift
  /// let cancellable = Optional(3).publisher.sink { print($0) }   // prints 3
  /// ```
  public struct Publisher: Conduit.Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Wrapped
    /// The kind of errors this publisher might publish.
    public typealias Failure = Never

    /// The result to deliver to each subscriber.
    public let output: Wrapped?

    /// Creates a publisher to emit the value of the optional, or to finish immediately if the
    /// optional doesn't have a value.
    @inlinable
    public init(_ output: Wrapped?) {
      self.output = output
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Wrapped, S.Failure == Never {
      // flatMap and switchToLatest take `scalarOutcome` instead of subscribing (see
      // ScalarPublisher.swift): keep the two in step.
      if let output {
        subscriber.receive(
          subscription: SingleValueSubscription(output, downstream: subscriber, description: "Optional"))
      } else {
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .finished)
      }
    }
  }

  /// A publisher of this optional's value, if any.
  ///
  /// ```swift
  /// let cancellable = Int?.none.publisher.sink { print($0) }   // prints nothing, finishes
  /// ```
  public var publisher: Optional<Wrapped>.Publisher {
    Publisher(self)
  }
}

extension Optional.Publisher: Equatable where Wrapped: Equatable {}

extension Optional.Publisher: Sendable where Wrapped: Sendable {}

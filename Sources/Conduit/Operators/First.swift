extension Publishers {
  /// A publisher that publishes the first element of a stream, then finishes.
  ///
  /// On the first element it cancels upstream and publishes it as soon as the subscriber has
  /// asked for it; an empty upstream's finish, too, waits for that first request.
  ///
  /// ```swift
  /// let cancellable = (-10...10).publisher
  ///     .first()
  ///     .sink { print($0) }   // -10
  /// ```
  public struct First<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// Creates a publisher that publishes the first element of a stream, then finishes.
    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        Reduction(
          downstream: subscriber, description: "First", initial: Output?.none,
          step: { (first: inout Output?, value: Output) throws(Failure) -> Bool in
            first = value
            return true
          },
          result: { $0 },
          convertFailure: { $0 }))
    }
  }
}

extension Publishers.First: Equatable where Upstream: Equatable {}

extension Publisher {
  /// Publishes the first element of a stream, then finishes.
  ///
  /// It cancels upstream after the first element; if upstream finishes without one, it just
  /// finishes, once the subscriber has asked for something.
  ///
  /// ```swift
  /// let cancellable = ["a", "b"].publisher
  ///     .first()
  ///     .sink { print($0) }   // a
  /// ```
  public func first() -> Publishers.First<Self> {
    Publishers.First(upstream: self)
  }
}

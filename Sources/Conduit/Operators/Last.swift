extension Publishers {
  /// A publisher that waits until after the stream finishes and then publishes the last
  /// element of the stream.
  ///
  /// It requests unlimited values from upstream as soon as it is subscribed, and publishes
  /// the last one once upstream has finished and the subscriber has asked for it; an empty
  /// upstream's finish, too, waits for that first request.
  ///
  /// ```swift
  /// let cancellable = (-10...10).publisher
  ///     .last()
  ///     .sink { print($0) }   // 10
  /// ```
  public struct Last<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// Creates a publisher that waits until after the stream finishes and then publishes the
    /// last element of the stream.
    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        Reduction(
          downstream: subscriber, description: "Last", initial: Output?.none,
          step: { (last: inout Output?, value: Output) throws(Failure) -> Bool in
            last = value
            return false
          },
          result: { $0 },
          convertFailure: { $0 }))
    }
  }
}

extension Publishers.Last: Equatable where Upstream: Equatable {}

extension Publisher {
  /// Publishes the last element of a stream, after the stream finishes.
  ///
  /// ```swift
  /// let cancellable = ["a", "b", "c"].publisher
  ///     .last()
  ///     .sink { print($0) }   // c
  /// ```
  public func last() -> Publishers.Last<Self> {
    Publishers.Last(upstream: self)
  }
}

extension Publishers {
  /// A publisher that publishes the number of elements received from the upstream publisher.
  ///
  /// It requests unlimited values from upstream as soon as it is subscribed, and publishes the
  /// count once upstream has finished and the subscriber has asked for it.
  ///
  /// ```swift
  /// let cancellable = ["a", "b"].publisher
  ///     .count()
  ///     .sink { print($0) }   // 2
  /// ```
  public struct Count<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Int
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// Creates a publisher that publishes the number of elements received from the upstream
    /// publisher.
    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Failure {
      upstream.subscribe(
        Reduction(
          downstream: subscriber, description: "Count", initial: 0,
          step: { (count: inout Int, _: Upstream.Output) throws(Failure) -> Bool in
            count += 1
            return false
          },
          result: { $0 },
          convertFailure: { $0 }))
    }
  }
}

extension Publishers.Count: Equatable where Upstream: Equatable {}

extension Publisher {
  /// Publishes the number of elements received from the upstream publisher.
  ///
  /// ```swift
  /// let cancellable = (0...10).publisher
  ///     .count()
  ///     .sink { print($0) }   // 11
  /// ```
  ///
  /// - Returns: A publisher that consumes all elements until upstream finishes, then emits a
  ///   single value with the total number of elements received.
  public func count() -> Publishers.Count<Self> {
    Publishers.Count(upstream: self)
  }
}

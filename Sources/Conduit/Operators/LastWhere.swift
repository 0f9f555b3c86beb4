extension Publishers {
  /// A publisher that waits until after the stream finishes and then publishes the last
  /// element of the stream that satisfies a predicate closure.
  ///
  /// If no element satisfies the predicate, it just finishes, once the subscriber has asked for
  /// something.
  ///
  /// ```swift
  /// let cancellable = [1, 4, 6, 7].publisher
  ///     .last { $0.isMultiple(of: 2) }
  ///     .sink { print($0) }   // 6
  /// ```
  public struct LastWhere<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The closure that determines whether to publish an element.
    public let predicate: (Upstream.Output) -> Bool

    /// Creates a publisher that publishes the last element of the stream that satisfies a
    /// predicate closure, once the stream finishes.
    public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
      self.upstream = upstream
      self.predicate = predicate
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let predicate = self.predicate
      upstream.subscribe(
        Reduction(
          downstream: subscriber, description: "LastWhere", initial: Output?.none,
          step: { (last: inout Output?, value: Output) throws(Failure) -> Bool in
            if predicate(value) { last = value }
            return false
          },
          result: { $0 },
          convertFailure: { $0 }))
    }
  }
}

extension Publisher {
  /// Publishes the last element of a stream that satisfies a predicate closure, after upstream
  /// completes.
  ///
  /// ```swift
  /// let cancellable = (-10...10).publisher
  ///     .last { $0 < 6 }
  ///     .sink { print($0) }   // 5
  /// ```
  ///
  /// - Parameter predicate: A closure that takes an element as its parameter and returns a
  ///   Boolean value that indicates whether to publish the element.
  public func last(where predicate: @escaping (Output) -> Bool) -> Publishers.LastWhere<Self> {
    Publishers.LastWhere(upstream: self, predicate: predicate)
  }
}

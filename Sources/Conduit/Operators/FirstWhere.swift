extension Publishers {
  /// A publisher that only publishes the first element of a stream to satisfy a predicate
  /// closure.
  ///
  /// On the first satisfying element it cancels upstream and publishes it as soon as the
  /// subscriber has asked for it; if upstream finishes without one, it just finishes, also once
  /// the subscriber has asked.
  ///
  /// ```swift
  /// let cancellable = [1, 4, 6].publisher
  ///     .first { $0.isMultiple(of: 2) }
  ///     .sink { print($0) }   // 4
  /// ```
  public struct FirstWhere<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The closure that determines whether to publish an element.
    public let predicate: (Upstream.Output) -> Bool

    /// Creates a publisher that only publishes the first element of a stream to satisfy a
    /// predicate closure.
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
          downstream: subscriber, description: "TryFirst", initial: Output?.none,
          step: { (found: inout Output?, value: Output) throws(Failure) -> Bool in
            guard predicate(value) else { return false }
            found = value
            return true
          },
          result: { $0 },
          convertFailure: { $0 }))
    }
  }
}

extension Publisher {
  /// Publishes the first element of a stream to satisfy a predicate closure, then finishes
  /// normally.
  ///
  /// ```swift
  /// let cancellable = (-10...10).publisher
  ///     .first { $0 > 0 }
  ///     .sink { print($0) }   // 1
  /// ```
  ///
  /// - Parameter predicate: A closure that takes an element as a parameter and returns a
  ///   Boolean value that indicates whether to publish the element.
  public func first(where predicate: @escaping (Output) -> Bool) -> Publishers.FirstWhere<Self> {
    Publishers.FirstWhere(upstream: self, predicate: predicate)
  }
}

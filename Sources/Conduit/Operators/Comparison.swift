extension Publishers {
  /// A publisher that republishes items from another publisher only if each new item is in
  /// increasing order from the previously published item.
  ///
  /// It keeps the greatest element by `areInIncreasingOrder` (`min` passes the reversed
  /// ordering), replacing the kept element only by one strictly greater, so of equal elements
  /// the first one wins. It requests unlimited values from upstream as soon as it is subscribed
  /// and publishes the kept element once upstream has finished and the subscriber has asked for
  /// it; an empty upstream's finish, too, waits for that first request.
  ///
  /// ```swift
  /// let cancellable = [3, 9, 4].publisher
  ///     .max()
  ///     .sink { print($0) }   // 9
  /// ```
  public struct Comparison<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher that this publisher receives elements from.
    public let upstream: Upstream

    /// A closure that receives two elements and returns `true` if they are in increasing order.
    public let areInIncreasingOrder: (Upstream.Output, Upstream.Output) -> Bool

    /// Creates a publisher that publishes the greatest element of upstream by
    /// `areInIncreasingOrder`.
    public init(upstream: Upstream, areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) -> Bool) {
      self.upstream = upstream
      self.areInIncreasingOrder = areInIncreasingOrder
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let areInIncreasingOrder = self.areInIncreasingOrder
      upstream.subscribe(
        Reduction(
          downstream: subscriber, description: "Comparison", initial: Output?.none,
          step: { (kept: inout Output?, value: Output) throws(Failure) -> Bool in
            if let current = kept {
              if areInIncreasingOrder(current, value) { kept = value }
            } else {
              kept = value
            }
            return false
          },
          result: { $0 },
          convertFailure: { $0 }))
    }
  }
}

extension Publisher where Output: Comparable {
  /// Publishes the minimum value received from the upstream publisher, after it finishes.
  ///
  /// It requests unlimited values from upstream as soon as it is subscribed.
  ///
  /// ```swift
  /// let cancellable = [-1, 0, 10, 5].publisher
  ///     .min()
  ///     .sink { print($0) }   // -1
  /// ```
  public func min() -> Publishers.Comparison<Self> {
    Publishers.Comparison(upstream: self, areInIncreasingOrder: >)
  }

  /// Publishes the maximum value received from the upstream publisher, after it finishes.
  ///
  /// It requests unlimited values from upstream as soon as it is subscribed.
  ///
  /// ```swift
  /// let cancellable = [0, 10, 5].publisher
  ///     .max()
  ///     .sink { print($0) }   // 10
  /// ```
  public func max() -> Publishers.Comparison<Self> {
    Publishers.Comparison(upstream: self, areInIncreasingOrder: <)
  }
}

extension Publisher {
  /// Publishes the minimum value received from the upstream publisher, after it finishes,
  /// ordering elements with the closure you provide.
  ///
  /// ```swift
  /// let cancellable = ["pear", "fig", "banana"].publisher
  ///     .min { $0.count < $1.count }
  ///     .sink { print($0) }   // fig
  /// ```
  ///
  /// - Parameter areInIncreasingOrder: A closure that receives two elements and returns `true`
  ///   if they are in increasing order.
  public func min(by areInIncreasingOrder: @escaping (Output, Output) -> Bool) -> Publishers.Comparison<Self> {
    Publishers.Comparison(upstream: self) { areInIncreasingOrder($1, $0) }
  }

  /// Publishes the maximum value received from the upstream publisher, after it finishes,
  /// ordering elements with the closure you provide.
  ///
  /// ```swift
  /// let cancellable = ["pear", "fig", "banana"].publisher
  ///     .max { $0.count < $1.count }
  ///     .sink { print($0) }   // banana
  /// ```
  ///
  /// - Parameter areInIncreasingOrder: A closure that receives two elements and returns `true`
  ///   if they are in increasing order.
  public func max(by areInIncreasingOrder: @escaping (Output, Output) -> Bool) -> Publishers.Comparison<Self> {
    Publishers.Comparison(upstream: self, areInIncreasingOrder: areInIncreasingOrder)
  }
}

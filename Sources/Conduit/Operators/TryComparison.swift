extension Publishers {
  /// A publisher that republishes items from another publisher only if each new item is in
  /// increasing order from the previously published item, and fails if the ordering logic
  /// throws an error.
  ///
  /// It keeps the greatest element by `areInIncreasingOrder` (`tryMin` passes the reversed
  /// ordering); of equal elements the first one wins. If the closure throws, the publisher
  /// cancels upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = [3, 9, 4].publisher
  ///     .tryMax { lhs, rhs in
  ///         guard lhs >= 0, rhs >= 0 else { throw Negative() }
  ///         return lhs < rhs
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 9, finished
  /// ```
  public struct TryComparison<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher that this publisher receives elements from.
    public let upstream: Upstream

    /// A closure that receives two elements and returns `true` if they are in increasing order.
    public let areInIncreasingOrder: (Upstream.Output, Upstream.Output) throws -> Bool

    /// Creates a publisher that publishes the greatest element of upstream by the
    /// error-throwing `areInIncreasingOrder`.
    public init(
      upstream: Upstream, areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) throws -> Bool
    ) {
      self.upstream = upstream
      self.areInIncreasingOrder = areInIncreasingOrder
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
      let areInIncreasingOrder = self.areInIncreasingOrder
      upstream.subscribe(
        Reduction(
          downstream: subscriber, description: "TryComparison", initial: Output?.none,
          step: { (kept: inout Output?, value: Output) throws(any Error) -> Bool in
            if let current = kept {
              if try areInIncreasingOrder(current, value) { kept = value }
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

extension Publisher {
  /// Publishes the minimum value received from the upstream publisher, using the provided
  /// error-throwing closure to order the items.
  ///
  /// If the closure throws, the publisher cancels upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = [0, 10, 6].publisher
  ///     .tryMin { first, second in
  ///         guard first % 2 == 0 else { throw OddValue() }
  ///         return first < second
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 0, finished
  /// ```
  ///
  /// - Parameter areInIncreasingOrder: A throwing closure that receives two elements and
  ///   returns `true` if they are in increasing order.
  public func tryMin(
    by areInIncreasingOrder: @escaping (Output, Output) throws -> Bool
  ) -> Publishers.TryComparison<Self> {
    Publishers.TryComparison(upstream: self) { try areInIncreasingOrder($1, $0) }
  }

  /// Publishes the maximum value received from the upstream publisher, using the provided
  /// error-throwing closure to order the items.
  ///
  /// If the closure throws, the publisher cancels upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = [0, 10, 6].publisher
  ///     .tryMax { first, second in
  ///         guard first % 2 == 0 else { throw OddValue() }
  ///         return first < second
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 10, finished
  /// ```
  ///
  /// - Parameter areInIncreasingOrder: A throwing closure that receives two elements and
  ///   returns `true` if they are in increasing order.
  public func tryMax(
    by areInIncreasingOrder: @escaping (Output, Output) throws -> Bool
  ) -> Publishers.TryComparison<Self> {
    Publishers.TryComparison(upstream: self, areInIncreasingOrder: areInIncreasingOrder)
  }
}

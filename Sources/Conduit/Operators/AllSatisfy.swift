extension Publishers {
  /// A publisher that publishes a single Boolean value that indicates whether all received
  /// elements pass a given predicate.
  ///
  /// On the first element that fails the predicate it cancels upstream and publishes `false`
  /// (as soon as the subscriber has asked for it); if upstream finishes first, it publishes
  /// `true`.
  ///
  /// ```swift
  /// let cancellable = [2, 4, 6].publisher
  ///     .allSatisfy { $0.isMultiple(of: 2) }
  ///     .sink { print($0) }   // true
  /// ```
  public struct AllSatisfy<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Bool
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// A closure that evaluates each received element.
    ///
    /// Return `true` to continue, or `false` to cancel the upstream and finish.
    public let predicate: (Upstream.Output) -> Bool

    /// Creates a publisher that publishes whether all received elements pass the predicate.
    public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
      self.upstream = upstream
      self.predicate = predicate
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Bool, S.Failure == Failure {
      let predicate = self.predicate
      upstream.subscribe(
        Reduction(
          downstream: subscriber, description: "AllSatisfy", initial: true,
          step: { (satisfied: inout Bool, value: Upstream.Output) throws(Failure) -> Bool in
            satisfied = predicate(value)
            return !satisfied
          },
          result: { $0 },
          convertFailure: { $0 }))
    }
  }
}

extension Publisher {
  /// Publishes a single Boolean value that indicates whether all received elements pass a
  /// given predicate.
  ///
  /// On the first failing element it cancels upstream and publishes `false`; if upstream
  /// finishes first, it publishes `true` (also for an empty upstream).
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3, 4].publisher
  ///     .allSatisfy { $0 < 3 }
  ///     .sink { print($0) }   // false
  /// ```
  ///
  /// - Parameter predicate: A closure that evaluates each received element. Return `true` to
  ///   continue, or `false` to cancel the upstream and complete.
  public func allSatisfy(_ predicate: @escaping (Output) -> Bool) -> Publishers.AllSatisfy<Self> {
    Publishers.AllSatisfy(upstream: self, predicate: predicate)
  }
}

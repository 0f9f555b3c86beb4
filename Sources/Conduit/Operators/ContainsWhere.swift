extension Publishers {
  /// A publisher that emits a Boolean value upon receiving an element that satisfies the
  /// predicate closure.
  ///
  /// On the first satisfying element it cancels upstream and publishes `true` (as soon as the
  /// subscriber has asked for it); if upstream finishes without one, it publishes `false`.
  ///
  /// ```swift
  /// let cancellable = [1, 5, 7].publisher
  ///     .contains { $0 > 6 }
  ///     .sink { print($0) }   // true
  /// ```
  public struct ContainsWhere<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Bool
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The closure that determines whether the publisher should consider an element as a match.
    public let predicate: (Upstream.Output) -> Bool

    /// Creates a publisher that emits a Boolean value upon receiving an element that satisfies
    /// the predicate closure.
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
          downstream: subscriber, description: "ContainsWhere", initial: false,
          step: { (found: inout Bool, value: Upstream.Output) throws(Failure) -> Bool in
            found = predicate(value)
            return found
          },
          result: { $0 },
          convertFailure: { $0 }))
    }
  }
}

extension Publisher {
  /// Publishes a Boolean value upon receiving an element that satisfies the predicate closure.
  ///
  /// On the first satisfying element it cancels upstream and publishes `true`; if upstream
  /// finishes without one, it publishes `false`.
  ///
  /// ```swift
  /// let cancellable = [-1, 5, 10].publisher
  ///     .contains { $0 > 4 }
  ///     .sink { print($0) }   // true
  /// ```
  ///
  /// - Parameter predicate: A closure that takes an element as its parameter and returns a
  ///   Boolean value that indicates whether the element satisfies the closure's comparison logic.
  public func contains(where predicate: @escaping (Output) -> Bool) -> Publishers.ContainsWhere<Self> {
    Publishers.ContainsWhere(upstream: self, predicate: predicate)
  }
}

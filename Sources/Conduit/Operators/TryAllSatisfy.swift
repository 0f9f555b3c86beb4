extension Publishers {
  /// A publisher that publishes a single Boolean value that indicates whether all received
  /// elements pass a given error-throwing predicate.
  ///
  /// On the first element that fails the predicate it cancels upstream and publishes `false`;
  /// if upstream finishes first, it publishes `true`. If the predicate throws, the publisher
  /// cancels upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = [2, 4, 6].publisher
  ///     .tryAllSatisfy { value in
  ///         guard value >= 0 else { throw Negative() }
  ///         return value.isMultiple(of: 2)
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // true, finished
  /// ```
  public struct TryAllSatisfy<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Bool
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// A closure that evaluates each received element.
    ///
    /// Return `true` to continue, or `false` to cancel the upstream and complete. The closure
    /// may throw, in which case the publisher cancels the upstream publisher and fails with
    /// the thrown error.
    public let predicate: (Upstream.Output) throws -> Bool

    /// Creates a publisher that publishes whether all received elements pass the
    /// error-throwing predicate.
    public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
      self.upstream = upstream
      self.predicate = predicate
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Bool, S.Failure == any Error {
      let predicate = self.predicate
      upstream.subscribe(
        Reduction(
          downstream: subscriber, description: "TryAllSatisfy", initial: true,
          step: { (satisfied: inout Bool, value: Upstream.Output) throws(any Error) -> Bool in
            satisfied = try predicate(value)
            return !satisfied
          },
          result: { $0 },
          convertFailure: { $0 }))
    }
  }
}

extension Publisher {
  /// Publishes a single Boolean value that indicates whether all received elements pass a
  /// given error-throwing predicate.
  ///
  /// On the first failing element it cancels upstream and publishes `false`; if upstream
  /// finishes first, it publishes `true`. If the predicate throws, the publisher cancels
  /// upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher
  ///     .tryAllSatisfy { value in
  ///         guard value != 2 else { throw Unexpected() }
  ///         return value < 10
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // failure(Unexpected())
  /// ```
  ///
  /// - Parameter predicate: A closure that evaluates each received element. Return `true` to
  ///   continue, or `false` to cancel the upstream and complete. The closure may throw.
  public func tryAllSatisfy(_ predicate: @escaping (Output) throws -> Bool) -> Publishers.TryAllSatisfy<Self> {
    Publishers.TryAllSatisfy(upstream: self, predicate: predicate)
  }
}

extension Publishers {
  /// A publisher that emits a Boolean value upon receiving an element that satisfies the
  /// throwing predicate closure.
  ///
  /// On the first satisfying element it cancels upstream and publishes `true`; if upstream
  /// finishes without one, it publishes `false`. If the predicate throws, the publisher cancels
  /// upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = [1, 5, 7].publisher
  ///     .tryContains { value in
  ///         guard value >= 0 else { throw Negative() }
  ///         return value > 6
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // true, finished
  /// ```
  public struct TryContainsWhere<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Bool
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The error-throwing closure that determines whether this publisher should emit a `true`
    /// element.
    public let predicate: (Upstream.Output) throws -> Bool

    /// Creates a publisher that emits a Boolean value upon receiving an element that satisfies
    /// the throwing predicate closure.
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
          downstream: subscriber, description: "TryContainsWhere", initial: false,
          step: { (found: inout Bool, value: Upstream.Output) throws(any Error) -> Bool in
            found = try predicate(value)
            return found
          },
          result: { $0 },
          convertFailure: { $0 }))
    }
  }
}

extension Publisher {
  /// Publishes a Boolean value upon receiving an element that satisfies the throwing predicate
  /// closure.
  ///
  /// On the first satisfying element it cancels upstream and publishes `true`; if upstream
  /// finishes without one, it publishes `false`. If the predicate throws, the publisher cancels
  /// upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = ["1", "2", "x"].publisher
  ///     .tryContains { text in
  ///         guard let number = Int(text) else { throw NotANumber() }
  ///         return number > 5
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // failure(NotANumber())
  /// ```
  ///
  /// - Parameter predicate: A closure that takes an element as its parameter and returns a
  ///   Boolean value that indicates whether the element satisfies the closure's comparison
  ///   logic, or throws.
  public func tryContains(
    where predicate: @escaping (Output) throws -> Bool
  ) -> Publishers.TryContainsWhere<Self> {
    Publishers.TryContainsWhere(upstream: self, predicate: predicate)
  }
}

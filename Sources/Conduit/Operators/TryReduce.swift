extension Publishers {
  /// A publisher that applies an error-throwing closure to all received elements and produces
  /// an accumulated value when the upstream publisher finishes.
  ///
  /// If the closure throws, the publisher cancels upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher
  ///     .tryReduce(0) { sum, next in
  ///         guard next > 0 else { throw BadValue() }
  ///         return sum + next
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 6, finished
  /// ```
  public struct TryReduce<Upstream: Publisher, Output>: Publisher {
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The initial value provided on the first invocation of the closure.
    public let initial: Output

    /// An error-throwing closure that takes the previously accumulated value and the next
    /// element from the upstream to produce a new value.
    public let nextPartialResult: (Output, Upstream.Output) throws -> Output

    /// Creates a publisher that applies an error-throwing closure to all received elements and
    /// produces an accumulated value when the upstream publisher finishes.
    public init(
      upstream: Upstream, initial: Output, nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output
    ) {
      self.upstream = upstream
      self.initial = initial
      self.nextPartialResult = nextPartialResult
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
      let nextPartialResult = self.nextPartialResult
      upstream.subscribe(
        Reduction(
          downstream: subscriber, description: "TryReduce", initial: initial,
          step: { (accumulator: inout Output, value: Upstream.Output) throws(any Error) -> Bool in
            accumulator = try nextPartialResult(accumulator, value)
            return false
          },
          result: { $0 },
          convertFailure: { $0 }))
    }
  }
}

extension Publisher {
  /// Applies an error-throwing closure that collects each element of a stream and publishes a
  /// final result upon completion.
  ///
  /// If the closure throws, the publisher cancels upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 0, 4].publisher
  ///     .tryReduce(1) { product, next in
  ///         guard next != 0 else { throw ZeroFactor() }
  ///         return product * next
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // failure(ZeroFactor())
  /// ```
  ///
  /// - Parameters:
  ///   - initialResult: The value that the closure receives the first time it's called.
  ///   - nextPartialResult: An error-throwing closure that takes the previously accumulated
  ///     value and the next element from upstream to produce a new value.
  public func tryReduce<T>(
    _ initialResult: T, _ nextPartialResult: @escaping (T, Output) throws -> T
  ) -> Publishers.TryReduce<Self, T> {
    Publishers.TryReduce(upstream: self, initial: initialResult, nextPartialResult: nextPartialResult)
  }
}

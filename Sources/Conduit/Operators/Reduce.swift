extension Publishers {
  /// A publisher that applies a closure to all received elements and produces an accumulated
  /// value when the upstream publisher finishes.
  ///
  /// It requests unlimited values from upstream as soon as it is subscribed, and publishes the
  /// accumulated value once upstream has finished and the subscriber has asked for it.
  ///
  /// ```swift
  /// let cancellable = (1...4).publisher
  ///     .reduce(0, +)
  ///     .sink { print($0) }   // 10
  /// ```
  public struct Reduce<Upstream: Publisher, Output>: Publisher {
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The initial value provided on the first invocation of the closure.
    public let initial: Output

    /// A closure that takes the previously accumulated value and the next element from the
    /// upstream publisher to produce a new value.
    public let nextPartialResult: (Output, Upstream.Output) -> Output

    /// Creates a publisher that applies a closure to all received elements and produces an
    /// accumulated value when the upstream publisher finishes.
    public init(
      upstream: Upstream, initial: Output, nextPartialResult: @escaping (Output, Upstream.Output) -> Output
    ) {
      self.upstream = upstream
      self.initial = initial
      self.nextPartialResult = nextPartialResult
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let nextPartialResult = self.nextPartialResult
      upstream.subscribe(
        Reduction(
          downstream: subscriber, description: "Reduce", initial: initial,
          step: { (accumulator: inout Output, value: Upstream.Output) throws(Failure) -> Bool in
            accumulator = nextPartialResult(accumulator, value)
            return false
          },
          result: { $0 },
          convertFailure: { $0 }))
    }
  }
}

extension Publisher {
  /// Applies a closure that collects each element of a stream and publishes a final result
  /// upon completion.
  ///
  /// If upstream fails, the failure goes downstream and no value is published.
  ///
  /// ```swift
  /// let cancellable = (0...10).publisher
  ///     .reduce(0) { accumulated, next in accumulated + next }
  ///     .sink { print($0) }   // 55
  /// ```
  ///
  /// - Parameters:
  ///   - initialResult: The value that the closure receives the first time it's called.
  ///   - nextPartialResult: A closure that produces a new value by taking the
  ///     previously accumulated value and the next element it receives from upstream.
  public func reduce<T>(
    _ initialResult: T, _ nextPartialResult: @escaping (T, Output) -> T
  ) -> Publishers.Reduce<Self, T> {
    Publishers.Reduce(upstream: self, initial: initialResult, nextPartialResult: nextPartialResult)
  }
}

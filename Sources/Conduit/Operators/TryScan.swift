extension Publishers {
  /// A publisher that transforms elements from the upstream publisher by providing the current
  /// element to an error-throwing closure along with the last value returned by the closure.
  ///
  /// A thrown error cancels the upstream publisher and fails the stream with that error.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 0, 3].publisher
  ///     .tryScan(10) { total, divisor in
  ///         guard divisor != 0 else { throw DivisionByZero() }
  ///         return total / divisor
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 10, 5, failure
  /// ```
  public struct TryScan<Upstream: Publisher, Output>: Publisher {
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The previous result returned by the `nextPartialResult` closure.
    public let initialResult: Output

    /// An error-throwing closure that takes as its arguments the previous value returned by the
    /// closure and the next element emitted from the upstream publisher.
    public let nextPartialResult: (Output, Upstream.Output) throws -> Output

    /// Creates a publisher that accumulates the upstream elements with an error-throwing
    /// closure, publishing each intermediate result.
    public init(
      upstream: Upstream, initialResult: Output,
      nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output
    ) {
      self.upstream = upstream
      self.initialResult = initialResult
      self.nextPartialResult = nextPartialResult
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
      upstream.subscribe(
        Inner(
          downstream: subscriber, step: Step(result: initialResult, nextPartialResult: nextPartialResult)))
    }
  }
}

extension Publishers.TryScan {
  typealias Inner<Downstream: Subscriber> = FallibleInner<FallibleTypes<Step, Downstream>>
  where Downstream.Input == Step.Emitted, Downstream.Failure == Step.Failure
}

extension Publishers.TryScan {
  /// Keeps the running result and publishes each new one.
  struct Step: FallibleStep {
    typealias UpstreamFailure = Upstream.Failure
    typealias Failure = any Error

    var result: Output
    let nextPartialResult: (Output, Upstream.Output) throws -> Output

    init(result: Output, nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output) {
      self.result = result
      self.nextPartialResult = nextPartialResult
    }

    static var name: String { "TryScan" }

    static var kind: CombineSubscriptionKind { .accumulating }

    static func mirrorChildren(of step: Self?, _ inner: FallibleReflection) -> [Mirror.Child] {
      let result: Any = step.map { $0.result } ?? Output?.none as Any
      return [("downstream", inner.downstream), ("status", inner.status), ("result", result)]
    }

    mutating func step(_ input: Upstream.Output) throws -> FallibleStepResult<Output> {
      result = try nextPartialResult(result, input)
      return .emit(result)
    }
  }
}

extension Publisher {
  /// Transforms elements from the upstream publisher by providing the current element to an
  /// error-throwing closure along with the last value returned by the closure.
  ///
  /// If the closure throws, the publisher cancels its upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher
  ///     .tryScan(0) { try checkedSum($0, $1) }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  public func tryScan<T>(
    _ initialResult: T, _ nextPartialResult: @escaping (T, Output) throws -> T
  ) -> Publishers.TryScan<Self, T> {
    Publishers.TryScan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
  }
}

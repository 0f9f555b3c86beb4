extension Publishers {
  /// A publisher that republishes all elements that match a provided error-throwing closure.
  ///
  /// A thrown error cancels the upstream publisher and fails the stream with that error.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 0, 4].publisher
  ///     .tryFilter { value -> Bool in
  ///         guard value != 0 else { throw ZeroError() }
  ///         return value.isMultiple(of: 2)
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 2, failure
  /// ```
  public struct TryFilter<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// An error-throwing closure that indicates whether to republish an element.
    public let isIncluded: (Upstream.Output) throws -> Bool

    /// Creates a publisher that republishes all elements that match a provided error-throwing
    /// closure.
    public init(upstream: Upstream, isIncluded: @escaping (Upstream.Output) throws -> Bool) {
      self.upstream = upstream
      self.isIncluded = isIncluded
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
      upstream.subscribe(Inner(downstream: subscriber, step: Step(isIncluded: isIncluded)))
    }
  }
}

extension Publishers.TryFilter {
  /// Fuses an error-throwing `filter` into this `tryFilter`: one `Publishers.TryFilter` that
  /// republishes elements matching both closures.
  ///
  /// ```swift
  /// let fused: Publishers.TryFilter<PassthroughSubject<Int, Never>> =
  ///     subject.tryFilter { try isAllowed($0) }.filter { $0 > 0 }
  /// ```
  public func filter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Upstream> {
    let first = self.isIncluded
    return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
  }

  /// Fuses a second `tryFilter` into this one: one `Publishers.TryFilter` that republishes
  /// elements matching both closures.
  ///
  /// ```swift
  /// let fused: Publishers.TryFilter<PassthroughSubject<Int, Never>> =
  ///     subject.tryFilter { try isAllowed($0) }.tryFilter { try isFresh($0) }
  /// ```
  public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Upstream> {
    let first = self.isIncluded
    return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
  }
}

extension Publishers.TryFilter {
  typealias Inner<Downstream: Subscriber> = FallibleInner<FallibleTypes<Step, Downstream>>
  where Downstream.Input == Step.Emitted, Downstream.Failure == Step.Failure
}

extension Publishers.TryFilter {
  /// Republishes the values the closure includes; a value filtered out is replaced by asking
  /// upstream for one more.
  struct Step: FallibleStep {
    typealias UpstreamFailure = Upstream.Failure
    typealias Failure = any Error

    let isIncluded: (Upstream.Output) throws -> Bool

    init(isIncluded: @escaping (Upstream.Output) throws -> Bool) { self.isIncluded = isIncluded }

    static var name: String { "TryFilter" }

    static var kind: CombineSubscriptionKind { .filtering }

    static func mirrorChildren(of step: Self?, _ inner: FallibleReflection) -> [Mirror.Child] {
      [("downstream", inner.downstream)]
    }

    func step(_ input: Upstream.Output) throws -> FallibleStepResult<Upstream.Output> {
      try isIncluded(input) ? .emit(input) : .drop
    }
  }
}

extension Publisher {
  /// Republishes all elements that match a provided error-throwing closure.
  ///
  /// If the closure throws, the publisher cancels its upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher
  ///     .tryFilter { try isAllowed($0) }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Self> {
    Publishers.TryFilter(upstream: self, isIncluded: isIncluded)
  }
}

extension Publishers {
  /// A publisher that republishes all non-`nil` results of calling an error-throwing closure
  /// with each received element.
  ///
  /// A thrown error cancels the upstream publisher and fails the stream with that error.
  ///
  /// ```swift
  /// let cancellable = ["1", "", "3"].publisher
  ///     .tryCompactMap { text -> Int? in
  ///         guard !text.isEmpty else { throw EmptyText() }
  ///         return Int(text)
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 1, failure
  /// ```
  public struct TryCompactMap<Upstream: Publisher, Output>: Publisher {
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// An error-throwing closure that receives values from the upstream publisher and returns
    /// optional values.
    public let transform: (Upstream.Output) throws -> Output?

    /// Creates a publisher that republishes all non-`nil` results of calling an error-throwing
    /// closure with each received element.
    public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output?) {
      self.upstream = upstream
      self.transform = transform
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
      upstream.subscribe(Inner(downstream: subscriber, step: Step(transform: transform)))
    }
  }
}

extension Publishers.TryCompactMap {
  /// Fuses a second, error-throwing `compactMap` into this one: one `Publishers.TryCompactMap`
  /// applying both closures.
  ///
  /// ```swift
  /// let fused: Publishers.TryCompactMap<PassthroughSubject<String, Never>, Int> =
  ///     subject.tryCompactMap { try parse($0) }.compactMap { $0 > 0 ? $0 : nil }
  /// ```
  public func compactMap<Result>(
    _ transform: @escaping (Output) throws -> Result?
  ) -> Publishers.TryCompactMap<Upstream, Result> {
    let first = self.transform
    return Publishers.TryCompactMap(upstream: upstream) { try first($0).flatMap(transform) }
  }
}

extension Publishers.TryCompactMap {
  typealias Inner<Downstream: Subscriber> = FallibleInner<FallibleTypes<Step, Downstream>>
  where Downstream.Input == Step.Emitted, Downstream.Failure == Step.Failure
}

extension Publishers.TryCompactMap {
  /// Republishes the non-`nil` results of the closure; a dropped value is replaced by asking
  /// upstream for one more.
  struct Step: FallibleStep {
    typealias UpstreamFailure = Upstream.Failure
    typealias Failure = any Error

    let transform: (Upstream.Output) throws -> Output?

    init(transform: @escaping (Upstream.Output) throws -> Output?) { self.transform = transform }

    static var name: String { "TryCompactMap" }

    static var kind: CombineSubscriptionKind { .filtering }

    static func mirrorChildren(of step: Self?, _ inner: FallibleReflection) -> [Mirror.Child] {
      [("downstream", inner.downstream)]
    }

    func step(_ input: Upstream.Output) throws -> FallibleStepResult<Output> {
      guard let output = try transform(input) else { return .drop }
      return .emit(output)
    }
  }
}

extension Publisher {
  /// Calls an error-throwing closure with each received element and publishes any returned
  /// optional that has a value.
  ///
  /// If the closure throws, the publisher cancels its upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = [6, 5, 0].publisher
  ///     .tryCompactMap { try romanNumeral(for: $0) }   // throws for 0
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  public func tryCompactMap<T>(_ transform: @escaping (Output) throws -> T?) -> Publishers.TryCompactMap<Self, T> {
    Publishers.TryCompactMap(upstream: self, transform: transform)
  }
}

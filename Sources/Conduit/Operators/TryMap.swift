extension Publishers {
  /// A publisher that transforms all elements from the upstream publisher with a provided
  /// error-throwing closure.
  ///
  /// A thrown error cancels the upstream publisher and fails the stream with that error.
  ///
  /// ```swift
  /// struct Negative: Error {}
  /// let cancellable = [1, -2, 3].publisher
  ///     .tryMap { value -> Int in
  ///         guard value >= 0 else { throw Negative() }
  ///         return value * 10
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 10, failure
  /// ```
  public struct TryMap<Upstream: Publisher, Output>: Publisher {
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The error-throwing closure that transforms elements from the upstream publisher.
    public let transform: (Upstream.Output) throws -> Output

    /// Creates a publisher that transforms all elements from the upstream publisher with a
    /// provided error-throwing closure.
    @inlinable
    public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output) {
      self.upstream = upstream
      self.transform = transform
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
      upstream.subscribe(Inner(downstream: subscriber, step: Step(transform: transform)))
    }
  }
}

extension Publishers.Map {
  /// Fuses a `tryMap` into this `map`: one `Publishers.TryMap` applying both closures.
  ///
  /// ```swift
  /// let fused: Publishers.TryMap<PassthroughSubject<Int, Never>, Int> =
  ///     subject.map { $0 * 2 }.tryMap { try check($0) }
  /// ```
  @inlinable
  public func tryMap<Result>(
    _ transform: @escaping (Output) throws -> Result
  ) -> Publishers.TryMap<Upstream, Result> {
    let first = self.transform
    return Publishers.TryMap(upstream: upstream) { try transform(first($0)) }
  }
}

extension Publishers.TryMap {
  /// Fuses a `map` into this `tryMap`: one `Publishers.TryMap` applying both closures.
  ///
  /// ```swift
  /// let fused: Publishers.TryMap<PassthroughSubject<Int, Never>, String> =
  ///     subject.tryMap { try check($0) }.map { "\($0)" }
  /// ```
  @inlinable
  public func map<Result>(_ transform: @escaping (Output) -> Result) -> Publishers.TryMap<Upstream, Result> {
    let first = self.transform
    return Publishers.TryMap(upstream: upstream) { transform(try first($0)) }
  }

  /// Fuses a second `tryMap` into this one: one `Publishers.TryMap` applying both closures.
  ///
  /// ```swift
  /// let fused: Publishers.TryMap<PassthroughSubject<Int, Never>, Int> =
  ///     subject.tryMap { try check($0) }.tryMap { try check($0 + 1) }
  /// ```
  @inlinable
  public func tryMap<Result>(
    _ transform: @escaping (Output) throws -> Result
  ) -> Publishers.TryMap<Upstream, Result> {
    let first = self.transform
    return Publishers.TryMap(upstream: upstream) { try transform(try first($0)) }
  }
}

extension Publishers.TryMap {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = FallibleInner<FallibleTypes<Step, Downstream>>
  where Downstream.Input == Step.Emitted, Downstream.Failure == Step.Failure
}

extension Publishers.TryMap {
  /// Transforms each value; a thrown error fails the stream.
  @usableFromInline
  struct Step: FallibleStep {
    @usableFromInline
    typealias UpstreamFailure = Upstream.Failure
    @usableFromInline
    typealias Failure = any Error

    @usableFromInline
    let transform: (Upstream.Output) throws -> Output

    @inlinable
    init(transform: @escaping (Upstream.Output) throws -> Output) { self.transform = transform }

    @usableFromInline
    static var name: String { "TryMap" }

    @inlinable
    static var kind: CombineSubscriptionKind { .mapping }

    @usableFromInline
    static func mirrorChildren(of step: Self?, _ inner: FallibleReflection) -> [Mirror.Child] { [] }

    @inlinable
    func step(_ input: Upstream.Output) throws -> FallibleStepResult<Output> {
      .emit(try transform(input))
    }
  }
}

extension Publisher {
  /// Transforms all elements from the upstream publisher with a provided error-throwing
  /// closure.
  ///
  /// If the closure throws, the publisher cancels its upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = ["1", "x"].publisher
  ///     .tryMap { text -> Int in
  ///         guard let value = Int(text) else { throw ParseError() }
  ///         return value
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 1, failure
  /// ```
  @inlinable
  public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Self, T> {
    Publishers.TryMap(upstream: self, transform: transform)
  }
}

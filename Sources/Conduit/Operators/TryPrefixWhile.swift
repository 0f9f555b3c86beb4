extension Publishers {
  /// A publisher that republishes elements while an error-throwing predicate closure indicates
  /// publishing should continue.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 5, 1].publisher
  ///     .tryPrefix(while: { $0 < 3 })
  ///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })   // 1, 2
  /// ```
  public struct TryPrefixWhile<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The error-throwing closure that determines whether publishing should continue.
    public let predicate: (Upstream.Output) throws -> Bool

    /// Creates a publisher that republishes elements of `upstream` while `predicate` returns
    /// true, and fails if it throws.
    public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
      self.upstream = upstream
      self.predicate = predicate
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, step: Step(predicate: predicate)))
    }
  }
}

extension Publishers.TryPrefixWhile {
  typealias Inner<Downstream: Subscriber> = FallibleInner<FallibleTypes<Step, Downstream>>
  where Downstream.Input == Step.Emitted, Downstream.Failure == Step.Failure
}

extension Publishers.TryPrefixWhile {
  /// Republishes values while the predicate holds; at the first it rejects the stream finishes.
  struct Step: FallibleStep {
    typealias UpstreamFailure = Upstream.Failure
    typealias Failure = any Error

    let predicate: (Upstream.Output) throws -> Bool

    init(predicate: @escaping (Upstream.Output) throws -> Bool) { self.predicate = predicate }

    static var name: String { "TryPrefixWhile" }

    static var kind: CombineSubscriptionKind { .filtering }

    static func mirrorChildren(of step: Self?, _ inner: FallibleReflection) -> [Mirror.Child] {
      [("downstream", inner.downstream)]
    }

    func step(_ input: Upstream.Output) throws -> FallibleStepResult<Upstream.Output> {
      try predicate(input) ? .emit(input) : .finish
    }
  }
}

extension Publisher {
  /// Republishes elements while an error-throwing predicate closure indicates publishing should
  /// continue.
  ///
  /// At the first element for which the predicate returns false, the publisher cancels
  /// upstream and finishes; if the predicate throws, it cancels upstream and fails with the
  /// error.
  ///
  /// ```swift
  /// struct Negative: Error {}
  /// let cancellable = [0, 1, -1, 2].publisher
  ///     .tryPrefix(while: { value in
  ///         if value < 0 { throw Negative() }
  ///         return value < 10
  ///     })
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 0, 1, failure
  /// ```
  ///
  /// - Parameter predicate: A closure that takes an element and returns whether to republish it
  ///   and continue, or throws to fail the stream.
  public func tryPrefix(while predicate: @escaping (Output) throws -> Bool) -> Publishers.TryPrefixWhile<Self> {
    Publishers.TryPrefixWhile(upstream: self, predicate: predicate)
  }
}

extension Publishers {
  /// A publisher that republishes elements while a predicate closure indicates publishing
  /// should continue.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 5, 1].publisher
  ///     .prefix(while: { $0 < 3 })
  ///     .sink { print($0) }   // 1, 2
  /// ```
  public struct PrefixWhile<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The closure that determines whether publishing should continue.
    public let predicate: (Upstream.Output) -> Bool

    /// Creates a publisher that republishes elements of `upstream` while `predicate` returns
    /// true.
    public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
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

extension Publishers.PrefixWhile {
  typealias Inner<Downstream: Subscriber> = FallibleInner<FallibleTypes<Step, Downstream>>
  where Downstream.Input == Step.Emitted, Downstream.Failure == Step.Failure
}

extension Publishers.PrefixWhile {
  /// Republishes values while the predicate holds; at the first it rejects the stream finishes.
  struct Step: FallibleStep {
    typealias UpstreamFailure = Upstream.Failure
    typealias Failure = Upstream.Failure

    let predicate: (Upstream.Output) -> Bool

    init(predicate: @escaping (Upstream.Output) -> Bool) { self.predicate = predicate }

    static var name: String { "PrefixWhile" }

    static var kind: CombineSubscriptionKind { .filtering }

    static func mirrorChildren(of step: Self?, _ inner: FallibleReflection) -> [Mirror.Child] {
      [("downstream", inner.downstream)]
    }

    static func failure(_ failure: Upstream.Failure) -> Upstream.Failure { failure }

    func step(_ input: Upstream.Output) throws(Upstream.Failure) -> FallibleStepResult<Upstream.Output> {
      predicate(input) ? .emit(input) : .finish
    }
  }
}

extension Publisher {
  /// Republishes elements while a predicate closure indicates publishing should continue.
  ///
  /// At the first element for which the predicate returns false, the publisher cancels
  /// upstream and finishes; that element is not republished.
  ///
  /// ```swift
  /// let cancellable = [0, 1, 2, 3, 40, 4].publisher
  ///     .prefix(while: { $0 < 10 })
  ///     .sink { print($0) }   // 0, 1, 2, 3
  /// ```
  ///
  /// - Parameter predicate: A closure that takes an element and returns whether to republish it
  ///   and continue.
  public func prefix(while predicate: @escaping (Output) -> Bool) -> Publishers.PrefixWhile<Self> {
    Publishers.PrefixWhile(upstream: self, predicate: predicate)
  }
}

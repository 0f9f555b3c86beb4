extension Publishers {
  /// A publisher that omits elements from an upstream publisher until a given closure returns
  /// false.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 5, 1].publisher
  ///     .drop(while: { $0 < 3 })
  ///     .sink { print($0) }   // 5, 1
  /// ```
  public struct DropWhile<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The closure that indicates whether to drop the element.
    public let predicate: (Upstream.Output) -> Bool

    /// Creates a publisher that omits elements from `upstream` until `predicate` returns false.
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

extension Publishers.DropWhile {
  typealias Inner<Downstream: Subscriber> = FallibleInner<FallibleTypes<Step, Downstream>>
  where Downstream.Input == Step.Emitted, Downstream.Failure == Step.Failure
}

extension Publishers.DropWhile {
  /// Swallows values while the predicate holds, asking upstream for one more in place of each;
  /// once a value passes, the predicate is released and is never asked again.
  struct Step: FallibleStep {
    typealias UpstreamFailure = Upstream.Failure
    typealias Failure = Upstream.Failure

    // `nil` once a value has passed.
    var predicate: ((Upstream.Output) -> Bool)?

    init(predicate: @escaping (Upstream.Output) -> Bool) { self.predicate = predicate }

    static var name: String { "DropWhile" }

    static var kind: CombineSubscriptionKind { .dropping }

    static func mirrorChildren(of step: Self?, _ inner: FallibleReflection) -> [Mirror.Child] { [] }

    static func failure(_ failure: Upstream.Failure) -> Upstream.Failure { failure }

    mutating func step(_ input: Upstream.Output) throws(Upstream.Failure) -> FallibleStepResult<Upstream.Output> {
      if let predicate {
        if predicate(input) { return .drop }
        self.predicate = nil
      }
      return .emit(input)
    }
  }
}

extension Publisher {
  /// Omits elements from the upstream publisher until a given closure returns false, then
  /// republishes all remaining elements.
  ///
  /// Each dropped element is replaced by a request for one more from upstream, so the
  /// subscriber's demand is spent only on elements it receives.
  ///
  /// ```swift
  /// let cancellable = [-2, -1, 0, 3, -4].publisher
  ///     .drop(while: { $0 < 0 })
  ///     .sink { print($0) }   // 0, 3, -4
  /// ```
  ///
  /// - Parameter predicate: A closure that takes an element and returns whether to drop it.
  public func drop(while predicate: @escaping (Output) -> Bool) -> Publishers.DropWhile<Self> {
    Publishers.DropWhile(upstream: self, predicate: predicate)
  }
}

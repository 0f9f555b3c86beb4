extension Publishers {
  /// A publisher that omits elements from an upstream publisher until a given error-throwing
  /// closure returns false.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 5, 1].publisher
  ///     .tryDrop(while: { $0 < 3 })
  ///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })   // 5, 1
  /// ```
  public struct TryDropWhile<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The error-throwing closure that indicates whether to drop the element.
    public let predicate: (Upstream.Output) throws -> Bool

    /// Creates a publisher that omits elements from `upstream` until `predicate` returns false
    /// or throws.
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

extension Publishers.TryDropWhile {
  typealias Inner<Downstream: Subscriber> = FallibleInner<FallibleTypes<Step, Downstream>>
  where Downstream.Input == Step.Emitted, Downstream.Failure == Step.Failure
}

extension Publishers.TryDropWhile {
  /// Swallows values while the predicate holds, asking upstream for one more in place of each;
  /// once a value passes, the predicate is released and is never asked again.
  struct Step: FallibleStep {
    typealias UpstreamFailure = Upstream.Failure
    typealias Failure = any Error

    // `nil` once a value has passed.
    var predicate: ((Upstream.Output) throws -> Bool)?

    init(predicate: @escaping (Upstream.Output) throws -> Bool) { self.predicate = predicate }

    static var name: String { "TryDropWhile" }

    static var kind: CombineSubscriptionKind { .dropping }

    static func mirrorChildren(of step: Self?, _ inner: FallibleReflection) -> [Mirror.Child] { [] }

    mutating func step(_ input: Upstream.Output) throws -> FallibleStepResult<Upstream.Output> {
      if let predicate {
        if try predicate(input) { return .drop }
        self.predicate = nil
      }
      return .emit(input)
    }
  }
}

extension Publisher {
  /// Omits elements from the upstream publisher until an error-throwing closure returns false,
  /// then republishes all remaining elements.
  ///
  /// If the closure throws, the publisher cancels upstream and fails with the error. Each
  /// dropped element is replaced by a request for one more from upstream.
  ///
  /// ```swift
  /// struct Negative: Error {}
  /// let cancellable = [1, 2, 3, -1, 4].publisher
  ///     .tryDrop(while: { value in
  ///         if value < 0 { throw Negative() }
  ///         return value < 3
  ///     })
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 3, -1, 4, finished
  /// ```
  ///
  /// - Parameter predicate: A closure that takes an element and returns whether to drop it, or
  ///   throws to fail the stream.
  public func tryDrop(while predicate: @escaping (Output) throws -> Bool) -> Publishers.TryDropWhile<Self> {
    Publishers.TryDropWhile(upstream: self, predicate: predicate)
  }
}

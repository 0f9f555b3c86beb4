extension Publishers {
  /// A publisher that publishes only elements that don't match the previous element, as
  /// evaluated by a provided error-throwing closure.
  ///
  /// A thrown error cancels the upstream publisher and fails the stream with that error.
  ///
  /// ```swift
  /// let cancellable = [1, 1, 2].publisher
  ///     .tryRemoveDuplicates { try areSame($0, $1) }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  public struct TryRemoveDuplicates<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// An error-throwing closure to evaluate whether two elements are equivalent, for purposes
    /// of filtering.
    public let predicate: (Output, Output) throws -> Bool

    /// Creates a publisher that publishes only elements that don't match the previous element,
    /// as evaluated by a provided error-throwing closure.
    public init(upstream: Upstream, predicate: @escaping (Output, Output) throws -> Bool) {
      self.upstream = upstream
      self.predicate = predicate
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
      upstream.subscribe(Inner(downstream: subscriber, step: Step(predicate: predicate)))
    }
  }
}

extension Publishers.TryRemoveDuplicates {
  typealias Inner<Downstream: Subscriber> = FallibleInner<FallibleTypes<Step, Downstream>>
  where Downstream.Input == Step.Emitted, Downstream.Failure == Step.Failure
}

extension Publishers.TryRemoveDuplicates {
  /// Remembers the previous element and drops a value the closure finds equal to it, asking
  /// upstream for one more in its place.
  struct Step: FallibleStep {
    typealias UpstreamFailure = Upstream.Failure
    typealias Failure = any Error

    // The element received last.
    var previous: Upstream.Output?
    let predicate: (Upstream.Output, Upstream.Output) throws -> Bool

    init(predicate: @escaping (Upstream.Output, Upstream.Output) throws -> Bool) { self.predicate = predicate }

    static var name: String { "TryRemoveDuplicates" }

    static var kind: CombineSubscriptionKind { .filtering }

    static func mirrorChildren(of step: Self?, _ inner: FallibleReflection) -> [Mirror.Child] {
      [("downstream", inner.downstream), ("last", step?.previous as Any)]
    }

    mutating func step(_ input: Upstream.Output) throws -> FallibleStepResult<Upstream.Output> {
      let last = previous
      previous = input
      if let last, try predicate(last, input) { return .drop }
      return .emit(input)
    }
  }
}

extension Publisher {
  /// Publishes only elements that don't match the previous element, as evaluated by a provided
  /// error-throwing closure.
  ///
  /// If the closure throws, the publisher cancels its upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = ["a", "A", "b"].publisher
  ///     .tryRemoveDuplicates { try sameIgnoringCase($0, $1) }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // a, b, finished
  /// ```
  public func tryRemoveDuplicates(
    by predicate: @escaping (Output, Output) throws -> Bool
  ) -> Publishers.TryRemoveDuplicates<Self> {
    Publishers.TryRemoveDuplicates(upstream: self, predicate: predicate)
  }
}

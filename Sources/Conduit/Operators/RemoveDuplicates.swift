extension Publishers {
  /// A publisher that publishes only elements that don't match the previous element.
  ///
  /// ```swift
  /// let cancellable = [1, 1, 2, 2, 2, 3, 1].publisher.eraseToAnyPublisher()
  ///     .removeDuplicates()
  ///     .sink { print($0) }   // 1, 2, 3, 1
  /// ```
  public struct RemoveDuplicates<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// A closure to evaluate whether two elements are equivalent, for purposes of filtering.
    public let predicate: (Output, Output) -> Bool

    /// Creates a publisher that publishes only elements that don't match the previous element,
    /// as evaluated by a provided closure.
    @inlinable
    public init(upstream: Upstream, predicate: @escaping (Output, Output) -> Bool) {
      self.upstream = upstream
      self.predicate = predicate
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, step: RemoveDuplicatesStep(predicate: predicate)))
    }
  }
}

extension Publishers.RemoveDuplicates {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = PassingStepInner<RemoveDuplicatesStep<Output, Failure>, Downstream>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
}

/// The step of `removeDuplicates`, as Combine's subscription does it: it remembers the previous
/// element, and a duplicate is replaced by asking upstream for one more, so the total demand is
/// kept. Not nested in the publisher, so that its type does not contain the upstream's (see
/// `PassingStepInner`).
@usableFromInline
struct RemoveDuplicatesStep<Value, Failure: Error>: FallibleStep {
  @usableFromInline
  typealias Input = Value
  @usableFromInline
  typealias Emitted = Value
  @usableFromInline
  typealias UpstreamFailure = Failure

  // The element received last.
  @usableFromInline
  var previous: Value?
  @usableFromInline
  let predicate: (Value, Value) -> Bool

  @inlinable
  init(predicate: @escaping (Value, Value) -> Bool) { self.predicate = predicate }

  @usableFromInline
  static var name: String { "RemoveDuplicates" }

  @inlinable
  static var kind: CombineSubscriptionKind { .filtering }

  @usableFromInline
  static func mirrorChildren(of step: Self?, _ inner: FallibleReflection) -> [Mirror.Child] {
    [("downstream", inner.downstream), ("last", step?.previous as Any)]
  }

  @inlinable
  mutating func step(_ input: Value) throws(Failure) -> FallibleStepResult<Value> {
    let last = previous
    previous = input
    if let last, predicate(last, input) { return .drop }
    return .emit(input)
  }

  @usableFromInline
  static func failure(_ failure: Failure) -> Failure { failure }
}

extension Publisher where Output: Equatable {
  /// Publishes only elements that don't match the previous element.
  ///
  /// ```swift
  /// let cancellable = [0, 1, 2, 2, 3, 3, 3, 4, 0].publisher.eraseToAnyPublisher()
  ///     .removeDuplicates()
  ///     .sink { print($0) }   // 0, 1, 2, 3, 4, 0
  /// ```
  @inlinable
  public func removeDuplicates() -> Publishers.RemoveDuplicates<Self> {
    Publishers.RemoveDuplicates(upstream: self, predicate: ==)
  }
}

extension Publisher {
  /// Publishes only elements that don't match the previous element, as evaluated by a provided
  /// closure.
  ///
  /// The closure receives the element received before and the current one, and returns `true`
  /// when the current one is a duplicate to drop.
  ///
  /// ```swift
  /// let cancellable = [1.0, 1.05, 2.0].publisher.eraseToAnyPublisher()
  ///     .removeDuplicates { abs($0 - $1) < 0.1 }
  ///     .sink { print($0) }   // 1.0, 2.0
  /// ```
  @inlinable
  public func removeDuplicates(
    by predicate: @escaping (Output, Output) -> Bool
  ) -> Publishers.RemoveDuplicates<Self> {
    Publishers.RemoveDuplicates(upstream: self, predicate: predicate)
  }
}

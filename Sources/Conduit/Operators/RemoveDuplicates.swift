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
      upstream.subscribe(Inner(downstream: subscriber, predicate: predicate))
    }
  }
}

extension Publishers.RemoveDuplicates {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = RemoveDuplicatesInner<Downstream>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
}

/// Forwards the upstream subscription untouched and remembers the previous element; a
/// duplicate is replaced by asking upstream for one more, so the total demand is kept.
///
/// Generic over its downstream alone, as an operator that passes on the values and errors it
/// receives can be: one level of nesting per use rather than two (see `OperatorLink`).
@usableFromInline
final class RemoveDuplicatesInner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CensusScoped {
  @usableFromInline
  typealias Input = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  let downstream: Downstream
  // The element received last. Touched only from upstream's calls, which never overlap
  // (contract 3).
  @usableFromInline @exclusivity(unchecked)
  var previous: Input?
  @usableFromInline
  let predicate: (Input, Input) -> Bool
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(downstream: Downstream, predicate: @escaping (Input, Input) -> Bool) {
    census = CensusToken(RemoveDuplicatesInner.self, inheritingFrom: downstream)
    self.downstream = downstream
    self.predicate = predicate
  }

  @usableFromInline
  var description: String { "RemoveDuplicates" }

  @inlinable
  func receive(subscription: any Subscription) {
    downstream.receive(subscription: subscription)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    let last = previous
    previous = input
    if let last, predicate(last, input) { return .max(1) }
    return downstream.receive(input)
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>) {
    previous = nil
    downstream.receive(completion: completion)
  }
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

extension Publishers {
  /// A publisher that republishes all elements that match a provided closure.
  ///
  /// ```swift
  /// let cancellable = (1...6).publisher
  ///     .filter { $0.isMultiple(of: 2) }
  ///     .sink { print($0) }   // 2, 4, 6
  /// ```
  public struct Filter<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// A closure that indicates whether to republish an element.
    public let isIncluded: (Upstream.Output) -> Bool

    /// Creates a publisher that republishes all elements that match a provided closure.
    @inlinable
    public init(upstream: Upstream, isIncluded: @escaping (Upstream.Output) -> Bool) {
      self.upstream = upstream
      self.isIncluded = isIncluded
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, isIncluded: isIncluded))
    }
  }
}

extension Publishers.Filter {
  /// Fuses a second `filter` into this one: one `Publishers.Filter` that republishes elements
  /// matching both closures.
  ///
  /// ```swift
  /// let fused: Publishers.Filter<PassthroughSubject<Int, Never>> =
  ///     subject.filter { $0 > 0 }.filter { $0.isMultiple(of: 2) }
  /// ```
  @inlinable
  public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.Filter<Upstream> {
    let first = self.isIncluded
    return Publishers.Filter(upstream: upstream) { first($0) && isIncluded($0) }
  }

  /// Fuses a `tryFilter` into this `filter`: one `Publishers.TryFilter` that republishes
  /// elements matching both closures.
  ///
  /// ```swift
  /// let fused: Publishers.TryFilter<PassthroughSubject<Int, Never>> =
  ///     subject.filter { $0 > 0 }.tryFilter { try isAllowed($0) }
  /// ```
  @inlinable
  public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Upstream> {
    let first = self.isIncluded
    return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
  }
}

extension Publishers.Filter {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = FilterInner<Downstream>
  where Downstream.Input == Output, Downstream.Failure == Failure
}

/// Forwards the upstream subscription untouched; a value filtered out is replaced by asking
/// upstream for one more, so the total demand is kept. No state, no lock, no allocation.
/// Generic over its downstream alone, as an operator that passes on the values and errors it
/// receives can be: one level of nesting per use rather than two (see `OperatorLink`).
@usableFromInline
struct FilterInner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
{
  @usableFromInline
  typealias Input = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  let downstream: Downstream
  @usableFromInline
  let isIncluded: (Input) -> Bool
  @usableFromInline
  let combineIdentifier = CombineIdentifier()

  @inlinable
  init(downstream: Downstream, isIncluded: @escaping (Input) -> Bool) {
    self.downstream = downstream
    self.isIncluded = isIncluded
  }

  @usableFromInline
  var description: String { "Filter" }
  @usableFromInline
  var playgroundDescription: Any { description }
  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: [:]) }

  @usableFromInline
  func receive(subscription: any Subscription) {
    downstream.receive(subscription: subscription)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    isIncluded(input) ? downstream.receive(input) : .max(1)
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    downstream.receive(completion: completion)
  }
}

extension Publisher {
  /// Republishes all elements that match a provided closure.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3, 4, 5].publisher
  ///     .filter { $0 % 2 == 0 }
  ///     .sink { print($0) }   // 2, 4
  /// ```
  @inlinable
  public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.Filter<Self> {
    Publishers.Filter(upstream: self, isIncluded: isIncluded)
  }
}

extension FilterInner: CensusTransparent {
  /// What is created on this subscriber's behalf joins the census scope of its downstream.
  @usableFromInline
  var censusWrapped: Any? { downstream }
}

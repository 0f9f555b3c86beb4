extension Publishers {
  /// A publisher that republishes all non-`nil` results of calling a closure with each received
  /// element.
  ///
  /// ```swift
  /// let cancellable = ["1", "x", "3"].publisher
  ///     .compactMap { Int($0) }
  ///     .sink { print($0) }   // 1, 3
  /// ```
  public struct CompactMap<Upstream: Publisher, Output>: Publisher {
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// A closure that receives values from the upstream publisher and returns optional values.
    public let transform: (Upstream.Output) -> Output?

    /// Creates a publisher that republishes all non-`nil` results of calling a closure with each
    /// received element.
    @inlinable
    public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output?) {
      self.upstream = upstream
      self.transform = transform
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, transform: transform))
    }
  }
}

extension Publishers.CompactMap {
  /// Fuses a second `compactMap` into this one: one `Publishers.CompactMap` applying both
  /// closures.
  ///
  /// ```swift
  /// let fused: Publishers.CompactMap<PassthroughSubject<String, Never>, Int> =
  ///     subject.compactMap { Int($0) }.compactMap { $0 > 0 ? $0 : nil }
  /// ```
  @inlinable
  public func compactMap<Result>(
    _ transform: @escaping (Output) -> Result?
  ) -> Publishers.CompactMap<Upstream, Result> {
    let first = self.transform
    return Publishers.CompactMap(upstream: upstream) { first($0).flatMap(transform) }
  }

  /// Fuses a `map` into this `compactMap`: one `Publishers.CompactMap` applying both closures.
  ///
  /// ```swift
  /// let fused: Publishers.CompactMap<PassthroughSubject<String, Never>, Int> =
  ///     subject.compactMap { Int($0) }.map { $0 * 2 }
  /// ```
  @inlinable
  public func map<Result>(_ transform: @escaping (Output) -> Result) -> Publishers.CompactMap<Upstream, Result> {
    let first = self.transform
    return Publishers.CompactMap(upstream: upstream) { first($0).map(transform) }
  }
}

extension Publishers.CompactMap {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = CompactMapInner<Link<Upstream.Output, Upstream.Failure, Downstream>>
  where Downstream.Input == Output, Downstream.Failure == Upstream.Failure
}

/// Forwards the upstream subscription untouched; a value the closure drops is replaced by
/// asking upstream for one more, so the total demand is kept. No state, no lock, no
/// allocation.
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`).
@usableFromInline
struct CompactMapInner<Types: OperatorLink>: Subscriber, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
where Types.Downstream.Failure == Types.Failure {
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Types.Failure
  @usableFromInline
  typealias Downstream = Types.Downstream

  @usableFromInline
  let downstream: Downstream
  @usableFromInline
  let transform: (Input) -> Downstream.Input?
  @usableFromInline
  let combineIdentifier = CombineIdentifier()

  @inlinable
  init(downstream: Downstream, transform: @escaping (Input) -> Downstream.Input?) {
    self.downstream = downstream
    self.transform = transform
  }

  @usableFromInline
  var description: String { "CompactMap" }
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
    guard let output = transform(input) else { return .max(1) }
    return downstream.receive(output)
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    downstream.receive(completion: completion)
  }
}

extension Publisher {
  /// Calls a closure with each received element and publishes any returned optional that has a
  /// value.
  ///
  /// ```swift
  /// let romanNumerals = [1: "I", 2: "II", 5: "V"]
  /// let cancellable = (1...5).publisher
  ///     .compactMap { romanNumerals[$0] }
  ///     .sink { print($0) }   // I, II, V
  /// ```
  @inlinable
  public func compactMap<T>(_ transform: @escaping (Output) -> T?) -> Publishers.CompactMap<Self, T> {
    Publishers.CompactMap(upstream: self, transform: transform)
  }
}

extension CompactMapInner: CensusTransparent {
  /// What is created on this subscriber's behalf joins the census scope of its downstream.
  @usableFromInline
  var censusWrapped: Any? { downstream }
}

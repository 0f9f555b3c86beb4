extension Publishers {
  /// A publisher that transforms all elements from the upstream publisher with a provided
  /// closure.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher
  ///     .map { $0 * 10 }
  ///     .sink { print($0) }   // 10, 20, 30
  /// ```
  public struct Map<Upstream: Publisher, Output>: Publisher {
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The closure that transforms elements from the upstream publisher.
    public let transform: (Upstream.Output) -> Output

    /// Creates a publisher that transforms all elements from the upstream publisher with a
    /// provided closure.
    @inlinable
    public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output) {
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

extension Publishers.Map {
  /// Fuses a second `map` into this one: `map(f).map(g)` is one `Publishers.Map` applying `g ∘ f`.
  ///
  /// ```swift
  /// let fused: Publishers.Map<PassthroughSubject<Int, Never>, String> =
  ///     subject.map { $0 * 2 }.map { "\($0)" }
  /// ```
  @inlinable
  public func map<Result>(_ transform: @escaping (Output) -> Result) -> Publishers.Map<Upstream, Result> {
    let first = self.transform
    return Publishers.Map(upstream: upstream) { transform(first($0)) }
  }
}

extension Publishers.Map {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = MapInner<Link<Upstream.Output, Failure, Downstream>>
  where Downstream.Input == Output, Downstream.Failure == Failure
}

/// Forwards the upstream subscription untouched and transforms each value: `map` keeps no
/// state, takes no lock, and allocates nothing of its own. Being a struct, it lives inside the
/// upstream's subscription.
@usableFromInline
struct MapInner<Types: OperatorLink>: Subscriber, CustomStringConvertible, CustomReflectable,
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
  let transform: (Input) -> Downstream.Input
  @usableFromInline
  let combineIdentifier = CombineIdentifier()

  @inlinable
  init(downstream: Downstream, transform: @escaping (Input) -> Downstream.Input) {
    self.downstream = downstream
    self.transform = transform
  }

  @usableFromInline
  var description: String { "Map" }
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
    downstream.receive(transform(input))
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    downstream.receive(completion: completion)
  }
}

extension Publisher {
  /// Transforms all elements from the upstream publisher with a provided closure.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher
  ///     .map { $0 * $0 }
  ///     .sink { print($0) }   // 1, 4, 9
  /// ```
  @inlinable
  public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Self, T> {
    Publishers.Map(upstream: self, transform: transform)
  }
}

extension Publisher {
  /// Replaces `nil` elements in the stream with the provided element.
  ///
  /// As in Combine, this is a `map` (`Publishers.Map`) that unwraps each optional element.
  ///
  /// ```swift
  /// let cancellable = [1, nil, 3].publisher.eraseToAnyPublisher()
  ///     .replaceNil(with: 0)
  ///     .sink { print($0) }   // 1, 0, 3
  /// ```
  @inlinable
  public func replaceNil<T>(with output: T) -> Publishers.Map<Self, T> where Output == T? {
    Publishers.Map(upstream: self) { $0 ?? output }
  }
}

extension MapInner: CensusTransparent {
  /// What is created on this subscriber's behalf joins the census scope of its downstream.
  @usableFromInline
  var censusWrapped: Any? { downstream }
}

extension Publishers {
  /// A publisher that publishes the value of a key path.
  ///
  /// ```swift
  /// let cancellable = ["a", "bcd"].publisher
  ///     .map(\.count)
  ///     .sink { print($0) }   // 1, 3
  /// ```
  public struct MapKeyPath<Upstream: Publisher, Output>: Publisher {
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The key path of a property to publish.
    public let keyPath: KeyPath<Upstream.Output, Output>

    init(upstream: Upstream, keyPath: KeyPath<Upstream.Output, Output>) {
      self.upstream = upstream
      self.keyPath = keyPath
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, keyPath: keyPath))
    }
  }
}

extension Publishers.MapKeyPath {
  typealias Inner<Downstream: Subscriber> = MapKeyPathInner<Link<Upstream.Output, Upstream.Failure, Downstream>>
  where Downstream.Input == Output, Downstream.Failure == Upstream.Failure
}

/// Forwards the upstream subscription untouched and reads the key path of each value; no
/// state, no lock, no allocation.
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`).
struct MapKeyPathInner<Types: OperatorLink>: Subscriber, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
where Types.Downstream.Failure == Types.Failure {
  typealias Input = Types.Input
  typealias Failure = Types.Failure
  typealias Downstream = Types.Downstream

  let downstream: Downstream
  let keyPath: KeyPath<Input, Downstream.Input>
  let combineIdentifier = CombineIdentifier()

  init(downstream: Downstream, keyPath: KeyPath<Input, Downstream.Input>) {
    self.downstream = downstream
    self.keyPath = keyPath
  }

  var description: String { "ValueForKey" }
  var playgroundDescription: Any { description }
  var customMirror: Mirror { Mirror(self, children: ["keyPath": keyPath]) }

  func receive(subscription: any Subscription) {
    downstream.receive(subscription: subscription)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    downstream.receive(input[keyPath: keyPath])
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    downstream.receive(completion: completion)
  }
}

extension Publisher {
  /// Publishes the value of a key path.
  ///
  /// ```swift
  /// struct Point { var x: Int; var y: Int }
  /// let cancellable = [Point(x: 1, y: 2)].publisher.eraseToAnyPublisher()
  ///     .map(\.x)
  ///     .sink { print($0) }   // 1
  /// ```
  public func map<T>(_ keyPath: KeyPath<Output, T>) -> Publishers.MapKeyPath<Self, T> {
    Publishers.MapKeyPath(upstream: self, keyPath: keyPath)
  }
}

extension MapKeyPathInner: CensusTransparent {
  /// What is created on this subscriber's behalf joins the census scope of its downstream.
  @usableFromInline
  var censusWrapped: Any? { downstream }
}

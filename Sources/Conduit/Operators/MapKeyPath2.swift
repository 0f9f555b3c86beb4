extension Publishers {
  /// A publisher that publishes the values of two key paths as a tuple.
  ///
  /// ```swift
  /// struct Point { var x: Int; var y: Int }
  /// let cancellable = [Point(x: 1, y: 2)].publisher
  ///     .map(\.x, \.y)
  ///     .sink { print($0) }   // (1, 2)
  /// ```
  public struct MapKeyPath2<Upstream: Publisher, Output0, Output1>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = (Output0, Output1)
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The key path of a property to publish.
    public let keyPath0: KeyPath<Upstream.Output, Output0>

    /// The key path of a second property to publish.
    public let keyPath1: KeyPath<Upstream.Output, Output1>

    init(
      upstream: Upstream, keyPath0: KeyPath<Upstream.Output, Output0>, keyPath1: KeyPath<Upstream.Output, Output1>
    ) {
      self.upstream = upstream
      self.keyPath0 = keyPath0
      self.keyPath1 = keyPath1
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, keyPath0: keyPath0, keyPath1: keyPath1))
    }
  }
}

extension Publishers.MapKeyPath2 {
  typealias Inner<Downstream: Subscriber> =
    MapKeyPath2Inner<MapKeyPath2Types<Upstream.Output, Upstream.Failure, Output0, Output1, Downstream>>
  where Downstream.Input == Output, Downstream.Failure == Upstream.Failure
}

/// The types the subscriber of `map(_:_:)` works with: an `OperatorLink` that also names the
/// types of the two key paths' values.
protocol MapKeyPath2Link: OperatorLink {
  /// The type of the first key path's value.
  associatedtype Output0
  /// The type of the second key path's value.
  associatedtype Output1
}

/// The `MapKeyPath2Link` of a subscriber that reads two key paths of `Input` and sends on to
/// `Downstream`. Never instantiated.
enum MapKeyPath2Types<Input, Failure: Error, Output0, Output1, Downstream: Subscriber>: MapKeyPath2Link {}

/// Forwards the upstream subscription untouched and reads both key paths of each value; no
/// state, no lock, no allocation.
///
/// Generic over one `MapKeyPath2Link`, so that a pipeline repeating the operator stays
/// specialized (see `OperatorLink`).
struct MapKeyPath2Inner<Types: MapKeyPath2Link>: Subscriber, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
where Types.Downstream.Input == (Types.Output0, Types.Output1), Types.Downstream.Failure == Types.Failure {
  typealias Input = Types.Input
  typealias Failure = Types.Failure
  typealias Downstream = Types.Downstream

  let downstream: Downstream
  let keyPath0: KeyPath<Input, Types.Output0>
  let keyPath1: KeyPath<Input, Types.Output1>
  let combineIdentifier = CombineIdentifier()

  init(
    downstream: Downstream, keyPath0: KeyPath<Input, Types.Output0>, keyPath1: KeyPath<Input, Types.Output1>
  ) {
    self.downstream = downstream
    self.keyPath0 = keyPath0
    self.keyPath1 = keyPath1
  }

  var description: String { "ValueForKeys" }
  var playgroundDescription: Any { description }
  var customMirror: Mirror { Mirror(self, children: ["keyPath0": keyPath0, "keyPath1": keyPath1]) }

  func receive(subscription: any Subscription) {
    downstream.receive(subscription: subscription)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    downstream.receive((input[keyPath: keyPath0], input[keyPath: keyPath1]))
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    downstream.receive(completion: completion)
  }
}

extension Publisher {
  /// Publishes the values of two key paths as a tuple.
  ///
  /// ```swift
  /// struct Point { var x: Int; var y: Int }
  /// let cancellable = [Point(x: 1, y: 2)].publisher
  ///     .map(\.x, \.y)
  ///     .sink { print($0.0 + $0.1) }   // 3
  /// ```
  public func map<T0, T1>(
    _ keyPath0: KeyPath<Output, T0>, _ keyPath1: KeyPath<Output, T1>
  ) -> Publishers.MapKeyPath2<Self, T0, T1> {
    Publishers.MapKeyPath2(upstream: self, keyPath0: keyPath0, keyPath1: keyPath1)
  }
}

extension MapKeyPath2Inner: CensusTransparent {
  /// What is created on this subscriber's behalf joins the census scope of its downstream.
  @usableFromInline
  var censusWrapped: Any? { downstream }
}

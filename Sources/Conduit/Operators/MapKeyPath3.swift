extension Publishers {
  /// A publisher that publishes the values of three key paths as a tuple.
  ///
  /// ```swift
  /// struct Point { var x: Int; var y: Int; var z: Int }
  /// let cancellable = [Point(x: 1, y: 2, z: 3)].publisher
  ///     .map(\.x, \.y, \.z)
  ///     .sink { print($0) }   // (1, 2, 3)
  /// ```
  public struct MapKeyPath3<Upstream: Publisher, Output0, Output1, Output2>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = (Output0, Output1, Output2)
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The key path of a property to publish.
    public let keyPath0: KeyPath<Upstream.Output, Output0>

    /// The key path of a second property to publish.
    public let keyPath1: KeyPath<Upstream.Output, Output1>

    /// The key path of a third property to publish.
    public let keyPath2: KeyPath<Upstream.Output, Output2>

    init(
      upstream: Upstream, keyPath0: KeyPath<Upstream.Output, Output0>, keyPath1: KeyPath<Upstream.Output, Output1>,
      keyPath2: KeyPath<Upstream.Output, Output2>
    ) {
      self.upstream = upstream
      self.keyPath0 = keyPath0
      self.keyPath1 = keyPath1
      self.keyPath2 = keyPath2
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, keyPath0: keyPath0, keyPath1: keyPath1, keyPath2: keyPath2))
    }
  }
}

extension Publishers.MapKeyPath3 {
  typealias Inner<Downstream: Subscriber> =
    MapKeyPath3Inner<MapKeyPath3Types<Upstream.Output, Upstream.Failure, Output0, Output1, Output2, Downstream>>
  where Downstream.Input == Output, Downstream.Failure == Upstream.Failure
}

/// The types the subscriber of `map(_:_:_:)` works with: an `OperatorLink` that also names the
/// types of the three key paths' values.
protocol MapKeyPath3Link: OperatorLink {
  /// The type of the first key path's value.
  associatedtype Output0
  /// The type of the second key path's value.
  associatedtype Output1
  /// The type of the third key path's value.
  associatedtype Output2
}

/// The `MapKeyPath3Link` of a subscriber that reads three key paths of `Input` and sends on to
/// `Downstream`. Never instantiated.
enum MapKeyPath3Types<Input, Failure: Error, Output0, Output1, Output2, Downstream: Subscriber>: MapKeyPath3Link {}

/// Forwards the upstream subscription untouched and reads the three key paths of each value;
/// no state, no lock, no allocation.
///
/// Generic over one `MapKeyPath3Link`, so that a pipeline repeating the operator stays
/// specialized (see `OperatorLink`).
struct MapKeyPath3Inner<Types: MapKeyPath3Link>: Subscriber, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
where
  Types.Downstream.Input == (Types.Output0, Types.Output1, Types.Output2),
  Types.Downstream.Failure == Types.Failure
{
  typealias Input = Types.Input
  typealias Failure = Types.Failure
  typealias Downstream = Types.Downstream

  let downstream: Downstream
  let keyPath0: KeyPath<Input, Types.Output0>
  let keyPath1: KeyPath<Input, Types.Output1>
  let keyPath2: KeyPath<Input, Types.Output2>
  let combineIdentifier = CombineIdentifier()

  init(
    downstream: Downstream, keyPath0: KeyPath<Input, Types.Output0>, keyPath1: KeyPath<Input, Types.Output1>,
    keyPath2: KeyPath<Input, Types.Output2>
  ) {
    self.downstream = downstream
    self.keyPath0 = keyPath0
    self.keyPath1 = keyPath1
    self.keyPath2 = keyPath2
  }

  var description: String { "ValueForKeys" }
  var playgroundDescription: Any { description }
  var customMirror: Mirror {
    Mirror(self, children: ["keyPath0": keyPath0, "keyPath1": keyPath1, "keyPath2": keyPath2])
  }

  func receive(subscription: any Subscription) {
    downstream.receive(subscription: subscription)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    downstream.receive((input[keyPath: keyPath0], input[keyPath: keyPath1], input[keyPath: keyPath2]))
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    downstream.receive(completion: completion)
  }
}

extension Publisher {
  /// Publishes the values of three key paths as a tuple.
  ///
  /// ```swift
  /// struct Point { var x: Int; var y: Int; var z: Int }
  /// let cancellable = [Point(x: 1, y: 2, z: 3)].publisher
  ///     .map(\.x, \.y, \.z)
  ///     .sink { print($0.0 + $0.1 + $0.2) }   // 6
  /// ```
  public func map<T0, T1, T2>(
    _ keyPath0: KeyPath<Output, T0>, _ keyPath1: KeyPath<Output, T1>, _ keyPath2: KeyPath<Output, T2>
  ) -> Publishers.MapKeyPath3<Self, T0, T1, T2> {
    Publishers.MapKeyPath3(upstream: self, keyPath0: keyPath0, keyPath1: keyPath1, keyPath2: keyPath2)
  }
}

extension MapKeyPath3Inner: CensusTransparent {
  /// What is created on this subscriber's behalf joins the census scope of its downstream.
  @usableFromInline
  var censusWrapped: Any? { downstream }
}

extension Publishers {
  /// A publisher that omits elements from an upstream publisher until a given closure returns
  /// false.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 5, 1].publisher
  ///     .drop(while: { $0 < 3 })
  ///     .sink { print($0) }   // 5, 1
  /// ```
  public struct DropWhile<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The closure that indicates whether to drop the element.
    public let predicate: (Upstream.Output) -> Bool

    /// Creates a publisher that omits elements from `upstream` until `predicate` returns false.
    @inlinable
    public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
      self.upstream = upstream
      self.predicate = predicate
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, predicate: predicate))
    }
  }
}

extension Publishers.DropWhile {
  /// Forwards the upstream subscription to downstream and swallows values while the predicate
  /// holds, asking upstream for one more in place of each. Once a value passes, the predicate is
  /// released and is never asked again.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CensusScoped
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    @usableFromInline
    typealias Input = Upstream.Output
    @usableFromInline
    typealias Failure = Upstream.Failure

    @usableFromInline
    let downstream: Downstream
    // `nil` once a value has passed. Touched only from the upstream's serialized calls, so the
    // runtime check is skipped.
    @usableFromInline @exclusivity(unchecked)
    var predicate: ((Upstream.Output) -> Bool)?
    @usableFromInline
    let census: CensusToken

    @usableFromInline
    var description: String { "DropWhile" }
    @usableFromInline
    var censusScope: CensusScope? { census.scope }

    @inlinable
    init(downstream: Downstream, predicate: @escaping (Upstream.Output) -> Bool) {
      census = CensusToken(Inner.self, inheritingFrom: downstream)
      self.downstream = downstream
      self.predicate = predicate
    }

    @inlinable
    func receive(subscription: any Subscription) {
      downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
      if let predicate {
        if predicate(input) { return .max(1) }
        self.predicate = nil
      }
      return downstream.receive(input)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
      predicate = nil
      downstream.receive(completion: completion)
    }
  }
}

extension Publisher {
  /// Omits elements from the upstream publisher until a given closure returns false, then
  /// republishes all remaining elements.
  ///
  /// Each dropped element is replaced by a request for one more from upstream, so the
  /// subscriber's demand is spent only on elements it receives.
  ///
  /// ```swift
  /// let cancellable = [-2, -1, 0, 3, -4].publisher
  ///     .drop(while: { $0 < 0 })
  ///     .sink { print($0) }   // 0, 3, -4
  /// ```
  ///
  /// - Parameter predicate: A closure that takes an element and returns whether to drop it.
  @inlinable
  public func drop(while predicate: @escaping (Output) -> Bool) -> Publishers.DropWhile<Self> {
    Publishers.DropWhile(upstream: self, predicate: predicate)
  }
}

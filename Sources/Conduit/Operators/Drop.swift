extension Publishers {
  /// A publisher that omits a specified number of elements before republishing later elements.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3, 4].publisher
  ///     .dropFirst(2)
  ///     .sink { print($0) }   // 3, 4
  /// ```
  public struct Drop<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The number of elements to drop.
    public let count: Int

    /// Creates a publisher that omits the first `count` elements of `upstream`.
    ///
    /// - Precondition: `count` is not negative.
    @inlinable
    public init(upstream: Upstream, count: Int) {
      precondition(count >= 0, "dropFirst(\(count)): the number of elements to drop cannot be negative; pass 0 or more")
      self.upstream = upstream
      self.count = count
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, count: count))
    }
  }
}

extension Publishers.Drop: Equatable where Upstream: Equatable {}

extension Publishers.Drop: Sendable where Upstream: Sendable {}

extension Publishers.Drop {
  /// Forwards the upstream subscription to downstream and swallows the first values, asking
  /// upstream for one more in place of each so the subscriber's demand is met by later values.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CensusScoped
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    @usableFromInline
    typealias Input = Upstream.Output
    @usableFromInline
    typealias Failure = Upstream.Failure

    @usableFromInline
    let downstream: Downstream
    // Touched only from the upstream's serialized calls, so the runtime check is skipped.
    @usableFromInline @exclusivity(unchecked)
    var remaining: Int
    @usableFromInline
    let census: CensusToken

    @usableFromInline
    var description: String { "Drop" }
    @usableFromInline
    var censusScope: CensusScope? { census.scope }

    @inlinable
    init(downstream: Downstream, count: Int) {
      census = CensusToken(Inner.self, inheritingFrom: downstream)
      self.downstream = downstream
      remaining = count
    }

    @inlinable
    func receive(subscription: any Subscription) {
      downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
      if remaining > 0 {
        remaining -= 1
        return .max(1)
      }
      return downstream.receive(input)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
      downstream.receive(completion: completion)
    }
  }
}

extension Publisher {
  /// Omits the specified number of elements before republishing subsequent elements.
  ///
  /// ```swift
  /// let cancellable = (1...5).publisher
  ///     .dropFirst(3)
  ///     .sink { print($0) }   // 4, 5
  /// ```
  ///
  /// - Parameter count: The number of elements to omit; by default, 1.
  /// - Precondition: `count` is not negative.
  @inlinable
  public func dropFirst(_ count: Int = 1) -> Publishers.Drop<Self> {
    Publishers.Drop(upstream: self, count: count)
  }
}

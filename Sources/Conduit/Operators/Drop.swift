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
  /// Stands between the upstream and the subscriber, as Combine's `Drop` does: once the subscriber
  /// has its subscription, the upstream is asked in one request for what the subscriber asked
  /// meanwhile plus the elements to drop (so for those even when the subscriber asked for
  /// nothing); later requests go straight through, and a dropped element asks for nothing more.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: Subscriber, SubscriptionRequestHandler, Subscription,
    CustomStringConvertible, CensusScoped, @unchecked Sendable
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    @usableFromInline
    typealias Input = Upstream.Output
    @usableFromInline
    typealias Failure = Upstream.Failure

    @usableFromInline
    enum State {
      case awaitingSubscription
      /// The subscriber is in `receive(subscription:)`; what it asks for is added up.
      case handingDown(any Subscription, pending: Subscribers.Demand)
      case forwarding(any Subscription)
      case terminal
    }

    @usableFromInline
    let downstream: Downstream
    // Immutable.
    @usableFromInline
    let count: Int
    // Touched only from the upstream's serialized calls, so the runtime check is skipped.
    @usableFromInline @exclusivity(unchecked)
    var remaining: Int
    // Guarded by its own lock.
    @usableFromInline
    let state = Locked(State.awaitingSubscription)
    @usableFromInline
    let census: CensusToken
    // Specialized `request` and `cancel`; see `SubscriptionRequest`.
    @usableFromInline
    let handle: (Inner, SubscriptionRequest) -> Void

    @usableFromInline
    var description: String { "Drop" }
    @usableFromInline
    var censusScope: CensusScope? { census.scope }

    @inlinable
    init(downstream: Downstream, count: Int) {
      census = CensusToken(Inner.self, inheritingFrom: downstream)
      self.downstream = downstream
      self.count = count
      remaining = count
      handle = SubscriptionRequest.dispatcher()
    }

    @inlinable
    func receive(subscription: any Subscription) {
      let accepted = state.withLock { state -> Bool in
        guard case .awaitingSubscription = state else { return false }
        state = .handingDown(subscription, pending: .none)
        return true
      }
      guard accepted else {
        subscription.cancel()
        return
      }
      downstream.receive(subscription: self)
      let ask = state.withLock { state -> Subscribers.Demand in
        guard case .handingDown(let upstream, let pending) = state else { return .none }
        state = .forwarding(upstream)
        return pending + count
      }
      if ask > 0 { subscription.request(ask) }
    }

    @inlinable
    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
      if remaining > 0 {
        remaining -= 1
        return .none
      }
      return downstream.receive(input)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
      let active = state.withLock { state -> Bool in
        if case .terminal = state { return false }
        state = .terminal
        return true
      }
      if active { downstream.receive(completion: completion) }
    }

    @usableFromInline
    func request(_ demand: Subscribers.Demand) {
      handle(self, .demand(demand))
    }

    @usableFromInline
    func cancel() {
      handle(self, .cancel)
    }

    @inlinable
    func handleDemand(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let upstream = state.withLock { state -> (any Subscription)? in
        switch state {
        case .handingDown(let upstream, let pending):
          state = .handingDown(upstream, pending: pending + demand)
          return nil
        case .forwarding(let upstream):
          return upstream
        case .awaitingSubscription, .terminal:
          return nil
        }
      }
      upstream?.request(demand)
    }

    @inlinable
    func handleCancel() {
      let upstream = state.withLock { state -> (any Subscription)? in
        defer { state = .terminal }
        switch state {
        case .handingDown(let upstream, _), .forwarding(let upstream): return upstream
        case .awaitingSubscription, .terminal: return nil
        }
      }
      upstream?.cancel()
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

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
    /// A negative `count` stops the process when the publisher is subscribed to, as in Combine.
    @inlinable
    public init(upstream: Upstream, count: Int) {
      self.upstream = upstream
      self.count = count
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    ///
    /// - Precondition: `count` is not negative.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      precondition(count >= 0, "dropFirst(\(count)): the number of elements to drop cannot be negative; pass 0 or more")
      // As in Combine, the subscriber has its subscription before the upstream is subscribed to.
      let inner = Inner(downstream: subscriber, count: count)
      subscriber.receive(subscription: inner)
      upstream.subscribe(inner)
    }
  }
}

extension Publishers.Drop: Equatable where Upstream: Equatable {}

extension Publishers.Drop: Sendable where Upstream: Sendable {}

extension Publishers.Drop {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = DropInner<Downstream>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
}

/// The subscriber's subscription, as Combine's `Drop` is: what the subscriber asks for before
/// the upstream's subscription arrives is added up and asked for with the elements to drop, in
/// one request (so those are asked for even when the subscriber asked for nothing); later
/// requests go straight through, and a dropped element asks for nothing more.
///
/// Also as in Combine, a value or a completion that arrives before upstream's subscription
/// passes on: the subscriber already has its subscription. A subscription that arrives after the
/// subscriber cancelled, or after a completion, is cancelled: the subscriber has its subscription
/// before upstream is subscribed to, so it can cancel before upstream answers (from inside
/// `receive(subscription:)`, or from another thread), and the cancel must not be lost
/// (DifferencesFromCombine §5, in Conduit.docc).
///
/// Generic over its downstream alone, as an operator that passes on the values and errors it
/// receives can be: one level of nesting per use rather than two (see `OperatorLink`).
@usableFromInline
final class DropInner<Downstream: Subscriber>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped
{
  @usableFromInline
  typealias Input = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  typealias Targets = SubscribedTargets<Downstream>

  @usableFromInline
  enum State {
    case awaitingSubscription(Downstream, pending: Subscribers.Demand)
    case subscribed(Targets)
    /// Finished, failed or cancelled: the subscriber and the upstream are let go.
    case terminal
  }

  // Immutable.
  @usableFromInline
  let count: Int
  // Fields with unchecked exclusivity skip the runtime check, which costs in "tryMap, prefix, dropFirst, output(in:), mapError, 3 x each".
  // Touched only from the upstream's serialized calls, so the runtime check is skipped.
  @usableFromInline @exclusivity(unchecked)
  var remaining: Int
  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var description: String { "Drop" }
  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
  @usableFromInline
  var playgroundDescription: Any { description }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(downstream: Downstream, count: Int) {
    census = CensusToken(DropInner.self, inheritingFrom: downstream)
    self.count = count
    remaining = count
    state = Locked(.awaitingSubscription(downstream, pending: .none))
  }

  @usableFromInline
  func receive(subscription: any Subscription) {
    let ask = state.withLock { state -> Subscribers.Demand? in
      guard case .awaitingSubscription(let downstream, let pending) = state else { return nil }
      state = .subscribed(Targets(downstream: downstream, upstream: subscription))
      return pending + count
    }
    guard let ask else {
      subscription.cancel()
      return
    }
    if ask > 0 { subscription.request(ask) }
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    if remaining > 0 {
      remaining -= 1
      return .none
    }
    return state.withRetained(
      { state -> Targets? in
        guard case .subscribed(let targets) = state else { return nil }
        return targets
      },
      then: { $0.downstream.receive(input) }) ?? receiveBeforeSubscription(input)
  }

  /// As in Combine, a value before upstream's subscription goes to the subscriber, which already
  /// has its subscription.
  @inlinable
  func receiveBeforeSubscription(_ input: Input) -> Subscribers.Demand {
    let downstream = state.withLock { state -> Downstream? in
      guard case .awaitingSubscription(let downstream, _) = state else { return nil }
      return downstream
    }
    return downstream?.receive(input) ?? .none
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    // Taken out, so that what the state held is released after the lock.
    let ended = state.exchange(.terminal)
    switch ended {
    case .awaitingSubscription(let downstream, _): downstream.receive(completion: completion)
    case .subscribed(let targets): targets.downstream.receive(completion: completion)
    case .terminal: break
    }
  }

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    state.withRetained(
      { state -> Targets? in
        switch state {
        case .awaitingSubscription(let downstream, let pending):
          state = .awaitingSubscription(downstream, pending: pending + demand)
          return nil
        case .subscribed(let targets):
          return targets
        case .terminal:
          return nil
        }
      },
      then: { $0.upstream.request(demand) })
  }

  @usableFromInline
  func cancel() {
    // Taken out, so that the downstream and the upstream are released after the lock.
    let ended = state.exchange(.terminal)
    if case .subscribed(let targets) = ended { targets.upstream.cancel() }
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
  /// - Precondition: `count` is not negative (checked when the publisher is subscribed to, as in
  ///   Combine).
  @inlinable
  public func dropFirst(_ count: Int = 1) -> Publishers.Drop<Self> {
    Publishers.Drop(upstream: self, count: count)
  }
}

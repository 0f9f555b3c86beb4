import Synchronization

extension Publishers {
  /// A publisher that attempts to recreate its subscription to a failed upstream publisher.
  ///
  /// Each time the upstream fails, it is subscribed to again, up to `retries` times (without
  /// limit when `retries` is `nil` or, as in Combine, negative), and asked for the demand the
  /// downstream had left. Only the last failure reaches the downstream.
  ///
  /// ```swift
  /// let cancellable = api.fetchUser()
  ///     .retry(3)
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  public struct Retry<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The maximum number of retry attempts to perform; `nil` (or a negative number) retries
    /// without limit.
    public let retries: Int?

    /// Creates a publisher that attempts to recreate its subscription to a failed upstream
    /// publisher.
    @inlinable
    public init(upstream: Upstream, retries: Int?) {
      self.upstream = upstream
      self.retries = retries
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      Inner(upstream: upstream, retries: retries, downstream: subscriber).start()
    }
  }
}

extension Publishers.Retry: Equatable where Upstream: Equatable {}

extension Publishers.Retry {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = RetryInner<RetryTypes<Upstream, Downstream>>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
}

/// The types `retry`'s subscriber works with: an `OperatorLink` that also names the publisher it
/// subscribes to again after each failure.
@usableFromInline
protocol RetryLink: OperatorLink {
  /// The publisher subscribed to, again after each failure.
  associatedtype Upstream: Publisher where Upstream.Output == Input, Upstream.Failure == Failure
}

/// The `RetryLink` of a subscriber to `Upstream` that sends on to `Downstream`. Never
/// instantiated.
@usableFromInline
enum RetryTypes<Upstream: Publisher, Downstream: Subscriber>: RetryLink {
  @usableFromInline
  typealias Input = Upstream.Output
  @usableFromInline
  typealias Failure = Upstream.Failure
}

/// Subscribes to the upstream, and again after each failure while retries remain.
///
/// The same object subscribes every time, and hands itself to the downstream once, when the
/// first subscription arrives. A resubscription made while another is running on the stack (an
/// upstream that fails at once when subscribed) is left to the running one, so that many retries
/// do not grow the stack.
///
/// As in Combine, a value that comes between two subscriptions is delivered, a completion that
/// comes before the first is handled as any other, and a value beyond the demand stops the
/// process.
///
/// Generic over one `RetryLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`).
@usableFromInline
final class RetryInner<Types: RetryLink>: Subscriber, SubscriptionRequestHandler, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped,
  @unchecked Sendable
where Types.Downstream.Input == Types.Input, Types.Downstream.Failure == Types.Failure {
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Types.Failure
  @usableFromInline
  typealias Downstream = Types.Downstream
  @usableFromInline
  typealias Upstream = Types.Upstream

  @usableFromInline
  typealias Targets = SubscribedTargets<Downstream>

  @usableFromInline
  enum Phase {
    case awaitingFirstSubscription
    case subscribed(Targets)
    /// The upstream failed and is being subscribed to again.
    case resubscribing
    case done
  }

  @usableFromInline
  struct State {
    @usableFromInline
    var phase = Phase.awaitingFirstSubscription
    /// What the downstream asked for and has not received yet.
    @usableFromInline
    var demand = Subscribers.Demand.none
    /// Retries left; `nil` for unlimited.
    @usableFromInline
    var retriesLeft: Int?
    /// Whether the downstream has been handed this subscription.
    @usableFromInline
    var downstreamSubscribed = false
    @usableFromInline
    var upstream: Upstream?
    @usableFromInline
    var downstream: Downstream?
    /// Whether some thread is running the subscription loop.
    @usableFromInline
    var subscribing = false
    /// Whether a failure asked for another subscription while the loop was running.
    @usableFromInline
    var resubscriptionPending = false

    @inlinable
    init(upstream: Upstream, retries: Int?, downstream: Downstream) {
      self.upstream = upstream
      // A negative count never runs out, as in Combine.
      self.retriesLeft = retries.flatMap { $0 < 0 ? nil : $0 }
      self.downstream = downstream
    }

    /// Ends the subscription and lets go of the upstream and the downstream; returns the
    /// downstream and the targets, to be released after the lock.
    @inlinable
    mutating func end() -> (downstream: Downstream?, targets: Targets?) {
      let targets: Targets? = if case .subscribed(let targets) = phase { targets } else { nil }
      phase = .done
      upstream = nil
      defer { downstream = nil }
      return (downstream, targets)
    }
  }

  @usableFromInline
  enum Arrival {
    case first(Downstream)
    case again(Subscribers.Demand)
    case refused
  }

  @usableFromInline
  enum Outcome {
    case complete(Downstream?, ended: Targets?)
    case resubscribe(Upstream?)
    case ignore
  }

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
  @usableFromInline
  let census: CensusToken
  // Specialized `request` and `cancel`; see `SubscriptionRequest`.
  @usableFromInline
  let handle: (RetryInner, SubscriptionRequest) -> Void

  @usableFromInline
  var description: String { "Retry" }
  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
  @usableFromInline
  var playgroundDescription: Any { description }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(upstream: Upstream, retries: Int?, downstream: Downstream) {
    census = CensusToken(RetryInner.self, inheritingFrom: downstream)
    state = Locked(State(upstream: upstream, retries: retries, downstream: downstream))
    handle = SubscriptionRequest.dispatcher()
  }

  @inlinable
  func start() {
    let upstream = state.withLock { state -> Upstream? in
      state.subscribing = true
      return state.upstream
    }
    upstream?.subscribe(self)
    subscribeWhilePending()
  }

  /// Called by the thread running the subscription loop after each subscription: subscribes
  /// again if a failure asked for it meanwhile, otherwise leaves the loop.
  @inlinable
  func subscribeWhilePending() {
    while true {
      let upstream = state.withLock { state -> Upstream? in
        guard state.resubscriptionPending, case .resubscribing = state.phase else {
          state.resubscriptionPending = false
          state.subscribing = false
          return nil
        }
        state.resubscriptionPending = false
        return state.upstream
      }
      guard let upstream else { return }
      upstream.subscribe(self)
    }
  }

  // MARK: Upstream

  @inlinable
  func receive(subscription: any Subscription) {
    let arrival = state.withLock { state -> Arrival in
      switch state.phase {
      case .awaitingFirstSubscription, .resubscribing:
        // The downstream goes only with the phase, to `.done`.
        guard let downstream = state.downstream else { return .refused }
        state.phase = .subscribed(Targets(downstream: downstream, upstream: subscription))
        // The downstream gets its subscription with the first that arrives, which may follow a
        // failure that came before any.
        guard state.downstreamSubscribed else {
          state.downstreamSubscribed = true
          return .first(downstream)
        }
        return .again(state.demand)
      case .subscribed, .done:
        return .refused
      }
    }
    switch arrival {
    case .first(let downstream):
      downstream.receive(subscription: self)
    case .again(let demand):
      if demand != .none { subscription.request(demand) }
    case .refused:
      subscription.cancel()
    }
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    guard
      let more = state.withRetained(
        { state -> Targets? in
          guard case .subscribed(let targets) = state.phase else { return nil }
          Self.take(one: &state.demand)
          return targets
        },
        then: { $0.downstream.receive(input) }) ?? receiveBetweenSubscriptions(input)
    else { return .none }
    guard more != .none else { return .none }
    // Asked for rather than returned, as Combine does, of the subscription current now; between
    // subscriptions, of the next one.
    state.withRetained(
      { state -> Targets? in
        switch state.phase {
        case .subscribed(let targets):
          state.demand += more
          return targets
        case .awaitingFirstSubscription, .resubscribing:
          state.demand += more
          return nil
        case .done:
          return nil
        }
      },
      then: { $0.upstream.request(more) })
    return .none
  }

  /// A value that comes while no subscription is current (from an upstream being subscribed to
  /// again) is delivered, as in Combine; the demand it returns is asked of the next
  /// subscription. One after the end is dropped.
  @inlinable @inline(never)
  func receiveBetweenSubscriptions(_ input: Input) -> Subscribers.Demand? {
    let downstream = state.withLock { state -> Downstream? in
      switch state.phase {
      case .awaitingFirstSubscription, .resubscribing:
        Self.take(one: &state.demand)
        return state.downstream
      case .subscribed, .done:
        return nil
      }
    }
    return downstream?.receive(input)
  }

  /// Counts one value against the demand; a value beyond it is a broken contract, and stops the
  /// process as in Combine.
  @inlinable @inline(__always)
  static func take(one demand: inout Subscribers.Demand) {
    precondition(
      demand != .none,
      "retry: the upstream sent a value the subscriber had not requested; a publisher must not send more values than were demanded"
    )
    if demand != .unlimited { demand -= 1 }
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>) {
    // The targets of the failed subscription are taken out with the outcome, so that they are
    // released after the lock.
    let (outcome, ended) = state.withLock { state -> (Outcome, Targets?) in
      let targets: Targets?
      switch state.phase {
      case .subscribed(let subscribed): targets = subscribed
      // As in Combine, a completion before the first subscription is handled as any other.
      case .awaitingFirstSubscription: targets = nil
      case .resubscribing, .done: return (.ignore, nil)
      }
      guard case .failure = completion, state.retriesLeft.map({ $0 > 0 }) ?? true else {
        let (downstream, targets) = state.end()
        return (.complete(downstream, ended: targets), nil)
      }
      state.retriesLeft = state.retriesLeft.map { $0 - 1 }
      state.phase = .resubscribing
      if state.subscribing {
        state.resubscriptionPending = true
        return (.ignore, targets)
      }
      state.subscribing = true
      return (.resubscribe(state.upstream), targets)
    }
    _ = consume ended
    switch outcome {
    case .complete(let downstream, _):
      downstream?.receive(completion: completion)
    case .resubscribe(let upstream):
      upstream?.subscribe(self)
      subscribeWhilePending()
    case .ignore:
      break
    }
  }

  // MARK: Downstream

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
    state.withRetained(
      { state -> Targets? in
        switch state.phase {
        case .subscribed(let targets):
          state.demand += demand
          return targets
        case .awaitingFirstSubscription, .resubscribing:
          state.demand += demand
          return nil
        case .done:
          return nil
        }
      },
      then: { $0.upstream.request(demand) })
  }

  @inlinable
  func handleCancel() {
    let (downstream, current) = state.withLock { state -> (Downstream?, Targets?) in
      if case .done = state.phase { return (nil, nil) }
      return state.end()
    }
    current?.upstream.cancel()
    // Released outside the lock: the downstream's deinit may run arbitrary code.
    _ = downstream
  }
}

extension Publisher {
  /// Attempts to recreate a failed subscription with the upstream publisher up to the number
  /// of times you specify.
  ///
  /// ```swift
  /// let cancellable = api.fetchUser()
  ///     .retry(2)   // up to three attempts in all
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  ///
  /// - Parameter retries: The number of times to attempt to recreate the subscription.
  @inlinable
  public func retry(_ retries: Int) -> Publishers.Retry<Self> {
    Publishers.Retry(upstream: self, retries: retries)
  }
}

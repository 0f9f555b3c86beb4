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
    public init(upstream: Upstream, retries: Int?) {
      self.upstream = upstream
      self.retries = retries
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      Inner(upstream: upstream, retries: retries, downstream: subscriber).start()
    }
  }
}

extension Publishers.Retry: Equatable where Upstream: Equatable {}

extension Publishers.Retry {
  typealias Inner<Downstream: Subscriber> = RetryInner<RetryTypes<Upstream, Downstream>>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
}

/// The types `retry`'s subscriber works with: an `OperatorLink` that also names the publisher it
/// subscribes to again after each failure.
protocol RetryLink: OperatorLink {
  /// The publisher subscribed to, again after each failure.
  associatedtype Upstream: Publisher where Upstream.Output == Input, Upstream.Failure == Failure
}

/// The `RetryLink` of a subscriber to `Upstream` that sends on to `Downstream`. Never
/// instantiated.
enum RetryTypes<Upstream: Publisher, Downstream: Subscriber>: RetryLink {
  typealias Input = Upstream.Output
  typealias Failure = Upstream.Failure
}

/// The decisions of a `retry` subscription, kept apart from its calls out (DESIGN.md §3): each
/// event updates the state under the subscription's lock and says what the subscription does
/// once the lock is released.
///
/// Each failure, while retries remain, subscribes to the upstream again. `demand` counts what the
/// downstream asked for and has not received, in every state before the end, so that each new
/// subscription is asked for exactly what the failed one left. `retriesLeft` is `nil` when
/// retries never run out.
///
/// A subscription to the upstream may fail before `subscribe` returns, and the failure asks for
/// the next subscription; `loop` lets the call that is already subscribing make it, so that many
/// retries do not grow the stack.
struct RetryStateMachine<Upstream, Downstream: Subscriber> {
  typealias Targets = SubscribedTargets<Downstream>

  enum State {
    /// The upstream is being subscribed to for the first time; its subscription has not arrived,
    /// and the downstream has not got its own.
    case awaitingFirstSubscription(Upstream, Downstream)
    /// A subscription to the upstream is current: its values go to the downstream.
    case subscribed(Upstream, Targets)
    /// The upstream failed and is being subscribed to again; the new subscription has not
    /// arrived. `downstreamSubscribed` is `false` when the failure came before any subscription:
    /// the downstream then gets its subscription with the first that arrives.
    case resubscribing(Upstream, Downstream, downstreamSubscribed: Bool)
    /// The downstream has its completion, or cancelled: nothing is held.
    case terminal
  }

  /// Whether a call is running the subscription loop (`subscribe`, then `nextSubscription` until
  /// it says to leave).
  enum Loop {
    /// No call is subscribing to the upstream: a failure subscribes again itself.
    case idle
    /// A call is subscribing to the upstream; a failure that comes meanwhile leaves the next
    /// subscription to it.
    case running
    /// As `running`, and a failure has asked for the next subscription.
    case resubscriptionPending
  }

  /// What the call running the subscription loop does next.
  enum LoopAction {
    /// Subscribe to the upstream, then ask again.
    case subscribe(Upstream)
    /// Nothing asked for another subscription: leave the loop.
    case leave
  }

  typealias SubscriptionAction = SuccessiveSubscriptionAction<Downstream>

  /// What to do with a value from the upstream.
  enum ValueAction {
    /// Hand the value to the downstream of the current subscription's targets.
    case deliver(Targets)
    /// No subscription is current (the upstream is being subscribed to again): hand the value to
    /// the downstream, as Combine does.
    case deliverBetweenSubscriptions(Downstream)
    /// After the end: drop it.
    case ignore
    /// A value beyond the demand: a broken contract, which stops the process as in Combine.
    case unrequested
  }

  /// What to do once the upstream has completed.
  enum CompletionAction {
    /// Not the stream's completion (one that comes while subscribing again, or after the end):
    /// nothing.
    case none
    /// Send the completion to the downstream; `ended` is what the stream held, let go of after
    /// the lock.
    case complete(Downstream, ended: State)
    /// Subscribe to the upstream again, then run the subscription loop. `failed` is the failed
    /// subscription's targets, let go of after the lock.
    case resubscribe(Upstream, failed: Targets?)
    /// The call running the subscription loop subscribes again. `failed` is the failed
    /// subscription's targets, let go of after the lock.
    case leaveToLoop(failed: Targets?)
  }

  typealias RequestAction = SuccessiveRequestAction<Targets>

  typealias CancelAction = SuccessiveCancelAction<Targets, State>

  var state: State
  var loop = Loop.idle
  /// What the downstream asked for and has not received yet.
  var demand = Subscribers.Demand.none
  /// Retries left; `nil` when they never run out.
  var retriesLeft: Int?

  init(upstream: Upstream, retries: Int?, downstream: Downstream) {
    state = .awaitingFirstSubscription(upstream, downstream)
    // A negative count never runs out, as in Combine.
    retriesLeft = retries.flatMap { $0 < 0 ? nil : $0 }
  }

  // MARK: Subscribing

  /// The subscription starts: this call runs the subscription loop.
  mutating func start() -> LoopAction {
    subscribeAgain()
  }

  /// Asked by the call running the subscription loop after each subscription.
  mutating func nextSubscription() -> LoopAction {
    guard case .resubscriptionPending = loop, case .resubscribing = state else {
      loop = .idle
      return .leave
    }
    return subscribeAgain()
  }

  /// The caller runs the subscription loop, and subscribes to the upstream unless the stream has
  /// ended.
  mutating func subscribeAgain() -> LoopAction {
    switch state {
    case .awaitingFirstSubscription(let upstream, _), .subscribed(let upstream, _), .resubscribing(let upstream, _, _):
      loop = .running
      return .subscribe(upstream)
    case .terminal:
      loop = .idle
      return .leave
    }
  }

  // MARK: Upstream

  /// A subscription from the upstream.
  mutating func receive(subscription: any Subscription) -> SubscriptionAction {
    switch state {
    case .awaitingFirstSubscription(let upstream, let downstream):
      state = .subscribed(upstream, Targets(downstream: downstream, upstream: subscription))
      return .handDown(downstream)
    case .resubscribing(let upstream, let downstream, let downstreamSubscribed):
      state = .subscribed(upstream, Targets(downstream: downstream, upstream: subscription))
      guard downstreamSubscribed else { return .handDown(downstream) }
      return demand == .none ? .none : .request(demand)
    case .subscribed, .terminal:
      return .cancel
    }
  }

  /// A value from the upstream, counted against the demand.
  mutating func receiveValue() -> ValueAction {
    switch state {
    case .subscribed(_, let targets):
      guard takeOne() else { return .unrequested }
      return .deliver(targets)
    case .awaitingFirstSubscription(_, let downstream), .resubscribing(_, let downstream, _):
      guard takeOne() else { return .unrequested }
      return .deliverBetweenSubscriptions(downstream)
    case .terminal:
      return .ignore
    }
  }

  /// The upstream completed: a failure, while retries remain, subscribes again; anything else
  /// ends the stream. As in Combine, a completion before the first subscription counts as any
  /// other.
  mutating func receiveCompletion(failed: Bool) -> CompletionAction {
    let failedTargets: Targets?
    let upstream: Upstream
    let downstream: Downstream
    let downstreamSubscribed: Bool
    switch state {
    case .subscribed(let current, let targets):
      (upstream, downstream, failedTargets, downstreamSubscribed) = (current, targets.downstream, targets, true)
    case .awaitingFirstSubscription(let current, let waiting):
      (upstream, downstream, failedTargets, downstreamSubscribed) = (current, waiting, nil, false)
    case .resubscribing, .terminal:
      return .none
    }
    guard failed, retriesLeft.map({ $0 > 0 }) ?? true else {
      return .complete(downstream, ended: end())
    }
    retriesLeft = retriesLeft.map { $0 - 1 }
    state = .resubscribing(upstream, downstream, downstreamSubscribed: downstreamSubscribed)
    switch loop {
    case .running, .resubscriptionPending:
      loop = .resubscriptionPending
      return .leaveToLoop(failed: failedTargets)
    case .idle:
      loop = .running
      return .resubscribe(upstream, failed: failedTargets)
    }
  }

  // MARK: Downstream

  /// Demand the downstream asked for, by a request or by what it returned for a value: counted
  /// until the end, and asked of the current subscription.
  mutating func request(_ more: Subscribers.Demand) -> RequestAction {
    switch state {
    case .subscribed(_, let targets):
      demand += more
      return .forward(targets)
    case .awaitingFirstSubscription, .resubscribing:
      demand += more
      return .none
    case .terminal:
      return .none
    }
  }

  /// The downstream cancelled: the stream ends.
  mutating func cancel() -> CancelAction {
    let ended = end()
    switch ended {
    case .subscribed(_, let targets): return .cancel(targets, ended: ended)
    case .awaitingFirstSubscription, .resubscribing: return .cancel(nil, ended: ended)
    case .terminal: return .none
    }
  }

  /// Counts one value against the demand; `false` if there was no demand for it.
  mutating func takeOne() -> Bool {
    guard demand != .none else { return false }
    if demand != .unlimited { demand -= 1 }
    return true
  }

  /// Ends the stream: returns what it held, to be let go of after the lock.
  mutating func end() -> State {
    var ended = State.terminal
    swap(&ended, &state)
    return ended
  }
}

/// Subscribes to the upstream, and again after each failure while retries remain; its decisions
/// are a `RetryStateMachine`'s.
///
/// The same object subscribes every time, and hands itself to the downstream once, when the
/// first subscription arrives.
///
/// As in Combine, a value that comes between two subscriptions is delivered, a completion that
/// comes before the first is handled as any other, and a value beyond the demand stops the
/// process.
///
/// Generic over one `RetryLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`).
final class RetryInner<Types: RetryLink>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped,
  Sendable
where Types.Downstream.Input == Types.Input, Types.Downstream.Failure == Types.Failure {
  typealias Input = Types.Input
  typealias Failure = Types.Failure
  typealias Downstream = Types.Downstream
  typealias Upstream = Types.Upstream
  typealias Machine = RetryStateMachine<Upstream, Downstream>

  // Guarded by its own lock.
  let state: Locked<Machine>
  let census: CensusToken

  var description: String { "Retry" }
  var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
  var playgroundDescription: Any { description }
  var censusScope: CensusScope? { census.scope }

  init(upstream: Upstream, retries: Int?, downstream: Downstream) {
    census = CensusToken(RetryInner.self, inheritingFrom: downstream)
    state = Locked(Machine(upstream: upstream, retries: retries, downstream: downstream))
  }

  func start() {
    run(state.withLock { $0.start() })
  }

  /// Runs the subscription loop: subscribes while the machine asks for another subscription.
  func run(_ first: Machine.LoopAction) {
    var next = first
    while case .subscribe(let upstream) = next {
      upstream.subscribe(self)
      next = state.withLock { $0.nextSubscription() }
    }
  }

  // MARK: Upstream

  func receive(subscription: any Subscription) {
    state.withLock({ $0.receive(subscription: subscription) }).perform(for: subscription, handingDown: self)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    let more: Subscribers.Demand
    switch state.withLock({ $0.receiveValue() }) {
    case .deliver(let targets):
      more = targets.downstream.receive(input)
    case .deliverBetweenSubscriptions(let downstream):
      more = downstream.receive(input)
    case .ignore:
      return .none
    case .unrequested:
      preconditionFailure(
        "retry: the upstream sent a value the subscriber had not requested; a publisher must not send more values than were demanded"
      )
    }
    guard more != .none else { return .none }
    // Asked for rather than returned, as Combine does, of the subscription current now; between
    // subscriptions, of the next one.
    ask(more)
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    let failed = if case .failure = completion { true } else { false }
    // The failed subscription's targets leave with the action, after the lock.
    switch state.withLock({ $0.receiveCompletion(failed: failed) }) {
    case .complete(let downstream, _):
      downstream.receive(completion: completion)
    case .resubscribe(let upstream, _):
      run(.subscribe(upstream))
    case .none, .leaveToLoop:
      break
    }
  }

  // MARK: Downstream

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    ask(demand)
  }

  /// Counts demand the downstream asked for, and asks the current subscription for it.
  func ask(_ demand: Subscribers.Demand) {
    state.withRetained(
      { state -> Machine.Targets? in
        guard case .forward(let targets) = state.request(demand) else { return nil }
        return targets
      },
      then: { $0.upstream.request(demand) })
  }

  func cancel() {
    // What the stream held leaves with the action, after the lock: the downstream's deinit may
    // run arbitrary code.
    guard case .cancel(let current, _) = state.withLock({ $0.cancel() }) else { return }
    current?.upstream.cancel()
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
  public func retry(_ retries: Int) -> Publishers.Retry<Self> {
    Publishers.Retry(upstream: self, retries: retries)
  }
}

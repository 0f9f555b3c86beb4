// Triggered: operators that watch a second publisher (`drop(untilOutputFrom:)`,
// `prefix(untilOutputFrom:)`).
//
// - `TriggeredSubscription.swift`: the subscription downstream holds, and its state machine
//   (`TriggeredStateMachine`), which decides for both operators.
// - `TriggerSubscriber.swift`: the subscriber of the second publisher.

/// The subscription an operator watching a second publisher gives downstream, for
/// `drop(untilOutputFrom:)` and `prefix(untilOutputFrom:)`: it keeps a `TriggeredStateMachine`
/// under its lock and carries out what the machine decides, after the lock. Each subclass says
/// which of the machine's events upstream's subscription, values and completion, and the
/// trigger's value and completion, are.
///
/// Its methods are `final`: a subclass's per-value `receive(_:)` calls them directly, so they are
/// specialized with it (a method reached through a generic class's vtable runs unspecialized).
@usableFromInline
class TriggeredSubscription<Downstream: Subscriber>: Subscription, CensusScoped, @unchecked Sendable {
  @usableFromInline
  typealias Machine = TriggeredStateMachine<Downstream>

  // Guarded by its own lock.
  @usableFromInline
  let machine: Locked<Machine>
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  /// `type` is the subclass, for the census.
  @inlinable
  init(_ type: Any.Type, downstream: Downstream) {
    census = CensusToken(type, inheritingFrom: downstream)
    machine = Locked(Machine(downstream: downstream))
  }

  // MARK: Upstream

  /// Upstream's subscription arrived: `announcing` hands it on to downstream as this
  /// subscription (`prefix(untilOutputFrom:)`, whose downstream waits for it); otherwise
  /// downstream has had this subscription since the start, and upstream is asked for what
  /// downstream has requested so far.
  @usableFromInline
  final func upstreamSubscribed(_ subscription: any Subscription, announcing: Bool) {
    switch machine.withLock({ $0.upstreamSubscribed(subscription, announcing: announcing) }) {
    case .cancel:
      subscription.cancel()
    case .request(let demand):
      subscription.request(demand)
    case .none:
      break
    case .announce(let downstream):
      deliver(to: downstream) { $0.receive(subscription: self) }
    }
  }

  /// Upstream sent `input`; `gated` holds it back until the trigger has fired
  /// (`drop(untilOutputFrom:)`).
  @inlinable
  final func upstreamValue(_ input: Downstream.Input, gated: Bool) -> Subscribers.Demand {
    guard let downstream = machine.withLock({ $0.value(gated: gated) }) else { return .none }
    return deliver(to: downstream) { $0.receive(input) }
  }

  /// Upstream completed. `announced`: downstream already has its subscription even if upstream
  /// has not sent its own, so the completion goes on; otherwise the stream ends without a word
  /// to downstream, which was never subscribed. Either way the trigger is cancelled.
  @usableFromInline
  final func upstreamCompleted(_ completion: Machine.Completion, announced: Bool) {
    perform(machine.withLock { $0.upstreamCompleted(completion, announced: announced) })
  }

  // MARK: The other publisher

  @usableFromInline
  final func triggerReceive(subscription: any Subscription) {
    if machine.withLock({ $0.triggerSubscribed(subscription) }) {
      subscription.request(.max(1))
    } else {
      subscription.cancel()
    }
  }

  // MARK: Subscription

  /// Passes the demand on to upstream as it is, `.none` included: both operators accept it, as
  /// in Combine.
  @usableFromInline
  final func request(_ demand: Subscribers.Demand) {
    machine.withLock { $0.request(demand) }?.request(demand)
  }

  @usableFromInline
  final func cancel() {
    perform(machine.withLock { $0.cancel() })
  }

  // MARK: Actions

  /// Calls into downstream, then tells the machine the call has returned: a completion decided
  /// meanwhile on another thread is delivered here, once the outermost call has returned.
  @inlinable @inline(__always)
  final func deliver<Result>(to downstream: Downstream, _ call: (Downstream) -> Result) -> Result {
    let result = call(downstream)
    perform(machine.withLock { $0.endDelivery() })
    return result
  }

  /// Does what the machine decided, after the lock: the subscriber it lets go of leaves last, as
  /// its deinit may cancel this subscription.
  @usableFromInline
  final func perform(_ action: Machine.EndAction) {
    switch action {
    case .none:
      break
    case .complete(let upstream, let trigger, let downstream, let completion):
      trigger?.cancel()
      upstream?.cancel()
      downstream?.receive(completion: completion)
    case .subscribeAndFinish(let trigger, let downstream):
      trigger.cancel()
      downstream.receive(subscription: self)
      downstream.receive(completion: .finished)
    case .release(let upstream, let trigger, let downstream):
      upstream?.cancel()
      trigger?.cancel()
      withExtendedLifetime(downstream) {}
    }
  }
}

/// The decisions of an operator watching a second publisher (`drop(untilOutputFrom:)`,
/// `prefix(untilOutputFrom:)`): where upstream and the trigger stand, and when and how the
/// stream ends. Its events return what the `TriggeredSubscription` does after the lock.
///
/// The trigger may fire or complete on any thread, even while upstream is delivering a value.
/// Calls into downstream never overlap: while one runs (`Running.delivering` above zero), a
/// completion decided on another thread waits in `ending` for that call to return, and the
/// thread that made it delivers it. Calls nest when a synchronous upstream delivers from inside
/// `request`, called from inside downstream's `receive(subscription:)` or `receive(_:)`: the
/// completion then waits for the outermost call to return. No other serializing is needed:
/// upstream's own calls never overlap (contract 3).
///
/// ```
///   running ──── a completion, or the trigger, while a call into downstream runs ──── ending
///      │                                                                                 │
///      └──── a completion, the trigger, or a cancel ────► terminal ◄── the call returns ──┘
/// ```
@usableFromInline
struct TriggeredStateMachine<Downstream: Subscriber> {
  @usableFromInline
  typealias Completion = Subscribers.Completion<Downstream.Failure>

  /// Where one of the two publishers stands.
  @usableFromInline
  enum Link {
    case awaiting
    case active(any Subscription)
    case done

    @inlinable
    var subscription: (any Subscription)? {
      if case .active(let subscription) = self { return subscription }
      return nil
    }
  }

  /// The stream while it runs.
  @usableFromInline
  struct Running {
    @usableFromInline
    var downstream: Downstream
    @usableFromInline
    var upstream = Link.awaiting
    @usableFromInline
    var trigger = Link.awaiting
    /// How many calls into downstream are running, nested in one another.
    @usableFromInline
    var delivering = 0

    @inlinable
    init(downstream: Downstream) {
      self.downstream = downstream
    }
  }

  @usableFromInline
  enum State {
    case running(Running)
    /// The stream ended while `delivering` calls into downstream ran: the thread whose outermost
    /// call returns delivers `completion`. Upstream and the trigger are let go of.
    case ending(Downstream, Completion, delivering: Int)
    case terminal
  }

  /// What `upstreamSubscribed(_:announcing:)` asks of the subscription.
  @usableFromInline
  enum SubscribeAction {
    /// The stream does not take it: cancel it.
    case cancel
    /// Ask upstream for what downstream has requested so far.
    case request(Subscribers.Demand)
    case none
    /// Give downstream its subscription, through `deliver(to:_:)`.
    case announce(Downstream)
  }

  /// How the stream ends, for the subscription to carry out after the lock.
  @usableFromInline
  enum EndAction {
    case none
    /// Cancel the trigger and upstream given, then send `completion` to `downstream`, if given:
    /// `nil` when a call into downstream is running, whose thread delivers it.
    case complete(
      upstream: (any Subscription)?, trigger: (any Subscription)?, Downstream?, Completion)
    /// Cancel the trigger, then give downstream, which has no subscription yet, this one and
    /// `.finished` (`prefix(untilOutputFrom:)`'s trigger fired before upstream subscribed).
    case subscribeAndFinish(trigger: any Subscription, Downstream)
    /// Cancel the upstream and trigger given and let go of `downstream`, without a word to it.
    case release(upstream: (any Subscription)?, trigger: (any Subscription)?, Downstream?)
  }

  @usableFromInline
  var state: State
  /// Requested and not yet answered: what upstream is asked for when its subscription arrives,
  /// and, until the trigger fires, what upstream may still send. `drop(untilOutputFrom:)`
  /// counts the values it drops against it, after the end of the stream too, as Combine does.
  @usableFromInline
  var outstandingDemand = Subscribers.Demand.none
  /// `drop(untilOutputFrom:)`'s trigger has fired: values pass from then on.
  @usableFromInline
  var triggered = false

  @inlinable
  init(downstream: Downstream) {
    state = .running(Running(downstream: downstream))
  }

  // MARK: Upstream

  @usableFromInline
  mutating func upstreamSubscribed(_ subscription: any Subscription, announcing: Bool) -> SubscribeAction {
    let outstanding = outstandingDemand
    return withRunning { running -> SubscribeAction in
      guard case .awaiting = running.upstream else { return .cancel }
      running.upstream = .active(subscription)
      if announcing {
        running.delivering += 1
        return .announce(running.downstream)
      }
      return outstanding > 0 ? .request(outstanding) : .none
    } ?? .cancel
  }

  /// Upstream sent a value: returns the downstream to deliver it to, through
  /// `deliver(to:_:)`, or `nil` to drop it. `gated` drops it until the trigger has fired.
  @inlinable
  mutating func value(gated: Bool) -> Downstream? {
    if gated, !triggered {
      // Before the trigger, the value is dropped and the demand it answered is spent, as in
      // Combine.
      precondition(
        outstandingDemand != .none,
        "drop(untilOutputFrom:): upstream sent a value it was not asked for; a publisher must not send more values than its subscriber requested"
      )
      outstandingDemand -= 1
      return nil
    }
    return withRunning { running -> Downstream? in
      if !gated, running.upstream.subscription == nil { return nil }
      running.delivering += 1
      return running.downstream
    } ?? nil
  }

  /// A call into downstream returned.
  @inlinable
  mutating func endDelivery() -> EndAction {
    switch state {
    case .running:
      _ = withRunning { $0.delivering -= 1 }
      return .none
    case .ending(let downstream, let completion, let delivering):
      if delivering > 1 {
        state = .ending(downstream, completion, delivering: delivering - 1)
        return .none
      }
      state = .terminal
      return .complete(upstream: nil, trigger: nil, downstream, completion)
    case .terminal:
      return .none
    }
  }

  @usableFromInline
  mutating func upstreamCompleted(_ completion: Completion, announced: Bool) -> EndAction {
    guard case .running(let running) = state else { return .none }
    if case .awaiting = running.upstream, !announced {
      state = .terminal
      return .release(upstream: nil, trigger: running.trigger.subscription, running.downstream)
    }
    return end(running, with: completion, cancelling: nil, running.trigger.subscription)
  }

  // MARK: The other publisher

  /// Whether the trigger's subscription is taken (else it is cancelled).
  @usableFromInline
  mutating func triggerSubscribed(_ subscription: any Subscription) -> Bool {
    withRunning { running -> Bool in
      guard case .awaiting = running.trigger else { return false }
      running.trigger = .active(subscription)
      return true
    } ?? false
  }

  /// `prefix(untilOutputFrom:)`'s trigger fired: the stream finishes, and the trigger is
  /// cancelled, so that it does not keep this finished subscription alive
  /// (DifferencesFromCombine §5, in Conduit.docc).
  @usableFromInline
  mutating func triggerFiredFinishing() -> EndAction {
    guard case .running(let running) = state, let trigger = running.trigger.subscription else { return .none }
    guard case .awaiting = running.upstream else {
      return end(running, with: .finished, cancelling: running.upstream.subscription, trigger)
    }
    state = .terminal
    return .subscribeAndFinish(trigger: trigger, running.downstream)
  }

  /// `drop(untilOutputFrom:)`'s trigger fired: values pass from now on. As in Combine, the
  /// trigger is not cancelled: it has sent the one value asked of it. Its subscription is
  /// cancelled when the stream ends, so that it does not keep this subscription alive.
  @usableFromInline
  mutating func triggerFiredOpening() {
    guard case .running(let running) = state, running.trigger.subscription != nil else { return }
    triggered = true
  }

  /// The trigger completed. Before it fired, `ending` (`drop(untilOutputFrom:)`) ends the stream
  /// with `completion`, even when it finishes (and even before its subscription, as in
  /// Combine); otherwise nothing changes, and a subscription it sends afterwards is cancelled.
  @usableFromInline
  mutating func triggerCompleted(ending completion: Completion?) -> EndAction {
    guard case .running(var running) = state else { return .none }
    if let completion, !triggered {
      return end(running, with: completion, cancelling: running.upstream.subscription, nil)
    }
    state = .terminal
    running.trigger = .done
    state = .running(running)
    return .none
  }

  // MARK: Downstream

  /// Returns upstream, to pass `demand` on to as it is, once it has subscribed.
  @usableFromInline
  mutating func request(_ demand: Subscribers.Demand) -> (any Subscription)? {
    guard case .running(let running) = state else { return nil }
    outstandingDemand += demand
    return running.upstream.subscription
  }

  @usableFromInline
  mutating func cancel() -> EndAction {
    guard case .running(let running) = state else { return .none }
    state = .terminal
    return .release(upstream: running.upstream.subscription, trigger: running.trigger.subscription, running.downstream)
  }

  // MARK: Helpers

  /// Ends the running stream with `completion`, cancelling `upstream` and `trigger`: at once, or,
  /// while a call into downstream runs, when it returns.
  @usableFromInline
  mutating func end(
    _ running: Running, with completion: Completion, cancelling upstream: (any Subscription)?,
    _ trigger: (any Subscription)?
  ) -> EndAction {
    guard running.delivering == 0 else {
      state = .ending(running.downstream, completion, delivering: running.delivering)
      return .complete(upstream: upstream, trigger: trigger, nil, completion)
    }
    state = .terminal
    return .complete(upstream: upstream, trigger: trigger, running.downstream, completion)
  }

  /// Runs `body` on the running stream's state, which it takes out of `state` meanwhile, so that
  /// changing it copies nothing; `nil` once the stream has ended.
  @inlinable
  mutating func withRunning<Result>(_ body: (inout Running) -> Result) -> Result? {
    guard case .running(var running) = state else { return nil }
    state = .terminal
    defer { state = .running(running) }
    return body(&running)
  }
}

/// What a `TriggerSubscriber` reports the second publisher's events to.
@usableFromInline
protocol TriggerTarget: AnyObject, CustomCombineIdentifierConvertible {
  /// The kind of errors the second publisher sends.
  associatedtype TriggerFailure: Error

  /// The second publisher sent its subscription.
  func triggerReceive(subscription: any Subscription)
  /// The second publisher sent a value; returns the demand to ask of it.
  func triggerFired() -> Subscribers.Demand
  /// The second publisher completed.
  func triggerCompleted(_ completion: Subscribers.Completion<TriggerFailure>)
}

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

  /// `type` is the subclass, for the census; `announced`: whether downstream has this
  /// subscription from the start (`drop(untilOutputFrom:)`) rather than when upstream's arrives
  /// (`prefix(untilOutputFrom:)`); `gated`: whether values wait for the trigger.
  @inlinable
  init(_ type: Any.Type, downstream: Downstream, announced: Bool, gated: Bool) {
    census = CensusToken(type, inheritingFrom: downstream)
    machine = Locked(Machine(downstream: downstream, announced: announced, gated: gated))
  }

  // MARK: Upstream

  @usableFromInline
  final func upstreamSubscribed(_ subscription: any Subscription) {
    switch machine.withLock({ $0.upstreamSubscribed(subscription) }) {
    case .cancel:
      subscription.cancel()
    case .request(let demand):
      subscription.request(demand)
    case .none:
      break
    case .announce(let downstream):
      downstream.receive(subscription: self)
      deliveryEnded()
    }
  }

  /// Hands `input` to downstream, unless the machine drops it.
  @inlinable
  final func upstreamValue(_ input: Downstream.Input) -> Subscribers.Demand {
    guard let downstream = machine.withLock({ $0.value() }) else { return .none }
    let demand = downstream.receive(input)
    deliveryEnded()
    return demand
  }

  @usableFromInline
  final func upstreamCompleted(_ completion: Machine.Completion) {
    perform(machine.withLock { $0.upstreamCompleted(completion) })
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

  /// A call into downstream returned: a completion decided meanwhile on another thread is
  /// delivered here, once the outermost call has returned.
  @inlinable
  final func deliveryEnded() {
    guard let (downstream, completion) = machine.withLock({ $0.deliveryEnded() }) else { return }
    downstream.receive(completion: completion)
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
/// Calls into downstream never overlap: while one runs (`delivering` above zero), a completion
/// decided on another thread waits in `ending` for that call to return, and the thread that made
/// it delivers it. Calls nest when a synchronous upstream delivers from inside `request`, called
/// from inside downstream's `receive(subscription:)` or `receive(_:)`: the completion then waits
/// for the outermost call to return. No other serializing is needed: upstream's own calls never
/// overlap (contract 3).
///
/// ```
///   running ── a completion, or the trigger, while a call into downstream runs ──► ending
///      │                                                                              │
///      └──── a completion, the trigger, or a cancel ────► terminal ◄── the call returns
/// ```
///
/// `phase` carries no payload but the completion that waits: the per-value events read and
/// change the stored properties beside it in place, and copy no link ("drop(untilOutputFrom:)
/// and prefix(untilOutputFrom:), per value").
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

    /// Returns the subscription, if any, and leaves the link done.
    @inlinable
    mutating func take() -> (any Subscription)? {
      replace(&self, with: .done).subscription
    }
  }

  @usableFromInline
  enum Phase {
    case running
    /// The stream ended while calls into downstream ran: the thread whose outermost call returns
    /// delivers `completion`. Upstream and the trigger are let go of.
    case ending(Completion)
    case terminal
  }

  /// Whether upstream's values reach downstream.
  @usableFromInline
  enum Gate {
    /// Until the trigger fires (`drop(untilOutputFrom:)`): each value is dropped, and spends the
    /// demand it answered, after the end of the stream too, as in Combine.
    case closed
    case open
  }

  /// What `upstreamSubscribed(_:)` asks of the subscription.
  @usableFromInline
  enum SubscribeAction {
    /// The stream does not take it: cancel it.
    case cancel
    /// Ask upstream for what downstream has requested so far.
    case request(Subscribers.Demand)
    case none
    /// Give downstream its subscription, then report `deliveryEnded()`.
    case announce(Downstream)
  }

  /// How the stream ends, for the subscription to carry out after the lock.
  @usableFromInline
  enum EndAction {
    case none
    /// Cancel the trigger and upstream given, then send `completion` to `downstream`, if given:
    /// `nil` when a call into downstream is running, whose thread delivers it.
    case complete(upstream: (any Subscription)?, trigger: (any Subscription)?, Downstream?, Completion)
    /// Cancel the trigger, then give downstream, which has no subscription yet, this one and
    /// `.finished` (`prefix(untilOutputFrom:)`'s trigger fired before upstream subscribed).
    case subscribeAndFinish(trigger: any Subscription, Downstream)
    /// Cancel the upstream and trigger given and let go of `downstream`, without a word to it.
    case release(upstream: (any Subscription)?, trigger: (any Subscription)?, Downstream?)
  }

  @usableFromInline
  var phase = Phase.running
  @usableFromInline
  var gate: Gate
  /// Whether downstream has had its subscription from the start (`drop(untilOutputFrom:)`),
  /// rather than when upstream's arrives (`prefix(untilOutputFrom:)`).
  @usableFromInline
  let announced: Bool
  /// Present until the phase is terminal.
  @usableFromInline
  var downstream: Downstream?
  @usableFromInline
  var upstream = Link.awaiting
  @usableFromInline
  var trigger = Link.awaiting
  /// Requested and not yet answered: what upstream is asked for when its subscription arrives,
  /// and, while the gate is closed, what upstream may still send.
  @usableFromInline
  var outstandingDemand = Subscribers.Demand.none
  /// How many calls into downstream are running, nested in one another.
  @usableFromInline
  var delivering = 0

  @inlinable
  init(downstream: Downstream, announced: Bool, gated: Bool) {
    self.downstream = downstream
    self.announced = announced
    gate = gated ? .closed : .open
  }

  // MARK: Upstream

  @usableFromInline
  mutating func upstreamSubscribed(_ subscription: any Subscription) -> SubscribeAction {
    guard case .running = phase, case .awaiting = upstream, let downstream else { return .cancel }
    upstream = .active(subscription)
    if !announced {
      delivering += 1
      return .announce(downstream)
    }
    return outstandingDemand > 0 ? .request(outstandingDemand) : .none
  }

  /// Upstream sent a value: returns the downstream to deliver it to (then report
  /// `deliveryEnded()`), or `nil` to drop it.
  @inlinable
  mutating func value() -> Downstream? {
    if case .closed = gate {
      precondition(
        outstandingDemand != .none,
        "drop(untilOutputFrom:): upstream sent a value it was not asked for; a publisher must not send more values than its subscriber requested"
      )
      outstandingDemand -= 1
      return nil
    }
    guard case .running = phase, announced || upstream.subscription != nil else { return nil }
    delivering += 1
    return downstream
  }

  /// A call into downstream returned: returns the completion to deliver now, if one waited for
  /// this call.
  @inlinable
  mutating func deliveryEnded() -> (Downstream, Completion)? {
    delivering -= 1
    guard delivering == 0, case .ending(let completion) = phase, let downstream else { return nil }
    phase = .terminal
    self.downstream = nil
    return (downstream, completion)
  }

  /// Upstream completed. Unless downstream has had its subscription from the start, a completion
  /// before upstream's subscription ends the stream without a word to downstream, which was never
  /// subscribed. Either way the trigger is cancelled.
  @usableFromInline
  mutating func upstreamCompleted(_ completion: Completion) -> EndAction {
    guard case .running = phase else { return .none }
    if case .awaiting = upstream, !announced {
      upstream = .done
      return .release(upstream: nil, trigger: trigger.take(), end())
    }
    upstream = .done
    return end(with: completion, cancelling: nil, trigger.take())
  }

  // MARK: The other publisher

  /// Whether the trigger's subscription is taken (else it is cancelled).
  @usableFromInline
  mutating func triggerSubscribed(_ subscription: any Subscription) -> Bool {
    guard case .running = phase, case .awaiting = trigger else { return false }
    trigger = .active(subscription)
    return true
  }

  /// `drop(untilOutputFrom:)`'s trigger fired: values pass from now on. As in Combine, the
  /// trigger is not cancelled: it has sent the one value asked of it. Its subscription is
  /// cancelled when the stream ends, so that it does not keep this subscription alive
  /// (DifferencesFromCombine §5, in Conduit.docc).
  @usableFromInline
  mutating func triggerFiredOpening() {
    guard case .running = phase, trigger.subscription != nil else { return }
    gate = .open
  }

  /// `prefix(untilOutputFrom:)`'s trigger fired: the stream finishes, and the trigger is
  /// cancelled, so that it does not keep this finished subscription alive
  /// (DifferencesFromCombine §5). Before upstream's subscription, downstream gets this one and
  /// the finish at once, and upstream's is cancelled when it arrives (DifferencesFromCombine §7).
  @usableFromInline
  mutating func triggerFiredFinishing() -> EndAction {
    guard case .running = phase, let fired = trigger.subscription else { return .none }
    trigger = .done
    guard case .awaiting = upstream else {
      return end(with: .finished, cancelling: upstream.take(), fired)
    }
    guard let downstream = end() else { return .none }
    return .subscribeAndFinish(trigger: fired, downstream)
  }

  /// The trigger completed. While the gate is closed, `ending` (`drop(untilOutputFrom:)`) ends
  /// the stream with `completion`, even when it finishes (and even before its subscription, as
  /// in Combine); otherwise nothing changes, and a subscription it sends afterwards is cancelled.
  @usableFromInline
  mutating func triggerCompleted(ending completion: Completion?) -> EndAction {
    guard case .running = phase else { return .none }
    trigger = .done
    guard let completion, case .closed = gate else { return .none }
    return end(with: completion, cancelling: upstream.take(), nil)
  }

  // MARK: Downstream

  /// Returns upstream, to pass `demand` on to as it is, once it has subscribed.
  @usableFromInline
  mutating func request(_ demand: Subscribers.Demand) -> (any Subscription)? {
    guard case .running = phase else { return nil }
    outstandingDemand += demand
    return upstream.subscription
  }

  @usableFromInline
  mutating func cancel() -> EndAction {
    guard case .running = phase else { return .none }
    return .release(upstream: upstream.take(), trigger: trigger.take(), end())
  }

  // MARK: Helpers

  /// Ends the running stream with `completion`, cancelling `upstream` and `trigger`: at once, or,
  /// while a call into downstream runs, when it returns.
  @usableFromInline
  mutating func end(
    with completion: Completion, cancelling upstream: (any Subscription)?, _ trigger: (any Subscription)?
  ) -> EndAction {
    guard delivering == 0 else {
      phase = .ending(completion)
      return .complete(upstream: upstream, trigger: trigger, nil, completion)
    }
    return .complete(upstream: upstream, trigger: trigger, end(), completion)
  }

  /// Ends the stream at once: returns downstream, to let go of after the lock.
  @usableFromInline
  mutating func end() -> Downstream? {
    phase = .terminal
    return replace(&downstream, with: nil)
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

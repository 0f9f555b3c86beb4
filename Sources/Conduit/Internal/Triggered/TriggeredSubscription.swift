// Triggered: operators that watch a second publisher (`drop(untilOutputFrom:)`,
// `prefix(untilOutputFrom:)`).
//
// - `TriggeredSubscription.swift`: the subscription downstream holds, with its state machine.
// - `TriggerSubscriber.swift`: the subscriber of the second publisher.

/// The subscription an operator watching a second publisher gives downstream: the state machine
/// of its two links, upstream and the trigger, that `drop(untilOutputFrom:)` and
/// `prefix(untilOutputFrom:)` share. Each subclass decides what upstream's subscription, values and
/// completion, and the trigger's value and completion, do.
///
/// The trigger may fire or complete on any thread, even while upstream is delivering a value:
/// whichever thread is inside a call into downstream (`delivering` above zero) delivers the
/// completion when that call returns (`endDelivery(to:)`), so calls into downstream never
/// overlap. Calls nest when a synchronous upstream delivers from inside `request`, called from
/// inside downstream's `receive(subscription:)` or `receive(_:)`: the completion then waits for
/// the outermost call to return.
///
/// Its methods are `final`: a subclass's per-value `receive(_:)` calls them directly, so they are
/// specialized with it (a method reached through a generic class's vtable runs unspecialized).
@usableFromInline
class TriggeredSubscription<Downstream: Subscriber>: Subscription, CensusScoped, @unchecked Sendable {
  @usableFromInline
  enum Link {
    case awaiting
    case active(any Subscription)
    case done
  }

  @usableFromInline
  struct State {
    @usableFromInline
    var downstream: Downstream?
    @usableFromInline
    var upstream = Link.awaiting
    @usableFromInline
    var trigger = Link.awaiting
    // Requested and not yet answered: what to ask of upstream when its subscription arrives,
    // and, until the trigger, what upstream may still send (`drop(untilOutputFrom:)` counts the
    // values it drops against it).
    @usableFromInline
    var outstandingDemand = Subscribers.Demand.none
    // The other publisher has emitted.
    @usableFromInline
    var triggered = false
    // How deep the calls into downstream that are running nest (see the type's comment).
    @usableFromInline
    var delivering = 0
    // A completion decided while `delivering`, for that thread to deliver.
    @usableFromInline
    var pendingCompletion: Subscribers.Completion<Downstream.Failure>?
    @usableFromInline
    var terminal = false

    @inlinable
    init(downstream: Downstream) {
      self.downstream = downstream
    }
  }

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  /// `type` is the subclass, for the census.
  @inlinable
  init(_ type: Any.Type, downstream: Downstream) {
    census = CensusToken(type, inheritingFrom: downstream)
    state = Locked(State(downstream: downstream))
  }

  // MARK: Upstream

  /// Upstream completed. `announced`: downstream already has its subscription even if upstream
  /// has not sent its own, so the completion goes on; otherwise the stream ends without a word
  /// to downstream, which was never subscribed. Either way the trigger is cancelled.
  @inlinable
  final func upstreamCompleted(_ completion: Subscribers.Completion<Downstream.Failure>, announced: Bool) {
    // The subscriber leaves after the lock (the third element, dropped); see `cancel()`.
    let (downstream, trigger, _) = state.withLock {
      state -> (Downstream?, (any Subscription)?, Downstream?) in
      guard !state.terminal else { return (nil, nil, nil) }
      if case .awaiting = state.upstream, !announced {
        state.terminal = true
        state.upstream = .done
        defer { state.downstream = nil }
        return (nil, take(&state.trigger), state.downstream)
      }
      state.upstream = .done
      return (end(&state, with: completion), take(&state.trigger), nil)
    }
    trigger?.cancel()
    downstream?.receive(completion: completion)
  }

  // MARK: The other publisher

  @inlinable
  final func triggerReceive(subscription: any Subscription) {
    let accepted = state.withLock { state -> Bool in
      guard case .awaiting = state.trigger, !state.terminal else { return false }
      state.trigger = .active(subscription)
      return true
    }
    if accepted {
      subscription.request(.max(1))
    } else {
      subscription.cancel()
    }
  }

  // MARK: Subscription

  /// Passes the demand on to upstream as it is, `.none` included: both operators accept it, as
  /// in Combine.
  @inlinable
  final func request(_ demand: Subscribers.Demand) {
    let upstream = state.withLock { state -> (any Subscription)? in
      guard !state.terminal else { return nil }
      state.outstandingDemand += demand
      guard case .active(let upstream) = state.upstream else { return nil }
      return upstream
    }
    upstream?.request(demand)
  }

  @usableFromInline
  final func cancel() {
    // The subscriber leaves after the lock (the third element, dropped): its deinit may cancel
    // this subscription.
    let (upstream, trigger, _) = state.withLock {
      state -> ((any Subscription)?, (any Subscription)?, Downstream?) in
      guard !state.terminal else { return (nil, nil, nil) }
      state.terminal = true
      state.pendingCompletion = nil
      defer { state.downstream = nil }
      return (take(&state.upstream), take(&state.trigger), state.downstream)
    }
    upstream?.cancel()
    trigger?.cancel()
  }

  // MARK: Helpers

  /// Ends the stream in `state`: returns the subscriber to complete now, or `nil` if the thread
  /// inside a call into it will complete it when that call returns.
  @usableFromInline
  final func end(_ state: inout State, with completion: Subscribers.Completion<Downstream.Failure>) -> Downstream? {
    state.terminal = true
    if state.delivering > 0 {
      state.pendingCompletion = completion
      return nil
    }
    defer { state.downstream = nil }
    return state.downstream
  }

  /// Called by the thread that raised `delivering` once its call into downstream returned.
  @inlinable
  final func endDelivery(to downstream: Downstream) {
    let completion = state.withLock { state -> Subscribers.Completion<Downstream.Failure>? in
      state.delivering -= 1
      guard state.delivering == 0, let completion = state.pendingCompletion else { return nil }
      state.pendingCompletion = nil
      state.downstream = nil
      return completion
    }
    if let completion { downstream.receive(completion: completion) }
  }

  @inlinable
  final func take(_ link: inout Link) -> (any Subscription)? {
    defer { link = .done }
    if case .active(let subscription) = link { return subscription }
    return nil
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

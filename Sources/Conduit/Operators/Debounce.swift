import Synchronization

extension Publishers {
  /// A publisher that publishes elements only after a specified time interval elapses between
  /// events.
  ///
  /// Each element from the upstream waits for `dueTime`; a newer element replaces it and waits
  /// again, so only an element followed by a quiet period reaches the downstream, on `scheduler`.
  /// As in Combine, it asks the upstream for unlimited elements, drops an element that comes due
  /// while the downstream has no demand, drops the element still waiting when the upstream
  /// completes, and delivers the completion through `scheduler`.
  ///
  /// Unlike Combine, which schedules a timer for every element, a subscription keeps at most one
  /// timer pending and moves its deadline: a burst of elements costs one timer (see
  /// <doc:DifferencesFromCombine>, §12).
  ///
  /// ```swift
  /// let cancellable = searchField.textPublisher
  ///     .debounce(for: .milliseconds(300), scheduler: DispatchQueue.main)
  ///     .sink { query in search(query) }
  /// ```
  public struct Debounce<Upstream: Publisher, Context: Scheduler>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The amount of time the publisher should wait before publishing an element.
    public let dueTime: Context.SchedulerTimeType.Stride

    /// The scheduler on which this publisher delivers elements.
    public let scheduler: Context

    /// Scheduler options that customize this publisher's delivery of elements.
    public let options: Context.SchedulerOptions?

    /// Creates a publisher that publishes elements only after `dueTime` elapses between events.
    ///
    /// ```swift
    /// let debounced = Publishers.Debounce(
    ///     upstream: subject, dueTime: .seconds(1), scheduler: DispatchQueue.main, options: nil)
    /// ```
    @inlinable
    public init(
      upstream: Upstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context,
      options: Context.SchedulerOptions?
    ) {
      self.upstream = upstream
      self.dueTime = dueTime
      self.scheduler = scheduler
      self.options = options
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        DebounceInner(downstream: subscriber, dueTime: dueTime, scheduler: scheduler, options: options))
    }
  }
}

/// The decisions of a `debounce` subscription, kept apart from its calls out (DESIGN.md §3):
/// each event updates the state under the subscription's lock and says what the subscription
/// does once the lock is released.
///
/// The element waiting for its quiet period is `pending`; `timer` is the one timer kept pending
/// for it (see `DeadlineTimer`). Elements come due and the completion comes through the
/// scheduler, possibly on several threads at once, so what is due waits in `ready` and in the
/// state for the call that owns delivery (see `DeliveryOwnership`); the subscribing call owns it
/// from the start, so that nothing reaches the downstream before its subscription. Values and
/// cancellables leave the machine inside the actions, to be released after the lock.
@usableFromInline
struct DebounceStateMachine<Input, Failure: Error, Time: Strideable> {
  @usableFromInline
  enum State {
    case awaitingSubscription
    /// Taking elements from `upstream`.
    case subscribed
    /// The upstream completed; its completion is on its way through the scheduler.
    case completing(Subscribers.Completion<Failure>)
    /// The scheduler ran the completion: it goes out after the elements that came due before it.
    case completionDue(Subscribers.Completion<Failure>)
    /// The downstream has its completion, or cancelled.
    case terminal
  }

  /// What to do after an element from the upstream.
  @usableFromInline
  enum ValueAction {
    /// No timer to arm: let go of the element replaced, or of this one when it is ignored.
    case release(Input?)
    /// Arm timer `generation` for the element's deadline, and let go of the element replaced.
    case arm(generation: UInt64, releasing: Input?)
  }

  /// What to do after a timer fired.
  @usableFromInline
  enum TimerAction {
    /// A stale timer, or the stream is no longer subscribed.
    case none
    /// The element came due: cancel the timer that fired, and let go of the element when it was
    /// dropped for lack of demand (`nil` when nothing was pending, or when it waits for the call
    /// that owns delivery).
    case stopTimer((any Cancellable)?, dropping: Input?)
    /// The element came due and this call owns delivery: cancel the timer that fired, deliver
    /// the element, then drain.
    case deliver(Input, stoppingTimer: (any Cancellable)?)
    /// The deadline moved: cancel the timer that fired, then arm timer `generation` for
    /// `deadline`.
    case rearm(generation: UInt64, deadline: Time, stoppingTimer: (any Cancellable)?)
  }

  /// What to do after the upstream's completion.
  @usableFromInline
  enum CompletionAction {
    /// Ignored: before the subscription, or after the end.
    case none
    /// Cancel the pending timer, let go of the element that was waiting, then schedule the
    /// completion's delivery.
    case schedule(stoppingTimer: (any Cancellable)?, dropping: Input?)
  }

  /// What to do after the downstream's cancel.
  @usableFromInline
  enum CancelAction {
    /// Ignored: before the subscription, as in Combine, or after the end.
    case none
    /// The stream has ended: cancel and let go of what it held, and let the downstream go.
    case release(Released)
  }

  /// What the owner of delivery does next.
  @usableFromInline
  enum Delivery {
    case deliver(Input)
    /// Deliver the completion; the stream has ended.
    case complete(Subscribers.Completion<Failure>)
    /// Nothing to deliver: delivery was given back, or the stream has ended.
    case idle
  }

  /// What a cancel lets go of, after the lock.
  @usableFromInline
  struct Released {
    @usableFromInline
    var upstream: (any Subscription)?
    @usableFromInline
    var timer: (any Cancellable)?
    @usableFromInline
    var pending: Input?
    @usableFromInline
    var ready = ValueQueue<Input>()

    @inlinable
    init() {}
  }

  @usableFromInline
  var state = State.awaitingSubscription
  /// The upstream's subscription, until the upstream completes or the downstream cancels. It is
  /// kept beside the state rather than in its payload: reading a state that holds an existential
  /// copies it, and the per-value path reads the state ("a burst of values through debounce",
  /// 40 % per value).
  @usableFromInline
  var upstream: (any Subscription)?
  @usableFromInline
  var timer = DeadlineTimer<Time>()
  /// The latest element, waiting for its quiet period.
  @usableFromInline
  var pending: Input?
  /// Requested by the downstream and not yet used.
  @usableFromInline
  var demand = Subscribers.Demand.none
  /// Elements that came due with demand, waiting for the call that owns delivery.
  @usableFromInline
  var ready = ValueQueue<Input>()
  /// Which call owns the downstream; the subscribing call, from the start.
  @usableFromInline
  var delivery = DeliveryOwnership(claimed: true)

  @inlinable
  init() {}

  /// The upstream's subscription: whether to take it (the first one only).
  @usableFromInline
  mutating func receive(subscription: any Subscription) -> Bool {
    guard case .awaitingSubscription = state else { return false }
    state = .subscribed
    upstream = subscription
    return true
  }

  /// An element from the upstream, due at `deadline`: it replaces the pending one, and a timer is
  /// armed for it when none is pending. Ignored before the subscription and after the end.
  @inlinable
  mutating func receive(_ input: Input, deadline: Time) -> ValueAction {
    guard case .subscribed = state else { return .release(input) }
    let replaced = pending
    pending = input
    guard let generation = timer.move(to: deadline) else { return .release(replaced) }
    return .arm(generation: generation, releasing: replaced)
  }

  /// Timer `generation` fired at `now`. When the pending element is due it goes out if the
  /// downstream has demand, and is dropped otherwise, as in Combine.
  @inlinable
  mutating func timerFired(_ generation: UInt64, at now: Time) -> TimerAction {
    guard case .subscribed = state else { return .none }
    var fired: (any Cancellable)?
    switch timer.fired(generation, at: now, cancelling: &fired) {
    case .stale:
      return .none
    case .early(let generation):
      return .rearm(generation: generation, deadline: timer.deadline!, stoppingTimer: fired)
    case .due:
      guard let value = pending.take() else { return .stopTimer(fired, dropping: nil) }
      guard demand > .none else { return .stopTimer(fired, dropping: value) }
      if demand != .unlimited { demand -= 1 }
      guard delivery.claim() else {
        ready.append(value)
        return .stopTimer(fired, dropping: nil)
      }
      return .deliver(value, stoppingTimer: fired)
    }
  }

  /// The upstream's completion: the element still waiting is dropped, the timer stopped, and the
  /// completion scheduled.
  @usableFromInline
  mutating func receive(completion: Subscribers.Completion<Failure>) -> CompletionAction {
    guard case .subscribed = state else { return .none }
    state = .completing(completion)
    upstream = nil
    return .schedule(stoppingTimer: timer.stop(), dropping: pending.take())
  }

  /// The scheduler ran the completion: returns whether this call owns delivery and drains.
  @usableFromInline
  mutating func completionCameDue() -> Bool {
    guard case .completing(let completion) = state else { return false }
    state = .completionDue(completion)
    return delivery.claim()
  }

  /// A request from the downstream; `.none` too, and one before the subscription is ignored.
  @inlinable
  mutating func request(_ more: Subscribers.Demand) {
    guard case .subscribed = state else { return }
    demand += more
  }

  /// The downstream's cancel: ends the stream, handing what it held to the action. One before
  /// the subscription is ignored, as in Combine.
  @usableFromInline
  mutating func cancel() -> CancelAction {
    var released = Released()
    switch state {
    case .subscribed, .completing, .completionDue:
      break
    case .awaitingSubscription, .terminal:
      return .none
    }
    state = .terminal
    swap(&released.upstream, &upstream)
    released.timer = timer.stop()
    swap(&released.pending, &pending)
    swap(&released.ready, &ready)
    return .release(released)
  }

  /// Asked by the owner of delivery, after adding the demand the last element returned: the
  /// next element that came due, then the completion once the scheduler has run it.
  @inlinable
  mutating func nextDelivery(adding more: Subscribers.Demand) -> Delivery {
    switch state {
    case .subscribed, .completing, .completionDue:
      if case .subscribed = state { demand += more }
      if let next = ready.popFirst() { return .deliver(next) }
      if case .completionDue(let completion) = state {
        state = .terminal
        return .complete(completion)
      }
      delivery.giveBack()
      return .idle
    case .awaitingSubscription:
      delivery.giveBack()
      return .idle
    case .terminal:
      return .idle
    }
  }
}

/// A `debounce` subscription; its decisions are a `DebounceStateMachine`'s.
///
/// Described, reflected and shown in playgrounds as Combine's: "Debounce", with the downstream,
/// its demand not yet met and the element waiting.
@usableFromInline
final class DebounceInner<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped
{
  @usableFromInline
  typealias Input = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure
  @usableFromInline
  typealias Machine = DebounceStateMachine<Input, Failure, Context.SchedulerTimeType>

  @usableFromInline
  typealias State = MachineAndDownstream<Machine, Downstream>

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
  @usableFromInline
  let dueTime: Context.SchedulerTimeType.Stride
  @usableFromInline
  let scheduler: Context
  @usableFromInline
  let options: Context.SchedulerOptions?
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var description: String { "Debounce" }
  @usableFromInline
  var playgroundDescription: Any { description }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @usableFromInline
  var customMirror: Mirror {
    let (downstream, demand, pending) = state.withLock { ($0.downstream, $0.machine.demand, $0.machine.pending) }
    let downstreamChild: Any = if let downstream { downstream } else { downstream as Any }
    let children: [Mirror.Child] = [
      ("downstream", downstreamChild), ("downstreamDemand", demand), ("currentValue", pending as Any),
    ]
    return Mirror(self, children: children)
  }

  @inlinable
  init(
    downstream: Downstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context,
    options: Context.SchedulerOptions?
  ) {
    census = CensusToken(DebounceInner.self, inheritingFrom: downstream)
    state = Locked(State(machine: Machine(), downstream: downstream))
    self.dueTime = dueTime
    self.scheduler = scheduler
    self.options = options
  }

  // MARK: Upstream

  @usableFromInline
  func receive(subscription: any Subscription) {
    let downstream = state.withLock { state -> Downstream?? in
      state.machine.receive(subscription: subscription) ? .some(state.downstream) : nil
    }
    guard let downstream else {
      subscription.cancel()
      return
    }
    downstream?.receive(subscription: self)
    // This call has owned the downstream since the start.
    drain(more: .none)
    // As in Combine, the upstream is asked after the downstream has its subscription.
    subscription.request(.unlimited)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    let deadline = scheduler.now.advanced(by: dueTime)
    // The element replaced leaves with the action, released after the lock.
    let action = state.withLock { $0.machine.receive(input, deadline: deadline) }
    if case .arm(let timer, _) = action { arm(timer, at: deadline) }
    return .none
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    guard case .schedule(let timer, _) = state.withLock({ $0.machine.receive(completion: completion) }) else {
      return
    }
    timer?.cancel()
    // As in Combine, without the options.
    scheduler.schedule(options: nil) { [self] in
      if state.withLock({ $0.machine.completionCameDue() }) { drain(more: .none) }
    }
  }

  // MARK: Downstream

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    state.withLock { $0.machine.request(demand) }
  }

  @usableFromInline
  func cancel() {
    // What the stream held leaves after the lock: deinits may call back into this subscription.
    var downstream: Downstream?
    let action = state.withLock { state in
      let action = state.machine.cancel()
      if case .release = action { swap(&downstream, &state.downstream) }
      return action
    }
    guard case .release(let released) = action else { return }
    released.timer?.cancel()
    released.upstream?.cancel()
    withExtendedLifetime(downstream) {}
  }

  // MARK: Timer

  /// Schedules timer `generation` for `deadline`. The action holds this subscription, as in
  /// Combine, until the timer is cancelled: when it has fired, or when the stream ends.
  @inlinable
  func arm(_ generation: UInt64, at deadline: Context.SchedulerTimeType) {
    let cancellable = scheduler.schedule(
      after: deadline, interval: dueTime, tolerance: scheduler.minimumTolerance, options: options
    ) { [self] in
      timerFired(generation)
    }
    state.withLock { $0.machine.timer.armed(generation, cancellable) }?.cancel()
  }

  @inlinable
  func timerFired(_ generation: UInt64) {
    let now = scheduler.now
    var downstream: Downstream?
    let action = state.withLock { state in
      let action = state.machine.timerFired(generation, at: now)
      if case .deliver = action { downstream = state.downstream }
      return action
    }
    switch action {
    case .none:
      break
    case .stopTimer(let timer, _):
      timer?.cancel()
    case .deliver(let value, let timer):
      timer?.cancel()
      let more = downstream?.receive(value) ?? .none
      downstream = nil
      drain(more: more)
    case .rearm(let next, let deadline, let timer):
      timer?.cancel()
      arm(next, at: deadline)
    }
  }

  // MARK: Delivery

  /// Runs while this call owns the downstream: delivers what the state machine says, starting
  /// with the demand `initial` the last delivery returned.
  @inlinable
  func drain(more initial: Subscribers.Demand) {
    var more = initial
    var downstream: Downstream?
    state.drain { state -> NextDelivery<Machine.Delivery> in
      let step = state.machine.nextDelivery(adding: more)
      switch step {
      case .deliver:
        downstream = state.downstream
        return .perform(step)
      case .complete:
        swap(&downstream, &state.downstream)
        return .performAndStop(step)
      case .idle:
        return .stop
      }
    } perform: { step in
      switch step {
      case .deliver(let value): more = downstream?.receive(value) ?? .none
      case .complete(let completion): downstream?.receive(completion: completion)
      case .idle: break
      }
    }
  }
}

extension Publisher {
  /// Publishes elements only after a specified time interval elapses between events.
  ///
  /// An element goes out, on `scheduler`, once `dueTime` has passed without a newer one; a
  /// newer one replaces it. The element still waiting when the upstream completes is dropped.
  ///
  /// ```swift
  /// let cancellable = subject
  ///     .debounce(for: .seconds(0.5), scheduler: RunLoop.main)
  ///     .sink { print($0) }
  /// ```
  ///
  /// - Parameters:
  ///   - dueTime: The time the publisher should wait before publishing an element.
  ///   - scheduler: The scheduler on which this publisher delivers elements.
  ///   - options: Scheduler options that customize this publisher's delivery of elements.
  /// - Returns: A publisher that publishes events only after a specified time elapses.
  @inlinable
  public func debounce<S: Scheduler>(
    for dueTime: S.SchedulerTimeType.Stride, scheduler: S, options: S.SchedulerOptions? = nil
  ) -> Publishers.Debounce<Self, S> {
    Publishers.Debounce(upstream: self, dueTime: dueTime, scheduler: scheduler, options: options)
  }
}

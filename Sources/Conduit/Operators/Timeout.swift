import Synchronization

extension Publishers {
  /// A publisher that terminates publishing if the upstream publisher exceeds the specified time
  /// interval without producing an element.
  ///
  /// As in Combine: the clock starts when the upstream's subscription arrives, starts again at
  /// the downstream's first request and at every element, and, when `interval` passes without an
  /// element, cancels the upstream and fails with `customError()`, or finishes when there is no
  /// `customError`. Elements and the upstream's completion are delivered on `scheduler`; the
  /// downstream's requests go straight to the upstream.
  ///
  /// Unlike Combine, which schedules a timer for every element, a subscription keeps at most one
  /// timer pending and moves its deadline (see <doc:DifferencesFromCombine>, §12).
  ///
  /// ```swift
  /// let cancellable = api.response
  ///     .timeout(.seconds(30), scheduler: DispatchQueue.main, customError: { .timedOut })
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { show($0) })
  /// ```
  public struct Timeout<Upstream: Publisher, Context: Scheduler>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The maximum time interval the publisher can go without emitting an element, expressed in
    /// the time system of the scheduler.
    public let interval: Context.SchedulerTimeType.Stride

    /// The scheduler on which to deliver events.
    public let scheduler: Context

    /// Scheduler options that customize the delivery of elements.
    public let options: Context.SchedulerOptions?

    /// A closure that executes if the publisher times out; the publisher sends the failure it
    /// returns to the subscriber as the reason for termination.
    public let customError: (() -> Upstream.Failure)?

    /// Creates a publisher that terminates if the upstream goes `interval` without an element.
    ///
    /// ```swift
    /// let limited = Publishers.Timeout(
    ///     upstream: subject, interval: .seconds(5), scheduler: DispatchQueue.main, options: nil,
    ///     customError: nil)
    /// ```
    @inlinable
    public init(
      upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context,
      options: Context.SchedulerOptions?, customError: (() -> Publishers.Timeout<Upstream, Context>.Failure)?
    ) {
      self.upstream = upstream
      self.interval = interval
      self.scheduler = scheduler
      self.options = options
      self.customError = customError
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    ///
    /// With the `ImmediateScheduler`, which runs the timeout at once, the subscriber receives its
    /// subscription and then the timeout's completion (Combine crashes on its own lock; see
    /// <doc:DifferencesFromCombine>, §3).
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        TimeoutInner(
          downstream: subscriber, interval: interval, scheduler: scheduler, options: options,
          customError: customError))
    }
  }
}

/// The decisions of a `timeout` subscription, kept apart from its calls out (DESIGN.md §3):
/// each event updates the state under the subscription's lock and says what the subscription
/// does once the lock is released.
///
/// `timer` is the one timer kept pending for the deadline (see `DeadlineTimer`). As in Combine,
/// each element and the completion are handed to the downstream through the scheduler: they
/// wait in `queued`, in the upstream's order, and each scheduled delivery that runs (`hops`)
/// lets the next one go, so that they keep their order even on a concurrent scheduler.
/// Deliveries may run on several threads at once: the call that owns delivery (see
/// `DeliveryOwnership`) delivers what is let go; the subscribing call owns it from the start.
/// Values, closures and subscriptions leave the machine inside the actions, to be released after
/// the lock.
@usableFromInline
struct TimeoutStateMachine<Input, Failure: Error, Time: Strideable> {
  /// As in Combine, the upstream is kept, to be asked and cancelled, until the completion has
  /// gone out.
  @usableFromInline
  enum State {
    case awaitingSubscription
    case subscribed(upstream: any Subscription)
    /// The upstream completed; its completion waits behind the elements queued.
    case completing(upstream: any Subscription, Subscribers.Completion<Failure>)
    /// The deadline passed: the upstream is being cancelled, and the completion made.
    case timingOut
    /// The timeout's completion, made: it goes out at once.
    case timedOut(Subscribers.Completion<Failure>)
    /// The downstream has its completion, or cancelled.
    case terminal
  }

  /// What to do after an element from the upstream.
  @usableFromInline
  enum ValueAction {
    /// Ignored, before the subscription or after the end: let go of it after the lock.
    case release(Input)
    /// Arm timer `arming`, when the deadline needs a new one, then schedule the element's
    /// delivery.
    case scheduleDelivery(arming: UInt64?)
  }

  /// What to do after the upstream's completion.
  @usableFromInline
  enum CompletionAction {
    /// Ignored: before the subscription, or after the end.
    case none
    /// Cancel the pending timer, then schedule the completion's delivery.
    case scheduleDelivery(stoppingTimer: (any Cancellable)?)
  }

  /// What to do after a request from the downstream.
  @usableFromInline
  enum RequestAction {
    /// Nothing: before the subscription, or after the end.
    case none
    /// Hand the request to the upstream.
    case forward(to: any Subscription)
    /// The downstream's first request: restart the clock (see `restartClock`), then hand the
    /// request to the upstream.
    case restartClockAndForward(to: any Subscription)
  }

  /// What to do after the timer fired.
  @usableFromInline
  enum TimerAction {
    /// A stale timer, or the stream is no longer subscribed.
    case none
    /// The deadline moved: cancel the timer that fired, then arm timer `generation` for
    /// `deadline`.
    case rearm(generation: UInt64, deadline: Time, stoppingTimer: (any Cancellable)?)
    /// The deadline passed: cancel the timer that fired and the upstream, let go of the elements
    /// still queued, make the completion with `makeError` (a finish without it), and report it
    /// with `timedOut`.
    case timeOut(
      stoppingTimer: (any Cancellable)?, cancellingUpstream: any Subscription, makeError: (() -> Failure)?,
      dropping: ValueQueue<Input>)
  }

  /// What to do after the downstream's cancel.
  @usableFromInline
  enum CancelAction {
    /// Ignored: before the subscription, as in Combine, or after the end.
    case none
    /// The stream has ended: cancel and let go of what it held, and let the downstream go.
    case release(Released)
  }

  /// What the owner of delivery does next: hand the demand the last element returned to the
  /// upstream, `forwardingTo`, when there is demand to hand, then perform `step`.
  @usableFromInline
  struct Work {
    @usableFromInline
    var forwardingTo: (any Subscription)?
    @usableFromInline
    var step: Delivery

    @inlinable
    init(forwardingTo: (any Subscription)?, _ step: Delivery) {
      self.forwardingTo = forwardingTo
      self.step = step
    }
  }

  /// What the owner of delivery delivers next.
  @usableFromInline
  enum Delivery {
    case deliver(Input)
    /// Deliver the completion, then let go of the upstream kept until then, if any; the stream
    /// has ended.
    case complete(Subscribers.Completion<Failure>, releasing: (any Subscription)?)
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
    var queued = ValueQueue<Input>()
    @usableFromInline
    var customError: (() -> Failure)?

    @inlinable
    init() {}
  }

  @usableFromInline
  var state = State.awaitingSubscription
  @usableFromInline
  var timer = DeadlineTimer<Time>()
  /// Whether the downstream has requested anything yet: its first request restarts the clock.
  @usableFromInline
  var hasRequested = false
  /// Elements waiting for their scheduled delivery, in the upstream's order.
  @usableFromInline
  var queued = ValueQueue<Input>()
  /// Scheduled deliveries that have run and not yet let an element or the completion go.
  @usableFromInline
  var hops = 0
  @usableFromInline
  var customError: (() -> Failure)?
  /// Which call owns the downstream; the subscribing call, from the start.
  @usableFromInline
  var delivery = DeliveryOwnership(claimed: true)

  @inlinable
  init(customError: (() -> Failure)?) {
    self.customError = customError
  }

  /// The upstream's subscription, the clock starting with the deadline `deadline`: returns the
  /// timer to arm, or `nil` to cancel the subscription (a second one).
  @usableFromInline
  mutating func receive(subscription: any Subscription, deadline: Time) -> UInt64? {
    guard case .awaitingSubscription = state else { return nil }
    state = .subscribed(upstream: subscription)
    return timer.move(to: deadline)
  }

  /// An element from the upstream, the clock starting again with the deadline `deadline`.
  @inlinable
  mutating func receive(_ input: Input, deadline: Time) -> ValueAction {
    guard case .subscribed = state else { return .release(input) }
    let arming = timer.move(to: deadline)
    queued.append(input)
    return .scheduleDelivery(arming: arming)
  }

  /// The upstream's completion: the timer stops, and the completion waits behind the elements
  /// queued.
  @usableFromInline
  mutating func receive(completion: Subscribers.Completion<Failure>) -> CompletionAction {
    guard case .subscribed(let upstream) = state else { return .none }
    state = .completing(upstream: upstream, completion)
    return .scheduleDelivery(stoppingTimer: timer.stop())
  }

  /// A scheduled delivery ran: returns whether this call owns delivery and drains.
  @usableFromInline
  mutating func deliveryCameDue() -> Bool {
    switch state {
    case .subscribed, .completing:
      hops += 1
      return delivery.claim()
    case .awaitingSubscription, .timingOut, .timedOut, .terminal:
      return false
    }
  }

  /// A request from the downstream, `.none` too, as in Combine: it goes to the upstream, and the
  /// first one restarts the clock.
  @inlinable
  mutating func request() -> RequestAction {
    switch state {
    case .subscribed(let upstream):
      guard hasRequested else {
        hasRequested = true
        return .restartClockAndForward(to: upstream)
      }
      return .forward(to: upstream)
    case .completing(let upstream, _):
      return .forward(to: upstream)
    case .awaitingSubscription, .timingOut, .timedOut, .terminal:
      return .none
    }
  }

  /// The clock starts again for the first request, with the deadline `deadline`: returns the
  /// timer to arm, if none is pending.
  @inlinable
  mutating func restartClock(deadline: Time) -> UInt64? {
    guard case .subscribed = state else { return nil }
    return timer.move(to: deadline)
  }

  /// Timer `generation` fired at `now`: the deadline moved, or passed.
  @inlinable
  mutating func timerFired(_ generation: UInt64, at now: Time) -> TimerAction {
    guard case .subscribed(let upstream) = state else { return .none }
    var fired: (any Cancellable)?
    switch timer.fired(generation, at: now, cancelling: &fired) {
    case .stale:
      return .none
    case .early(let generation):
      return .rearm(generation: generation, deadline: timer.deadline!, stoppingTimer: fired)
    case .due:
      state = .timingOut
      var dropped = ValueQueue<Input>()
      swap(&dropped, &queued)
      hops = 0
      return .timeOut(
        stoppingTimer: fired, cancellingUpstream: upstream, makeError: customError.take(), dropping: dropped)
    }
  }

  /// The timeout's completion, made: returns whether this call owns delivery and drains.
  @usableFromInline
  mutating func timedOut(with completion: Subscribers.Completion<Failure>) -> Bool {
    guard case .timingOut = state else { return false }
    state = .timedOut(completion)
    return delivery.claim()
  }

  /// The downstream's cancel: ends the stream, handing what it held to the action. One before
  /// the subscription is ignored, as in Combine.
  @usableFromInline
  mutating func cancel() -> CancelAction {
    var released = Released()
    switch state {
    case .subscribed(let upstream), .completing(let upstream, _):
      released.upstream = upstream
    case .timingOut, .timedOut:
      break
    case .awaitingSubscription, .terminal:
      return .none
    }
    state = .terminal
    released.timer = timer.stop()
    swap(&released.queued, &queued)
    swap(&released.customError, &customError)
    return .release(released)
  }

  /// Asked by the owner of delivery after the last element returned `more`: the upstream is to
  /// be asked for `more`; then the next element a scheduled delivery let go, then the
  /// completion: the upstream's once every element queued before it has gone (with the
  /// upstream, kept until then), the timeout's at once.
  @inlinable
  mutating func nextDelivery(adding more: Subscribers.Demand) -> Work {
    switch state {
    case .subscribed, .completing:
      // The upstream is read out of the state only when there is demand to hand it.
      let forward = more > .none ? upstream : nil
      if hops > 0 {
        if let next = queued.popFirst() {
          hops -= 1
          return Work(forwardingTo: forward, .deliver(next))
        }
        if case .completing(let upstream, let due) = state {
          return Work(forwardingTo: forward, complete(with: due, releasing: upstream))
        }
      }
      delivery.giveBack()
      return Work(forwardingTo: forward, .idle)
    case .timedOut(let due):
      return Work(forwardingTo: nil, complete(with: due, releasing: nil))
    case .awaitingSubscription, .timingOut:
      delivery.giveBack()
      return Work(forwardingTo: nil, .idle)
    case .terminal:
      return Work(forwardingTo: nil, .idle)
    }
  }

  /// The upstream, while it is kept.
  @inlinable
  var upstream: (any Subscription)? {
    switch state {
    case .subscribed(let upstream), .completing(let upstream, _): upstream
    case .awaitingSubscription, .timingOut, .timedOut, .terminal: nil
    }
  }

  @usableFromInline
  mutating func complete(
    with due: Subscribers.Completion<Failure>, releasing upstream: (any Subscription)?
  ) -> Delivery {
    state = .terminal
    customError = nil
    return .complete(due, releasing: upstream)
  }
}

/// A `timeout` subscription; its decisions are a `TimeoutStateMachine`'s.
///
/// Described and shown in playgrounds as Combine's, "Timeout", and reflected, as Combine's,
/// without children.
@usableFromInline
final class TimeoutInner<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped
{
  @usableFromInline
  typealias Input = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure
  @usableFromInline
  typealias Machine = TimeoutStateMachine<Input, Failure, Context.SchedulerTimeType>

  @usableFromInline
  typealias State = MachineAndDownstream<Machine, Downstream>

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
  @usableFromInline
  let interval: Context.SchedulerTimeType.Stride
  @usableFromInline
  let scheduler: Context
  @usableFromInline
  let options: Context.SchedulerOptions?
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var description: String { "Timeout" }
  @usableFromInline
  var playgroundDescription: Any { description }
  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(
    downstream: Downstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context,
    options: Context.SchedulerOptions?, customError: (() -> Failure)?
  ) {
    census = CensusToken(TimeoutInner.self, inheritingFrom: downstream)
    state = Locked(State(machine: Machine(customError: customError), downstream: downstream))
    self.interval = interval
    self.scheduler = scheduler
    self.options = options
  }

  // MARK: Upstream

  @usableFromInline
  func receive(subscription: any Subscription) {
    let deadline = scheduler.now.advanced(by: interval)
    var downstream: Downstream?
    let timer = state.withLock { state in
      let timer = state.machine.receive(subscription: subscription, deadline: deadline)
      if timer != nil { downstream = state.downstream }
      return timer
    }
    guard let timer else {
      subscription.cancel()
      return
    }
    arm(timer, at: deadline)
    downstream?.receive(subscription: self)
    downstream = nil
    // This call has owned the downstream since the start.
    drain(more: .none)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    let deadline = scheduler.now.advanced(by: interval)
    // An element ignored leaves with the action, released after the lock.
    let action = state.withLock { $0.machine.receive(input, deadline: deadline) }
    if case .scheduleDelivery(let arming) = action {
      if let arming { arm(arming, at: deadline) }
      scheduleDelivery()
    }
    return .none
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    guard case .scheduleDelivery(let timer) = state.withLock({ $0.machine.receive(completion: completion) }) else {
      return
    }
    timer?.cancel()
    scheduleDelivery()
  }

  // MARK: Downstream

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    switch state.withLock({ $0.machine.request() }) {
    case .none:
      break
    case .forward(let upstream):
      upstream.request(demand)
    case .restartClockAndForward(let upstream):
      let deadline = scheduler.now.advanced(by: interval)
      if let timer = state.withLock({ $0.machine.restartClock(deadline: deadline) }) { arm(timer, at: deadline) }
      upstream.request(demand)
    }
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
      after: deadline, interval: interval, tolerance: scheduler.minimumTolerance, options: options
    ) { [self] in
      timerFired(generation)
    }
    state.withLock { $0.machine.timer.armed(generation, cancellable) }?.cancel()
  }

  @inlinable
  func timerFired(_ generation: UInt64) {
    let now = scheduler.now
    // The elements dropped leave with the action, released after the lock.
    let action = state.withLock { $0.machine.timerFired(generation, at: now) }
    switch action {
    case .none:
      break
    case .rearm(let next, let deadline, let timer):
      timer?.cancel()
      arm(next, at: deadline)
    case .timeOut(let timer, let upstream, let makeError, _):
      timer?.cancel()
      // As in Combine: the upstream is cancelled, then the error is made.
      upstream.cancel()
      let completion: Subscribers.Completion<Failure> = makeError.map { .failure($0()) } ?? .finished
      if state.withLock({ $0.machine.timedOut(with: completion) }) { drain(more: .none) }
    }
  }

  // MARK: Delivery

  /// Hands the next element or the completion to the downstream on the scheduler. The action
  /// holds this subscription, as in Combine, until it runs.
  @inlinable
  func scheduleDelivery() {
    scheduler.schedule(options: options) { [self] in
      if state.withLock({ $0.machine.deliveryCameDue() }) { drain(more: .none) }
    }
  }

  /// Runs while this call owns the downstream: delivers what the state machine says, and asks
  /// the upstream for the demand each element returns, as Combine does.
  @inlinable
  func drain(more initial: Subscribers.Demand) {
    var more = initial
    var downstream: Downstream?
    state.drain { state -> NextDelivery<Machine.Work> in
      let work = state.machine.nextDelivery(adding: more)
      switch work.step {
      case .deliver:
        downstream = state.downstream
        return .perform(work)
      case .complete:
        swap(&downstream, &state.downstream)
        return .performAndStop(work)
      case .idle:
        return work.forwardingTo == nil ? .stop : .performAndStop(work)
      }
    } perform: { work in
      work.forwardingTo?.request(more)
      switch work.step {
      case .deliver(let value): more = downstream?.receive(value) ?? .none
      // The upstream kept until the completion goes with the step, once the downstream has it.
      case .complete(let completion, _): downstream?.receive(completion: completion)
      case .idle: break
      }
    }
  }
}

extension Publisher {
  /// Terminates publishing if the upstream publisher exceeds the specified time interval
  /// without producing an element.
  ///
  /// If `customError` is `nil`, the publisher finishes normally on timeout; otherwise the
  /// upstream is cancelled and the error it returns is delivered to the downstream.
  ///
  /// ```swift
  /// let cancellable = subject
  ///     .timeout(.seconds(5), scheduler: DispatchQueue.main)
  ///     .sink(receiveCompletion: { print("completion: \($0)") }, receiveValue: { print($0) })
  /// ```
  ///
  /// - Parameters:
  ///   - interval: The maximum time interval the publisher can go without emitting an element,
  ///     expressed in the time system of the scheduler.
  ///   - scheduler: The scheduler to deliver events on.
  ///   - options: Scheduler options that customize the delivery of elements.
  ///   - customError: A closure that executes if the publisher times out. The publisher sends
  ///     the failure returned by this closure to the subscriber as the reason for termination.
  /// - Returns: A publisher that terminates if the specified interval elapses with no events
  ///   received from the upstream publisher.
  @inlinable
  public func timeout<S: Scheduler>(
    _ interval: S.SchedulerTimeType.Stride, scheduler: S, options: S.SchedulerOptions? = nil,
    customError: (() -> Failure)? = nil
  ) -> Publishers.Timeout<Self, S> {
    Publishers.Timeout(
      upstream: self, interval: interval, scheduler: scheduler, options: options, customError: customError)
  }
}

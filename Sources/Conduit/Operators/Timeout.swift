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
/// Values, closures and subscriptions leave the machine through `inout` parameters, to be
/// released after the lock; the actions are trivial enums.
@usableFromInline
struct TimeoutStateMachine<Input, Failure: Error, Time: Strideable> {
  @usableFromInline
  enum Phase {
    case awaitingSubscription
    case subscribed
    /// The upstream completed; the completion waits behind the elements queued.
    case completing
    /// The deadline passed: the upstream is being cancelled, and the completion made.
    case timingOut
    /// The downstream has its completion, or cancelled.
    case terminal
  }

  /// What to do after the timer fired.
  @usableFromInline
  enum TimerAction {
    case none
    /// The deadline moved: arm timer `generation` for `timer.deadline`.
    case rearm(generation: UInt64)
    /// The deadline passed: cancel the upstream, make the completion with the closure handed
    /// out, and report it with `timedOut`.
    case timeOut
  }

  /// What the owner of delivery does next.
  @usableFromInline
  enum Step {
    /// Deliver the element handed out.
    case deliver
    /// Deliver the completion handed out; the stream has ended.
    case complete
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
  var phase = Phase.awaitingSubscription
  @usableFromInline
  var upstream: (any Subscription)?
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
  /// The upstream's completion (behind `queued`), or the timeout's (at once).
  @usableFromInline
  var completion: Subscribers.Completion<Failure>?
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
    guard case .awaitingSubscription = phase else { return nil }
    phase = .subscribed
    upstream = subscription
    return timer.move(to: deadline)
  }

  /// An element from the upstream, the clock starting again with the deadline `deadline`:
  /// returns whether to schedule its delivery. A timer to arm goes to `arming`; an element
  /// ignored (before the subscription, after the end) to `released`.
  @inlinable
  mutating func receive(_ input: Input, deadline: Time, arming: inout UInt64?, released: inout Input?) -> Bool {
    guard case .subscribed = phase else {
      released = input
      return false
    }
    arming = timer.move(to: deadline)
    queued.append(input)
    return true
  }

  /// The upstream's completion: returns whether to schedule its delivery. The timer is stopped
  /// into `cancelling`.
  @usableFromInline
  mutating func receive(completion: Subscribers.Completion<Failure>, cancelling: inout (any Cancellable)?) -> Bool {
    guard case .subscribed = phase else { return false }
    // As in Combine, the upstream is kept, to be asked and cancelled, until the completion has
    // gone out.
    phase = .completing
    cancelling = timer.stop()
    self.completion = completion
    return true
  }

  /// A scheduled delivery ran: returns whether this call owns delivery and drains.
  @usableFromInline
  mutating func deliveryCameDue() -> Bool {
    switch phase {
    case .subscribed, .completing:
      hops += 1
      return delivery.claim()
    case .awaitingSubscription, .timingOut, .terminal:
      return false
    }
  }

  /// A request from the downstream, `.none` too, as in Combine: returns whether it is the first,
  /// which restarts the clock (see `restartClock`). It goes to the upstream, through `forward`.
  @inlinable
  mutating func request(forwardingTo forward: inout (any Subscription)?) -> Bool {
    switch phase {
    case .subscribed:
      forward = upstream
      defer { hasRequested = true }
      return !hasRequested
    case .completing:
      forward = upstream
      return false
    case .awaitingSubscription, .timingOut, .terminal:
      return false
    }
  }

  /// The clock starts again for the first request, with the deadline `deadline`: returns the
  /// timer to arm, if none is pending.
  @inlinable
  mutating func restartClock(deadline: Time) -> UInt64? {
    guard case .subscribed = phase else { return nil }
    return timer.move(to: deadline)
  }

  /// Timer `generation` fired at `now`. When the deadline has passed, the upstream to cancel
  /// goes to `cancellingUpstream`, the closure that makes the error to `makeError`, and the
  /// elements still queued, dropped, to `dropped`. The timer's cancellable goes to `cancelling`.
  @inlinable
  mutating func timerFired(
    _ generation: UInt64, at now: Time, cancelling: inout (any Cancellable)?,
    cancellingUpstream: inout (any Subscription)?, makeError: inout (() -> Failure)?, dropped: inout ValueQueue<Input>
  ) -> TimerAction {
    guard case .subscribed = phase else { return .none }
    switch timer.fired(generation, at: now, cancelling: &cancelling) {
    case .stale:
      return .none
    case .early(let generation):
      return .rearm(generation: generation)
    case .due:
      phase = .timingOut
      swap(&cancellingUpstream, &upstream)
      swap(&makeError, &customError)
      swap(&dropped, &queued)
      hops = 0
      return .timeOut
    }
  }

  /// The timeout's completion, made: returns whether this call owns delivery and drains.
  @usableFromInline
  mutating func timedOut(with completion: Subscribers.Completion<Failure>) -> Bool {
    guard case .timingOut = phase else { return false }
    self.completion = completion
    return delivery.claim()
  }

  /// The downstream's cancel: returns whether it ended the stream, handing what the stream held
  /// to `released`. One before the subscription is ignored, as in Combine.
  @usableFromInline
  mutating func cancel(released: inout Released) -> Bool {
    switch phase {
    case .subscribed, .completing, .timingOut:
      phase = .terminal
      swap(&released.upstream, &upstream)
      released.timer = timer.stop()
      swap(&released.queued, &queued)
      swap(&released.customError, &customError)
      completion = nil
      return true
    case .awaitingSubscription, .terminal:
      return false
    }
  }

  /// Asked by the owner of delivery after the last element returned `more`: the upstream to ask
  /// for `more` goes to `forward`; then the next element a scheduled delivery let go (into
  /// `value`), then the completion (into `completion`): the upstream's once every element queued
  /// before it has gone (the upstream, kept until then, goes to `released`), the timeout's at
  /// once.
  @inlinable
  mutating func nextStep(
    adding more: Subscribers.Demand, forwardingTo forward: inout (any Subscription)?, value: inout Input?,
    completion: inout Subscribers.Completion<Failure>?, releasing released: inout (any Subscription)?
  ) -> Step {
    switch phase {
    case .subscribed, .completing:
      if more > .none { forward = upstream }
      if hops > 0 {
        if let next = queued.popFirst() {
          hops -= 1
          value = next
          return .deliver
        }
        if case .completing = phase, let due = self.completion {
          swap(&released, &upstream)
          return complete(with: due, into: &completion)
        }
      }
    case .timingOut:
      if let due = self.completion { return complete(with: due, into: &completion) }
    case .awaitingSubscription:
      break
    case .terminal:
      return .idle
    }
    delivery.giveBack()
    return .idle
  }

  @usableFromInline
  mutating func complete(
    with due: Subscribers.Completion<Failure>, into completion: inout Subscribers.Completion<Failure>?
  ) -> Step {
    phase = .terminal
    self.completion = nil
    customError = nil
    completion = due
    return .complete
  }
}

/// A `timeout` subscription; its decisions are a `TimeoutStateMachine`'s.
///
/// Described and shown in playgrounds as Combine's, "Timeout", and reflected, as Combine's,
/// without children.
@usableFromInline
final class TimeoutInner<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped, @unchecked Sendable
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
    var arming: UInt64?
    // An element ignored is released after the lock.
    var released: Input?
    let schedules = state.withLock {
      $0.machine.receive(input, deadline: deadline, arming: &arming, released: &released)
    }
    if let arming { arm(arming, at: deadline) }
    if schedules { scheduleDelivery() }
    return .none
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    var cancelling: (any Cancellable)?
    let schedules = state.withLock { $0.machine.receive(completion: completion, cancelling: &cancelling) }
    cancelling?.cancel()
    if schedules { scheduleDelivery() }
  }

  // MARK: Downstream

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    var upstream: (any Subscription)?
    if state.withLock({ $0.machine.request(forwardingTo: &upstream) }) {
      let deadline = scheduler.now.advanced(by: interval)
      if let timer = state.withLock({ $0.machine.restartClock(deadline: deadline) }) { arm(timer, at: deadline) }
    }
    upstream?.request(demand)
  }

  @usableFromInline
  func cancel() {
    // What the stream held leaves after the lock: deinits may call back into this subscription.
    var released = Machine.Released()
    var downstream: Downstream?
    state.withLock { state in
      if state.machine.cancel(released: &released) { swap(&downstream, &state.downstream) }
    }
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
    var cancelling: (any Cancellable)?
    var upstream: (any Subscription)?
    var makeError: (() -> Failure)?
    var dropped = ValueQueue<Input>()
    var deadline: Context.SchedulerTimeType?
    let action = state.withLock { state in
      let action = state.machine.timerFired(
        generation, at: now, cancelling: &cancelling, cancellingUpstream: &upstream, makeError: &makeError,
        dropped: &dropped)
      if case .rearm = action { deadline = state.machine.timer.deadline }
      return action
    }
    cancelling?.cancel()
    switch action {
    case .none:
      break
    case .rearm(let next):
      arm(next, at: deadline!)
    case .timeOut:
      // As in Combine: the upstream is cancelled, then the error is made.
      upstream?.cancel()
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
    var forward: (any Subscription)?
    var value: Input?
    var completion: Subscribers.Completion<Failure>?
    var downstream: Downstream?
    var upstream: (any Subscription)?
    state.drain { state -> NextDelivery<Machine.Step> in
      let step = state.machine.nextStep(
        adding: more, forwardingTo: &forward, value: &value, completion: &completion, releasing: &upstream)
      switch step {
      case .deliver:
        downstream = state.downstream
        return .perform(step)
      case .complete:
        swap(&downstream, &state.downstream)
        return .performAndStop(step)
      case .idle:
        return forward == nil ? .stop : .performAndStop(step)
      }
    } perform: { step in
      if let upstream = forward.take() { upstream.request(more) }
      switch step {
      case .deliver: more = downstream?.receive(value.take()!) ?? .none
      case .complete: downstream?.receive(completion: completion.take()!)
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

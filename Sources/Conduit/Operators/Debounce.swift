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
/// scheduler, possibly on several threads at once, so what is due waits in `ready` and
/// `completion` for the call that owns delivery (see `DeliveryOwnership`); the subscribing call
/// owns it from the start, so that nothing reaches the downstream before its subscription.
/// Values and cancellables leave the machine through `inout` parameters, to be released after
/// the lock; the actions are trivial enums.
@usableFromInline
struct DebounceStateMachine<Input, Failure: Error, Time: Strideable> {
  @usableFromInline
  enum Phase {
    case awaitingSubscription
    case subscribed
    /// The upstream completed; the completion is on its way through the scheduler.
    case completing
    /// The downstream has its completion, or cancelled.
    case terminal
  }

  /// What to do after a timer fired.
  @usableFromInline
  enum TimerAction {
    case none
    /// This call owns delivery: deliver the element handed out, then drain.
    case deliver
    /// The deadline moved: arm timer `generation` for `timer.deadline`.
    case rearm(generation: UInt64)
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
    var pending: Input?
    @usableFromInline
    var ready = ValueQueue<Input>()

    @inlinable
    init() {}
  }

  @usableFromInline
  var phase = Phase.awaitingSubscription
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
  /// The upstream's completion, held until the scheduler runs it (`completionIsDue`).
  @usableFromInline
  var completion: Subscribers.Completion<Failure>?
  @usableFromInline
  var completionIsDue = false
  /// Which call owns the downstream; the subscribing call, from the start.
  @usableFromInline
  var delivery = DeliveryOwnership(claimed: true)

  @inlinable
  init() {}

  /// The upstream's subscription: whether to take it (the first one only).
  @usableFromInline
  mutating func receive(subscription: any Subscription) -> Bool {
    guard case .awaitingSubscription = phase else { return false }
    phase = .subscribed
    upstream = subscription
    return true
  }

  /// An element from the upstream, due at `deadline`: returns the timer to arm, if none is
  /// pending. The element it replaces, or the element itself when it is ignored (before the
  /// subscription, after the end), goes to `released`.
  @inlinable
  mutating func receive(_ input: Input, deadline: Time, released: inout Input?) -> UInt64? {
    guard case .subscribed = phase else {
      released = input
      return nil
    }
    released = pending
    pending = input
    return timer.move(to: deadline)
  }

  /// Timer `generation` fired at `now`. When the pending element is due it goes out if the
  /// downstream has demand, and is dropped otherwise, as in Combine; either way it is handed to
  /// `value`. The timer's cancellable goes to `cancelling`.
  @inlinable
  mutating func timerFired(
    _ generation: UInt64, at now: Time, value: inout Input?, cancelling: inout (any Cancellable)?
  ) -> TimerAction {
    guard case .subscribed = phase else { return .none }
    switch timer.fired(generation, at: now, cancelling: &cancelling) {
    case .stale:
      return .none
    case .early(let generation):
      return .rearm(generation: generation)
    case .due:
      swap(&value, &pending)
      guard value != nil, demand > .none else { return .none }
      if demand != .unlimited { demand -= 1 }
      guard delivery.claim() else {
        ready.append(value.take()!)
        return .none
      }
      return .deliver
    }
  }

  /// The upstream's completion: returns whether to schedule its delivery. The element still
  /// waiting is dropped into `dropped`, and the timer stopped into `cancelling`.
  @inlinable
  mutating func receive(
    completion: Subscribers.Completion<Failure>, dropped: inout Input?, cancelling: inout (any Cancellable)?
  ) -> Bool {
    guard case .subscribed = phase else { return false }
    phase = .completing
    upstream = nil
    swap(&dropped, &pending)
    cancelling = timer.stop()
    self.completion = completion
    return true
  }

  /// The scheduler ran the completion: returns whether this call owns delivery and drains.
  @usableFromInline
  mutating func completionCameDue() -> Bool {
    guard case .completing = phase, !completionIsDue else { return false }
    completionIsDue = true
    return delivery.claim()
  }

  /// A request from the downstream; `.none` too, and one before the subscription is ignored.
  @inlinable
  mutating func request(_ more: Subscribers.Demand) {
    guard case .subscribed = phase else { return }
    demand += more
  }

  /// The downstream's cancel: returns whether it ended the stream, handing what the stream held
  /// to `released`. One before the subscription is ignored, as in Combine.
  @usableFromInline
  mutating func cancel(released: inout Released) -> Bool {
    switch phase {
    case .subscribed, .completing:
      phase = .terminal
      swap(&released.upstream, &upstream)
      released.timer = timer.stop()
      swap(&released.pending, &pending)
      swap(&released.ready, &ready)
      completion = nil
      return true
    case .awaitingSubscription, .terminal:
      return false
    }
  }

  /// Asked by the owner of delivery, after adding the demand the last element returned: the
  /// next element that came due (into `value`), then the completion once the scheduler has run
  /// it (into `completion`).
  @inlinable
  mutating func nextStep(
    adding more: Subscribers.Demand, value: inout Input?, completion: inout Subscribers.Completion<Failure>?
  ) -> Step {
    switch phase {
    case .subscribed, .completing:
      if case .subscribed = phase { demand += more }
      if let next = ready.popFirst() {
        value = next
        return .deliver
      }
      if completionIsDue, let due = self.completion {
        phase = .terminal
        self.completion = nil
        completion = due
        return .complete
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
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped, @unchecked Sendable
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
    // The element replaced is released after the lock.
    var released: Input?
    if let timer = state.withLock({ $0.machine.receive(input, deadline: deadline, released: &released) }) {
      arm(timer, at: deadline)
    }
    return .none
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    var dropped: Input?
    var cancelling: (any Cancellable)?
    let schedules = state.withLock {
      $0.machine.receive(completion: completion, dropped: &dropped, cancelling: &cancelling)
    }
    cancelling?.cancel()
    guard schedules else { return }
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
      after: deadline, interval: dueTime, tolerance: scheduler.minimumTolerance, options: options
    ) { [self] in
      timerFired(generation)
    }
    state.withLock { $0.machine.timer.armed(generation, cancellable) }?.cancel()
  }

  @inlinable
  func timerFired(_ generation: UInt64) {
    let now = scheduler.now
    var value: Input?
    var cancelling: (any Cancellable)?
    var deadline: Context.SchedulerTimeType?
    var downstream: Downstream?
    let action = state.withLock { state in
      let action = state.machine.timerFired(generation, at: now, value: &value, cancelling: &cancelling)
      switch action {
      case .none: break
      case .deliver: downstream = state.downstream
      case .rearm: deadline = state.machine.timer.deadline
      }
      return action
    }
    cancelling?.cancel()
    switch action {
    case .none:
      break
    case .deliver:
      let more = downstream?.receive(value.take()!) ?? .none
      downstream = nil
      drain(more: more)
    case .rearm(let next):
      arm(next, at: deadline!)
    }
  }

  // MARK: Delivery

  /// Runs while this call owns the downstream: delivers what the state machine says, starting
  /// with the demand `initial` the last delivery returned.
  @inlinable
  func drain(more initial: Subscribers.Demand) {
    var more = initial
    var value: Input?
    var completion: Subscribers.Completion<Failure>?
    var downstream: Downstream?
    state.drain { state -> NextDelivery<Machine.Step> in
      let step = state.machine.nextStep(adding: more, value: &value, completion: &completion)
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
      case .deliver: more = downstream?.receive(value.take()!) ?? .none
      case .complete: downstream?.receive(completion: completion.take()!)
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

import Synchronization

extension Publishers {
  /// A publisher that publishes either the most-recent or first element published by the
  /// upstream publisher in a specified time interval.
  ///
  /// As in Combine: the first element goes out on the scheduler's next turn; after that, at most
  /// one element per `interval`, the first of the window or, with `latest`, the last. An element
  /// that arrives while the downstream has no demand is dropped. The upstream's completion
  /// follows the element still waiting, if any, and otherwise goes out on the scheduler's next
  /// turn.
  ///
  /// ```swift
  /// let cancellable = scrollOffsets
  ///     .throttle(for: .milliseconds(100), scheduler: DispatchQueue.main, latest: true)
  ///     .sink { offset in updateHeader(offset) }
  /// ```
  public struct Throttle<Upstream: Publisher, Context: Scheduler>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The interval in which to find and emit the most recent element.
    public let interval: Context.SchedulerTimeType.Stride

    /// The scheduler on which to publish elements.
    public let scheduler: Context

    /// A Boolean value indicating whether to publish the most recent element; if `false`, the
    /// publisher emits the first element received during the interval.
    public let latest: Bool

    /// Creates a publisher that publishes the first or the latest element of each interval.
    ///
    /// ```swift
    /// let throttled = Publishers.Throttle(
    ///     upstream: subject, interval: .seconds(1), scheduler: DispatchQueue.main, latest: false)
    /// ```
    @inlinable
    public init(upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context, latest: Bool) {
      self.upstream = upstream
      self.interval = interval
      self.scheduler = scheduler
      self.latest = latest
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        ThrottleInner(downstream: subscriber, interval: interval, scheduler: scheduler, latest: latest))
    }
  }
}

/// The decisions of a `throttle` subscription, kept apart from its calls out (DESIGN.md §3):
/// each event updates the state under the subscription's lock and says what the subscription
/// does once the lock is released.
///
/// An element accepted when no emission is scheduled takes one unit of demand and schedules the
/// emission, for now or for one `interval` after the last emission; while the emission waits,
/// `latest` replaces the element and otherwise later ones are dropped. Emissions run on the
/// scheduler, possibly on several threads at once, so what they emit waits in `ready`, and the
/// completion in the state, for the call that owns delivery (see `DeliveryOwnership`); the
/// subscribing call owns it from the start. Values leave the machine inside the actions, to be
/// released after the lock.
@usableFromInline
struct ThrottleStateMachine<Input, Failure: Error, Time: Strideable> {
  @usableFromInline
  enum State {
    case awaitingSubscription
    /// Taking elements from `upstream`; an emission is scheduled while `pending` holds one.
    case subscribed
    /// The upstream completed; the completion waits for the emission scheduled, its element's
    /// or its own.
    case completing(Subscribers.Completion<Failure>)
    /// An emission released the completion: it goes out after the elements emitted before it.
    case completionDue(Subscribers.Completion<Failure>)
    /// The downstream has its completion, or cancelled.
    case terminal
  }

  /// What to do after an element from the upstream.
  @usableFromInline
  enum ValueAction {
    /// No emission to schedule: let go of the element dropped, or of the one `latest` replaced.
    case release(Input?)
    /// Schedule the emission on the scheduler's next turn.
    case scheduleEmissionNow
    /// Schedule the emission for `time`, one interval after the last emission.
    case scheduleEmission(at: Time)
  }

  /// What to do after the downstream's cancel.
  @usableFromInline
  enum CancelAction {
    /// Ignored: the stream has ended.
    case none
    /// The stream has ended: cancel and let go of what it held, and let the downstream go.
    case release(Released)
  }

  /// What the owner of delivery does next.
  @usableFromInline
  enum Delivery {
    case deliver(Input)
    /// Deliver the completion, then let go of the upstream; the stream has ended.
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
    var pending: Input?
    @usableFromInline
    var ready = ValueQueue<Input>()

    @inlinable
    init() {}
  }

  @usableFromInline
  var state = State.awaitingSubscription
  /// The upstream's subscription, from the subscription until the stream ends; as in Combine,
  /// kept to be cancelled by a cancel until the completion has gone out. It is kept beside the
  /// state rather than in its payload: reading a state that holds an existential copies it, and
  /// the per-value path reads the state ("a burst through throttle", 40 % per value).
  @usableFromInline
  var upstream: (any Subscription)?
  /// Requested by the downstream and not yet used.
  @usableFromInline
  var demand = Subscribers.Demand.none
  /// The element the scheduled emission emits.
  @usableFromInline
  var pending: Input?
  /// When the last element was emitted.
  @usableFromInline
  var lastEmission: Time?
  /// Emitted elements waiting for the call that owns delivery.
  @usableFromInline
  var ready = ValueQueue<Input>()
  /// Which call owns the downstream; the subscribing call, from the start.
  @usableFromInline
  var delivery = DeliveryOwnership(claimed: true)
  @usableFromInline
  let interval: Time.Stride
  @usableFromInline
  let latest: Bool

  @inlinable
  init(interval: Time.Stride, latest: Bool) {
    self.interval = interval
    self.latest = latest
  }

  /// Whether the upstream's elements and completion count, and the clock is read for them.
  @inlinable
  var isSubscribed: Bool {
    if case .subscribed = state { return true }
    return false
  }

  /// The upstream's subscription: whether to take it (the first one, unless the downstream
  /// cancelled before it came, as in Combine).
  @usableFromInline
  mutating func receive(subscription: any Subscription) -> Bool {
    guard case .awaitingSubscription = state else { return false }
    state = .subscribed
    upstream = subscription
    return true
  }

  /// An element from the upstream at `now`.
  @inlinable
  mutating func receive(_ input: Input, at now: Time) -> ValueAction {
    // As in Combine, an element without demand is dropped, even one `latest` would have kept.
    guard case .subscribed = state, demand > .none else { return .release(input) }
    if pending != nil {
      guard latest else { return .release(input) }
      let replaced = pending
      pending = input
      return .release(replaced)
    }
    if demand != .unlimited { demand -= 1 }
    pending = input
    if let earliest = lastEmission?.advanced(by: interval), earliest > now {
      return .scheduleEmission(at: earliest)
    }
    return .scheduleEmissionNow
  }

  /// The upstream's completion: returns whether to schedule an emission for it; when one is
  /// scheduled already, the completion follows its element.
  @usableFromInline
  mutating func receive(completion: Subscribers.Completion<Failure>) -> Bool {
    guard case .subscribed = state else { return false }
    state = .completing(completion)
    return pending == nil
  }

  /// Whether the emission about to run emits an element alone, whose time it records: the
  /// subscription then reads the clock for it, as Combine does.
  @inlinable
  var emissionNeedsTime: Bool { pending != nil && isSubscribed }

  /// The scheduled emission runs, at `now` when it needs the time: returns whether this call
  /// owns delivery and drains.
  @inlinable
  mutating func emit(at now: Time?) -> Bool {
    switch state {
    case .subscribed:
      if let value = pending.take() {
        if let now { lastEmission = now }
        ready.append(value)
      }
      guard !ready.isEmpty else { return false }
      return delivery.claim()
    case .completing(let completion):
      if let value = pending.take() { ready.append(value) }
      state = .completionDue(completion)
      return delivery.claim()
    case .completionDue:
      return delivery.claim()
    case .awaitingSubscription, .terminal:
      return false
    }
  }

  /// A request from the downstream; as in Combine, `.none` is ignored, and so is one before the
  /// subscription or after the upstream completed.
  @inlinable
  mutating func request(_ more: Subscribers.Demand) {
    guard more > .none, case .subscribed = state else { return }
    demand += more
  }

  /// The downstream's cancel: ends the stream, handing what it held to the action. As in
  /// Combine, one before the subscription ends it too: the subscription that comes later is
  /// cancelled.
  @usableFromInline
  mutating func cancel() -> CancelAction {
    var released = Released()
    switch state {
    case .awaitingSubscription, .subscribed, .completing, .completionDue:
      break
    case .terminal:
      return .none
    }
    state = .terminal
    swap(&released.upstream, &upstream)
    swap(&released.pending, &pending)
    swap(&released.ready, &ready)
    return .release(released)
  }

  /// Asked by the owner of delivery, after adding the demand the last element returned: the
  /// next element emitted, then the completion once an emission released it.
  @inlinable
  mutating func nextDelivery(adding more: Subscribers.Demand) -> Delivery {
    switch state {
    case .subscribed, .completing, .completionDue:
      demand += more
      if let next = ready.popFirst() { return .deliver(next) }
      if case .completionDue(let completion) = state {
        state = .terminal
        return .complete(completion, releasing: upstream.take())
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

/// A `throttle` subscription; its decisions are a `ThrottleStateMachine`'s.
///
/// Described and shown in playgrounds as Combine's, "Throttle", and reflected, as Combine's,
/// without children. As in Combine, a scheduled emission holds the subscription weakly: the
/// downstream (or the upstream) keeps it alive.
@usableFromInline
final class ThrottleInner<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped
{
  @usableFromInline
  typealias Input = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure
  @usableFromInline
  typealias Machine = ThrottleStateMachine<Input, Failure, Context.SchedulerTimeType>

  @usableFromInline
  typealias State = MachineAndDownstream<Machine, Downstream>

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
  @usableFromInline
  let scheduler: Context
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var description: String { "Throttle" }
  @usableFromInline
  var playgroundDescription: Any { description }
  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(downstream: Downstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context, latest: Bool) {
    census = CensusToken(ThrottleInner.self, inheritingFrom: downstream)
    state = Locked(State(machine: Machine(interval: interval, latest: latest), downstream: downstream))
    self.scheduler = scheduler
    // Combine reads the clock when the subscription is created and when it is subscribed; so
    // does this, for schedulers that count their calls.
    _ = scheduler.now
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
    _ = scheduler.now
    // As in Combine, the upstream is asked before the downstream has its subscription.
    subscription.request(.unlimited)
    downstream?.receive(subscription: self)
    // This call has owned the downstream since the start; what came meanwhile goes out now.
    drain(more: .none)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    // As in Combine, the clock is read for every element while subscribed, and only then.
    guard state.withLock({ $0.machine.isSubscribed }) else { return .none }
    let now = scheduler.now
    // The element dropped or replaced leaves with the action, released after the lock.
    switch state.withLock({ $0.machine.receive(input, at: now) }) {
    case .release: break
    case .scheduleEmissionNow: scheduler.schedule { [weak self] in self?.emit() }
    case .scheduleEmission(let time): scheduler.schedule(after: time) { [weak self] in self?.emit() }
    }
    return .none
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    guard state.withLock({ $0.machine.isSubscribed }) else { return }
    _ = scheduler.now
    if state.withLock({ $0.machine.receive(completion: completion) }) {
      scheduler.schedule { [weak self] in self?.emit() }
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
    released.upstream?.cancel()
    withExtendedLifetime(downstream) {}
  }

  // MARK: Delivery

  @inlinable
  func emit() {
    let now = state.withLock { $0.machine.emissionNeedsTime } ? scheduler.now : nil
    if state.withLock({ $0.machine.emit(at: now) }) { drain(more: .none) }
  }

  /// Runs while this call owns the downstream: delivers what the state machine says.
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
      // The upstream goes with the step, once the downstream has the completion.
      case .complete(let completion, _): downstream?.receive(completion: completion)
      case .idle: break
      }
    }
  }
}

extension Publisher {
  /// Publishes either the most-recent or first element published by the upstream publisher in
  /// the specified time interval.
  ///
  /// ```swift
  /// let cancellable = locationUpdates
  ///     .throttle(for: .seconds(10), scheduler: DispatchQueue.main, latest: true)
  ///     .sink { print("Published \($0)") }
  /// ```
  ///
  /// - Parameters:
  ///   - interval: The interval at which to find and emit either the most recent or the first
  ///     element, expressed in the time system of the scheduler.
  ///   - scheduler: The scheduler on which to publish elements.
  ///   - latest: A Boolean value that indicates whether to publish the most recent element. If
  ///     `false`, the publisher emits the first element received during the interval.
  /// - Returns: A publisher that emits either the most-recent or first element received during
  ///   the specified interval.
  @inlinable
  public func throttle<S: Scheduler>(
    for interval: S.SchedulerTimeType.Stride, scheduler: S, latest: Bool
  ) -> Publishers.Throttle<Self, S> {
    Publishers.Throttle(upstream: self, interval: interval, scheduler: scheduler, latest: latest)
  }
}

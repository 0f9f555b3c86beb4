import Synchronization

extension Publishers {
  /// A publisher that buffers and periodically publishes its items.
  ///
  /// A repeating timer on the strategy's scheduler, started with the subscription, publishes
  /// what has been collected since the previous tick, if anything; with `.byTimeOrCount`, a
  /// group also goes out as soon as it holds `count` elements. When upstream finishes, what is
  /// collected goes out before the completion; a failure drops it. Groups the downstream has no
  /// demand for wait for it, in order.
  ///
  /// Upstream is asked for everything with `.byTime`; with `.byTimeOrCount`, a request for `n`
  /// groups asks it for `count * n` elements, as in Combine.
  ///
  /// ```swift
  /// let cancellable = clicks
  ///   .collect(.byTime(DispatchQueue.main, .seconds(1)))
  ///   .sink { print("\($0.count) clicks this second") }
  /// ```
  public struct CollectByTime<Upstream: Publisher, Context: Scheduler>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = [Upstream.Output]
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher that this publisher receives elements from.
    public let upstream: Upstream

    /// The strategy with which to collect and publish elements.
    public let strategy: Publishers.TimeGroupingStrategy<Context>

    /// Scheduler options to use for the strategy.
    public let options: Context.SchedulerOptions?

    /// Creates a publisher that buffers and periodically publishes its items.
    public init(
      upstream: Upstream, strategy: Publishers.TimeGroupingStrategy<Context>, options: Context.SchedulerOptions?
    ) {
      if case .byTimeOrCount(_, _, let count) = strategy {
        precondition(
          count > 0,
          "collect(.byTimeOrCount(_, _, \(count))): a group holds at least one element; use a count of 1 or more")
      }
      self.upstream = upstream
      self.strategy = strategy
      self.options = options
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        CollectByTimeInner<Upstream.Output, S, Context>(downstream: subscriber, strategy: strategy, options: options))
    }
  }
}

extension Publisher {
  /// Collects elements by a given time-grouping strategy, and emits a single array of the
  /// collection.
  ///
  /// ```swift
  /// let cancellable = readings
  ///   .collect(.byTimeOrCount(DispatchQueue.main, .seconds(5), 50))
  ///   .sink { upload($0) }
  /// ```
  ///
  /// - Parameters:
  ///   - strategy: The timing group strategy used by the operator to collect and publish
  ///     elements.
  ///   - options: Scheduler options to use for the strategy.
  public func collect<S: Scheduler>(
    _ strategy: Publishers.TimeGroupingStrategy<S>, options: S.SchedulerOptions? = nil
  ) -> Publishers.CollectByTime<Self, S> {
    Publishers.CollectByTime(upstream: self, strategy: strategy, options: options)
  }
}

/// The decisions of `collect(_:options:)` by time: the group being collected, the groups
/// waiting for demand, and the completion that follows them.
struct CollectByTimeStateMachine<Input, Failure: Error> {
  enum Phase {
    case awaitingSubscription
    case subscribed
    /// Completed or cancelled.
    case terminal
  }

  /// What the owner of delivery does next.
  enum Work {
    case deliver([Input])
    case complete(Subscribers.Completion<Failure>)
    /// Cancelled while another call delivered: let go of the downstream.
    case release
  }

  /// What a call that changed the state does after the lock.
  struct Followup {
    /// The call owns delivery: drain.
    var drains = false
    /// Elements to ask of upstream.
    var request: (upstream: any Subscription, demand: Subscribers.Demand)?
    /// The timer and the upstream to cancel, and what to release, when the subscription ended.
    var cancel: (timer: (any Cancellable)?, upstream: (any Subscription)?)?

    init() {}
  }

  var phase = Phase.awaitingSubscription
  var upstream: (any Subscription)?
  var timer: (any Cancellable)?
  var group: [Input] = []
  var ready = ValueQueue<[Input]>()
  var demand = Subscribers.Demand.none
  var completion: Subscribers.Completion<Failure>?
  var delivery = DeliveryOwnership()
  /// The most elements a group holds (`.byTimeOrCount`), or `nil` (`.byTime`).
  let count: Int?

  init(count: Int?) {
    self.count = count
  }

  /// Upstream's subscription: what to ask of it first, or `nil` when it is not kept (the caller
  /// cancels it). The caller then starts the timer.
  mutating func receive(subscription: any Subscription) -> Subscribers.Demand? {
    guard case .awaitingSubscription = phase else { return nil }
    phase = .subscribed
    upstream = subscription
    return count == nil ? .unlimited : Subscribers.Demand.none
  }

  /// The timer started: whether it is kept (otherwise the caller cancels it at once).
  mutating func timerStarted(_ timer: any Cancellable) -> Bool {
    guard case .subscribed = phase else { return false }
    self.timer = timer
    return true
  }

  mutating func receive(_ input: Input) -> Followup {
    guard case .subscribed = phase, completion == nil else { return Followup() }
    group.append(input)
    guard let count, group.count >= count else { return Followup() }
    return closeGroup()
  }

  mutating func timerFired() -> Followup {
    guard case .subscribed = phase, completion == nil, !group.isEmpty else { return Followup() }
    return closeGroup()
  }

  mutating func receive(completion: Subscribers.Completion<Failure>) -> Followup {
    guard case .subscribed = phase, self.completion == nil else { return Followup() }
    switch completion {
    case .finished:
      if !group.isEmpty { ready.append(group) }
    case .failure:
      ready.removeAll()
    }
    group = []
    self.completion = completion
    var followup = Followup()
    followup.cancel = (timer.take(), nil)
    upstream = nil
    followup.drains = delivery.claim()
    return followup
  }

  mutating func request(_ more: Subscribers.Demand) -> Followup {
    guard case .subscribed = phase else { return Followup() }
    demand += more
    var followup = Followup()
    if let count, let upstream, completion == nil {
      followup.request = (upstream, more == .unlimited ? .unlimited : more * count)
    }
    followup.drains = delivery.claim()
    return followup
  }

  mutating func cancel() -> Followup {
    guard case .subscribed = phase else { return Followup() }
    phase = .terminal
    var followup = Followup()
    followup.cancel = (timer.take(), upstream.take())
    followup.drains = delivery.claim()
    return followup
  }

  /// The owner's next step.
  mutating func nextDelivery() -> NextDelivery<Work> {
    switch phase {
    case .terminal:
      return .performAndStop(.release)
    case .awaitingSubscription:
      delivery.giveBack()
      return .stop
    case .subscribed:
      if demand > 0, let next = ready.popFirst() {
        demand -= 1
        return .perform(.deliver(next))
      }
      if ready.isEmpty, let completion {
        phase = .terminal
        return .performAndStop(.complete(completion))
      }
      delivery.giveBack()
      return .stop
    }
  }

  mutating func closeGroup() -> Followup {
    ready.append(group)
    group = []
    var followup = Followup()
    followup.drains = delivery.claim()
    return followup
  }
}

/// The subscription behind `collect(_:options:)` by time.
final class CollectByTimeInner<Input, Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped
where Downstream.Input == [Input] {
  typealias Failure = Downstream.Failure
  typealias Machine = CollectByTimeStateMachine<Input, Failure>

  // Guarded by its own lock.
  let state: Locked<Machine>
  // Owned by the thread that owns `state.delivery`; released when the subscription ends.
  var downstream: Downstream?
  let scheduler: Context
  let interval: Context.SchedulerTimeType.Stride
  let options: Context.SchedulerOptions?
  let census: CensusToken

  var description: String { "CollectByTime" }
  var playgroundDescription: Any { description }
  var customMirror: Mirror { Mirror(self, children: [:]) }
  var censusScope: CensusScope? { census.scope }

  init(downstream: Downstream, strategy: Publishers.TimeGroupingStrategy<Context>, options: Context.SchedulerOptions?) {
    census = CensusToken(CollectByTimeInner.self, inheritingFrom: downstream)
    self.downstream = downstream
    switch strategy {
    case .byTime(let scheduler, let interval):
      self.scheduler = scheduler
      self.interval = interval
      state = Locked(Machine(count: nil))
    case .byTimeOrCount(let scheduler, let interval, let count):
      self.scheduler = scheduler
      self.interval = interval
      state = Locked(Machine(count: count))
    }
    self.options = options
  }

  func receive(subscription: any Subscription) {
    guard let first = state.withLock({ $0.receive(subscription: subscription) }) else {
      subscription.cancel()
      return
    }
    downstream?.receive(subscription: self)
    let timer = scheduler.schedule(
      after: scheduler.now.advanced(by: interval), interval: interval, tolerance: scheduler.minimumTolerance,
      options: options
    ) { [weak self] in
      self?.timerFired()
    }
    if !state.withLock({ $0.timerStarted(timer) }) { timer.cancel() }
    if first > 0 { subscription.request(first) }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    perform(state.withLock { $0.receive(input) })
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    perform(state.withLock { $0.receive(completion: completion) })
  }

  func timerFired() {
    perform(state.withLock { $0.timerFired() })
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    perform(state.withLock { $0.request(demand) })
  }

  func cancel() {
    perform(state.withLock { $0.cancel() })
  }

  func perform(_ followup: Machine.Followup) {
    if let (timer, upstream) = followup.cancel {
      timer?.cancel()
      upstream?.cancel()
    }
    if let (upstream, demand) = followup.request { upstream.request(demand) }
    guard followup.drains else { return }
    state.drain({ $0.nextDelivery() }) { work in
      switch work {
      case .deliver(let group):
        let more = downstream?.receive(group) ?? .none
        if more > 0 { perform(state.withLock { $0.request(more) }) }
      case .complete(let completion):
        downstream.take()?.receive(completion: completion)
      case .release:
        downstream = nil
      }
    }
  }
}

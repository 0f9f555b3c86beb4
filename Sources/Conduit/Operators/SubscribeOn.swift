import Synchronization

extension Publishers {
  /// A publisher that receives elements from an upstream publisher on a specific scheduler.
  ///
  /// The subscription to the upstream, and every request and cancel made of it, happen on
  /// `scheduler`; values and the completion come down on whatever thread the upstream sends
  /// them, as in Combine.
  ///
  /// ```swift
  /// let cancellable = expensiveWork
  ///   .subscribe(on: backgroundQueue)
  ///   .receive(on: DispatchQueue.main)
  ///   .sink { print($0) }
  /// ```
  public struct SubscribeOn<Upstream: Publisher, Context: Scheduler>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The scheduler the publisher should use to receive elements.
    public let scheduler: Context

    /// Scheduler options that customize the delivery of elements.
    public let options: Context.SchedulerOptions?

    /// Creates a publisher that receives elements from an upstream publisher on a specific
    /// scheduler.
    public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
      self.upstream = upstream
      self.scheduler = scheduler
      self.options = options
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it. The
    /// subscription to the upstream happens later, on the scheduler.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let inner = SubscribeOnInner(downstream: subscriber, scheduler: scheduler, options: options)
      let upstream = upstream
      scheduler.schedule(options: options) { upstream.subscribe(inner) }
    }
  }
}

extension Publisher {
  /// Specifies the scheduler on which to perform subscribe, cancel, and request operations.
  ///
  /// Use it to move the work of starting a publisher (the subscription, and what the
  /// publisher does when asked for values) off the calling thread.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher
  ///   .subscribe(on: DispatchQueue.global())
  ///   .sink { print($0) }   // 1, 2, 3, on a global queue
  /// ```
  public func subscribe<S: Scheduler>(
    on scheduler: S, options: S.SchedulerOptions? = nil
  ) -> Publishers.SubscribeOn<Self, S> {
    Publishers.SubscribeOn(upstream: self, scheduler: scheduler, options: options)
  }
}

/// The decisions of `subscribe(on:)`: which calls still reach the downstream and the upstream.
///
/// A request is performed on the scheduler, which on a concurrent queue may run it on another
/// thread while the downstream is still inside `receive(subscription:)`; the value it releases
/// would then reach the downstream during that call (DESIGN.md §2.3). So a request that runs on
/// the scheduler while the downstream is taking its subscription is held, and the thread that
/// handed the subscription down asks for it once that call has returned.
struct SubscribeOnStateMachine<Downstream> {
  enum Phase {
    case awaitingSubscription(Downstream)
    /// The downstream is inside `receive(subscription:)`; `held` is what was requested of the
    /// upstream meanwhile, asked for once that call returns.
    case handingDown(any Subscription, Downstream, held: Subscribers.Demand?)
    case subscribed(any Subscription, Downstream)
    /// Completed or cancelled: the downstream and the upstream are forgotten.
    case terminal
  }

  var phase: Phase

  init(downstream: Downstream) {
    phase = .awaitingSubscription(downstream)
  }

  /// Upstream's subscription: the downstream to hand this subscription to, or `nil` when the
  /// subscription is not kept (the caller cancels it).
  mutating func receive(subscription: any Subscription) -> Downstream? {
    guard case .awaitingSubscription(let downstream) = phase else { return nil }
    phase = .handingDown(subscription, downstream, held: nil)
    return downstream
  }

  /// The downstream's `receive(subscription:)` returned: the upstream and the demand held
  /// meanwhile, to ask for now; `nil` when nothing was held or the downstream cancelled.
  mutating func handedDown() -> (upstream: any Subscription, demand: Subscribers.Demand)? {
    guard case .handingDown(let upstream, let downstream, let held) = phase else { return nil }
    phase = .subscribed(upstream, downstream)
    guard let held else { return nil }
    return (upstream, held)
  }

  /// The downstream a value goes to, if the subscription is running.
  var valueTarget: Downstream? {
    switch phase {
    case .handingDown(_, let downstream, _), .subscribed(_, let downstream): downstream
    case .awaitingSubscription, .terminal: nil
    }
  }

  /// The upstream a request goes to, on the scheduler, if the subscription is running.
  var requestTarget: (any Subscription)? {
    switch phase {
    case .handingDown(let upstream, _, _), .subscribed(let upstream, _): upstream
    case .awaitingSubscription, .terminal: nil
    }
  }

  /// A request runs on the scheduler: `true` when it is held, because the downstream is still
  /// taking its subscription; the caller asks the upstream otherwise.
  mutating func holdsRequest(_ demand: Subscribers.Demand) -> Bool {
    guard case .handingDown(let upstream, let downstream, let held) = phase else { return false }
    phase = .handingDown(upstream, downstream, held: (held ?? .none) + demand)
    return true
  }

  /// Upstream completed: the downstream to tell, now forgotten.
  mutating func receiveCompletion() -> Downstream? {
    guard let downstream = valueTarget else { return nil }
    phase = .terminal
    return downstream
  }

  /// The downstream cancelled: the upstream to cancel on the scheduler and the downstream to
  /// release after the lock, both now forgotten.
  mutating func cancel() -> (upstream: any Subscription, downstream: Downstream)? {
    guard let upstream = requestTarget, let downstream = valueTarget else { return nil }
    phase = .terminal
    return (upstream, downstream)
  }
}

/// The subscription behind `subscribe(on:)`: passes values and the completion through, and
/// hands each request and the cancel to the scheduler.
final class SubscribeOnInner<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped
{
  typealias Input = Downstream.Input
  typealias Failure = Downstream.Failure

  // Guarded by its own lock.
  let state: Locked<SubscribeOnStateMachine<Downstream>>
  let scheduler: Context
  let options: Context.SchedulerOptions?
  let census: CensusToken

  var description: String { "SubscribeOn" }
  var playgroundDescription: Any { description }
  var customMirror: Mirror { Mirror(self, children: [:]) }
  var censusScope: CensusScope? { census.scope }

  init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
    census = CensusToken(SubscribeOnInner.self, inheritingFrom: downstream)
    state = Locked(SubscribeOnStateMachine(downstream: downstream))
    self.scheduler = scheduler
    self.options = options
  }

  func receive(subscription: any Subscription) {
    guard let downstream = state.withLock({ $0.receive(subscription: subscription) }) else {
      subscription.cancel()
      return
    }
    downstream.receive(subscription: self)
    // On the scheduler: this call runs where the upstream was subscribed.
    if let (upstream, demand) = state.withLock({ $0.handedDown() }) { upstream.request(demand) }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    state.withLock { $0.valueTarget }?.receive(input) ?? .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    state.withLock { $0.receiveCompletion() }?.receive(completion: completion)
  }

  func request(_ demand: Subscribers.Demand) {
    guard let upstream = state.withLock({ $0.requestTarget }) else { return }
    scheduler.schedule(options: options) { [self] in
      if state.withLock({ $0.holdsRequest(demand) }) { return }
      upstream.request(demand)
    }
  }

  func cancel() {
    guard let (upstream, downstream) = state.withLock({ $0.cancel() }) else { return }
    withExtendedLifetime(downstream) {}
    scheduler.schedule(options: options) { upstream.cancel() }
  }
}

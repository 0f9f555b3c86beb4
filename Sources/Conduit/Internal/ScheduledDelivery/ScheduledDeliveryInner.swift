import Synchronization

// Scheduled delivery: `receive(on:)`, `delay`, and the timers of the time operators.
//
// - `ScheduledDeliveryInner.swift`: the subscription; schedules one action per value.
// - `ScheduledDeliveryStateMachine.swift`: its decisions.
// - `DeadlineTimer.swift`: the one pending timer of `debounce` and `timeout`.

/// The subscription behind `receive(on:)` and `delay(for:tolerance:scheduler:options:)`: hands
/// each element and the completion to the scheduler, to run at once (`receive(on:)`) or after
/// `delay` (`delay`), and delivers them from there, one scheduled run at a time.
///
/// As in Combine, `delay`'s subscription neither describes nor reflects itself; `receive(on:)`'s
/// does, as its subclass `ReceiveOnInner`.
@usableFromInline
class ScheduledDeliveryInner<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
  CensusScoped
{
  @usableFromInline
  typealias Input = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure
  @usableFromInline
  typealias Machine = ScheduledDeliveryStateMachine<Input, Failure>

  // Guarded by its own lock.
  @usableFromInline
  let state = Locked(Machine())
  // Owned by the thread that owns `state.delivery`; released when the subscription ends.
  @usableFromInline
  var downstream: Downstream?
  @usableFromInline
  let scheduler: Context
  /// How long after its arrival an element goes down, and with what tolerance; `nil` for as
  /// soon as the scheduler can.
  @usableFromInline
  let delay: (interval: Context.SchedulerTimeType.Stride, tolerance: Context.SchedulerTimeType.Stride)?
  @usableFromInline
  let options: Context.SchedulerOptions?
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(
    downstream: Downstream, scheduler: Context,
    delay: (interval: Context.SchedulerTimeType.Stride, tolerance: Context.SchedulerTimeType.Stride)?,
    options: Context.SchedulerOptions?
  ) {
    census = CensusToken(Self.self, inheritingFrom: downstream)
    self.downstream = downstream
    self.scheduler = scheduler
    self.delay = delay
    self.options = options
  }

  @usableFromInline
  final func receive(subscription: any Subscription) {
    guard state.withLock({ $0.receive(subscription: subscription) }) else {
      subscription.cancel()
      return
    }
    downstream?.receive(subscription: self)
    guard let owed = state.withLock({ $0.subscriptionHandedOver() }) else {
      downstream = nil
      return
    }
    for _ in 0..<owed { scheduler.schedule(options: options) { self.run() } }
  }

  @inlinable
  final func receive(_ input: Input) -> Subscribers.Demand {
    if state.withLock({ $0.receive(input) }) { scheduleRun() }
    return .none
  }

  @usableFromInline
  final func receive(completion: Subscribers.Completion<Failure>) {
    if state.withLock({ $0.receive(completion: completion) }) { scheduleRun() }
  }

  @inlinable
  final func scheduleRun() {
    if let delay {
      scheduler.schedule(
        after: scheduler.now.advanced(by: delay.interval), tolerance: delay.tolerance, options: options
      ) { self.run() }
    } else {
      scheduler.schedule(options: options) { self.run() }
    }
  }

  @inlinable
  final func run() {
    drain(state.withLock { $0.run() })
  }

  /// Performs `first`, then every step the machine gives the owner after it.
  @inlinable
  final func drain(_ first: Machine.Delivery) {
    var step = first
    while true {
      switch step {
      case .idle:
        return
      case .release:
        downstream = nil
        return
      case .deliver(let value):
        let more = downstream?.receive(value) ?? .none
        if more > 0 { state.withLock { $0.runningUpstream }?.request(more) }
      case .complete(let completion):
        let receiver = downstream.take()
        receiver?.receive(completion: completion)
      }
      step = state.withLock { $0.stepDone() }
    }
  }

  @usableFromInline
  final func request(_ demand: Subscribers.Demand) {
    state.withLock { $0.runningUpstream }?.request(demand)
  }

  @usableFromInline
  final func cancel() {
    guard let (upstream, ownsDelivery, dropped) = state.withLock({ $0.cancel() }) else { return }
    withExtendedLifetime(dropped) {}
    upstream?.cancel()
    if ownsDelivery { downstream = nil }
  }
}

/// `receive(on:)`'s subscription: described, reflected and shown in playgrounds as Combine's,
/// "ReceiveOn", without children.
@usableFromInline
final class ReceiveOnInner<Downstream: Subscriber, Context: Scheduler>: ScheduledDeliveryInner<Downstream, Context>,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
  @usableFromInline
  var description: String { "ReceiveOn" }
  @usableFromInline
  var playgroundDescription: Any { description }
  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: [:]) }
}

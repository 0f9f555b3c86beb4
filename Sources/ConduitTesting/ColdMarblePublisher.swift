import Conduit

/// The publisher of ``TestScheduler/cold(_:values:frame:)``: each subscription schedules the
/// whole timeline on the scheduler, counted from the moment it subscribes.
struct ColdMarblePublisher<Output, Failure: Error, Time: Strideable, Options>: Publisher
where Time.Stride: SchedulerTimeIntervalConvertible {
  let scheduler: TestScheduler<Time, Options>
  let timeline: [(frame: Int, events: [MarbleEvent<Output, Failure>])]
  let frame: Time.Stride

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let subscription = ColdMarbleSubscription(downstream: AnySubscriber(subscriber), scheduler: scheduler)
    let start = scheduler.now
    subscriber.receive(subscription: subscription)
    scheduler.scheduleTimeline(timeline, from: start, frame: frame) { subscription.arrive($0) }
  }
}

/// One subscription to a cold marble publisher. As a `Record` does, it holds the values that
/// come due before there is demand for them, and the completion until the values before it are
/// out.
///
/// Everything it delivers, it delivers from an action on the test scheduler: the timeline's own
/// actions, and one it schedules when a request frees what it holds. The scheduler runs its
/// actions one at a time, so deliveries never overlap, and a request from inside `receive(_:)`
/// only adds demand to the loop that is running.
final class ColdMarbleSubscription<Output, Failure: Error, Time: Strideable, Options>: Subscription, CensusScoped,
  @unchecked Sendable
where Time.Stride: SchedulerTimeIntervalConvertible {
  /// Weak: the scheduler's pending actions hold this subscription.
  private weak let scheduler: TestScheduler<Time, Options>?
  // Guarded by its own lock.
  private let state: Locked<ColdMarbleStateMachine<Output, Failure>>
  private let census: CensusToken

  var censusScope: CensusScope? { census.scope }

  init(downstream: AnySubscriber<Output, Failure>, scheduler: TestScheduler<Time, Options>) {
    census = CensusToken(ColdMarbleSubscription.self, inheritingFrom: downstream)
    self.scheduler = scheduler
    state = Locked(ColdMarbleStateMachine(downstream: downstream))
  }

  func arrive(_ events: [MarbleEvent<Output, Failure>]) {
    if state.withLock({ $0.arrive(events) }) { deliver() }
  }

  func request(_ demand: Subscribers.Demand) {
    if state.withLock({ $0.request(demand) }) { scheduler?.schedule { self.deliver() } }
  }

  func cancel() {
    let released = state.withLock { $0.cancel() }
    withExtendedLifetime(released) {}
  }

  private func deliver() {
    while true {
      switch state.withLock({ $0.nextDelivery() }) {
      case .value(let value, let downstream):
        let more = downstream.receive(value)
        state.withLock { $0.add(more) }
      case .completion(let completion, let downstream):
        downstream.receive(completion: completion)
        return
      case .none:
        return
      }
    }
  }
}

/// The decisions of a ``ColdMarbleSubscription``.
struct ColdMarbleStateMachine<Output, Failure: Error> {
  typealias Event = MarbleEvent<Output, Failure>

  enum State {
    /// Subscribed: `held` are the events that came due and wait, values for demand and the
    /// completion for the values before it.
    case running(downstream: AnySubscriber<Output, Failure>, held: [Event], demand: Subscribers.Demand)
    /// Completed or cancelled: nothing is held.
    case terminal
  }

  /// What to deliver next.
  enum Delivery {
    case value(Output, to: AnySubscriber<Output, Failure>)
    case completion(Subscribers.Completion<Failure>, to: AnySubscriber<Output, Failure>)
    case none
  }

  private(set) var state: State

  init(downstream: AnySubscriber<Output, Failure>) {
    state = .running(downstream: downstream, held: [], demand: .none)
  }

  /// Events that came due; returns whether to deliver now.
  mutating func arrive(_ events: [Event]) -> Bool {
    guard case .running(let downstream, var held, let demand) = state else { return false }
    held.append(contentsOf: events)
    state = .running(downstream: downstream, held: held, demand: demand)
    return true
  }

  /// A request from downstream; returns whether it frees something held.
  mutating func request(_ more: Subscribers.Demand) -> Bool {
    guard case .running(let downstream, let held, let demand) = state else { return false }
    state = .running(downstream: downstream, held: held, demand: demand + more)
    return !held.isEmpty
  }

  /// The demand that `receive(_:)` returned.
  mutating func add(_ more: Subscribers.Demand) {
    _ = request(more)
  }

  /// The next held event that may go out: a value while there is demand, the completion once
  /// the values before it are out. The completion ends the subscription.
  mutating func nextDelivery() -> Delivery {
    guard case .running(let downstream, var held, var demand) = state, let first = held.first else { return .none }
    switch first {
    case .value(let value):
      guard demand > .none else { return .none }
      demand -= 1
      held.removeFirst()
      state = .running(downstream: downstream, held: held, demand: demand)
      return .value(value, to: downstream)
    case .completion(let completion):
      state = .terminal
      return .completion(completion, to: downstream)
    }
  }

  /// Cancels; returns what to release after the lock.
  mutating func cancel() -> State {
    defer { state = .terminal }
    return state
  }
}

extension Strideable {
  /// The times of frames `0..<count`, one `frame` apart, starting now.
  func frameTimes(count: Int, frame: Stride) -> [Self] {
    var times = [self]
    while times.count < count { times.append(times.last!.advanced(by: frame)) }
    return times
  }
}

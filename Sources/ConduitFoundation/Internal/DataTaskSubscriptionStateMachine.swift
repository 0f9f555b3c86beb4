import Conduit

/// The decisions of one subscriber's subscription to a `URLSession.DataTaskPublisher`.
///
/// As in Combine, nothing touches the network until the subscriber first demands something: that
/// request starts the task, and later ones only add to the demand, since a task answers once.
/// The demand and the parent are kept, as in Combine, for the subscription's mirror. The task is
/// created after the lock (creating it calls into Foundation), so the machine passes through
/// `starting` and learns the task afterwards; a cancel that comes meanwhile leaves the task to be
/// cancelled as soon as it is known, never resumed.
///
/// A successful answer goes out as a value followed by `.finished`, unless the subscriber cancels
/// from inside `receive(_:)`: then the completion stays back, because nothing reaches a subscriber
/// after its cancel. Every way out drops the subscriber, the publisher (its request and session)
/// and the task.
///
/// Generic over what it holds, so that tests drive it with plain values instead of a network.
struct DataTaskSubscriptionStateMachine<Downstream, Parent, Task> {
  enum State {
    case awaitingDemand(Downstream, Parent)
    /// The task is being created after the lock; the subscription reports it with `started(_:)`.
    case starting(Downstream, Parent, demand: Subscribers.Demand)
    case running(Downstream, Parent, Task, demand: Subscribers.Demand)
    /// A value is going out; `.finished` follows unless the subscriber cancels meanwhile.
    case delivering
    case terminal
  }

  /// What the subscription does after its lock, for a request.
  enum RequestAction {
    case none
    /// Create the task for the parent's request, then report it with `started(_:)`.
    case start(Parent)
    /// Resume the running task again, as Combine does on every request; a running task ignores
    /// it.
    case resume(Task)
  }

  /// What the subscription does after its lock, once the task exists.
  enum StartAction {
    case resume(Task)
    /// The subscriber cancelled while the task was being created.
    case cancel(Task)
  }

  /// What the subscription does after its lock, when the task answers.
  enum AnswerAction {
    /// The subscription ended already; the answer goes nowhere.
    case ignore
    /// Send the answer to the subscriber: a value, then `finished()`, or a failure.
    case deliver(Downstream)
  }

  /// What the subscription does after its lock, for a cancel.
  enum CancelAction {
    case none
    /// Let go of the subscriber after the lock: its deinit may call back in.
    case release(Downstream)
    case cancel(Task, releasing: Downstream)
  }

  private(set) var state: State

  init(downstream: Downstream, parent: Parent) {
    state = .awaitingDemand(downstream, parent)
  }

  /// What the subscription's mirror shows, as Combine's does: each is `nil` (the demand `.none`)
  /// once the subscription has ended.
  var reflection: (task: Task?, downstream: Downstream?, parent: Parent?, demand: Subscribers.Demand) {
    switch state {
    case .awaitingDemand(let downstream, let parent): (nil, downstream, parent, .none)
    case .starting(let downstream, let parent, let demand): (nil, downstream, parent, demand)
    case .running(let downstream, let parent, let task, let demand): (task, downstream, parent, demand)
    case .delivering, .terminal: (nil, nil, nil, .none)
    }
  }

  /// The subscriber requested `demand`, which is positive: the first request starts the task,
  /// and each later one resumes it again.
  mutating func request(_ demand: Subscribers.Demand) -> RequestAction {
    switch state {
    case .awaitingDemand(let downstream, let parent):
      state = .starting(downstream, parent, demand: demand)
      return .start(parent)
    case .starting(let downstream, let parent, let current):
      state = .starting(downstream, parent, demand: current + demand)
      return .none
    case .running(let downstream, let parent, let task, let current):
      state = .running(downstream, parent, task, demand: current + demand)
      return .resume(task)
    case .delivering, .terminal:
      return .none
    }
  }

  /// The task asked for by `request(_:)` exists now.
  mutating func started(_ task: Task) -> StartAction {
    guard case .starting(let downstream, let parent, let demand) = state else { return .cancel(task) }
    state = .running(downstream, parent, task, demand: demand)
    return .resume(task)
  }

  /// The task answered, with a value (`succeeded`) or an error.
  mutating func answered(succeeded: Bool) -> AnswerAction {
    guard case .running(let downstream, _, _, _) = state else { return .ignore }
    state = succeeded ? .delivering : .terminal
    return .deliver(downstream)
  }

  /// The subscriber returned from receiving the value: returns whether `.finished` goes out.
  mutating func finished() -> Bool {
    guard case .delivering = state else { return false }
    state = .terminal
    return true
  }

  /// The subscriber cancelled.
  mutating func cancel() -> CancelAction {
    switch state {
    case .awaitingDemand(let downstream, _), .starting(let downstream, _, _):
      state = .terminal
      return .release(downstream)
    case .running(let downstream, _, let task, _):
      state = .terminal
      return .cancel(task, releasing: downstream)
    case .delivering:
      state = .terminal
      return .none
    case .terminal:
      return .none
    }
  }
}

/// The decisions of an `AsyncSequencePublisher` subscription, kept apart from its calls out
/// (DESIGN.md §3): each event updates the state under the subscription's lock and says what the
/// subscription does once the lock is released.
///
/// Generic over the task's handle and the waiting task's continuation, so that tests drive it
/// without threads. The sequence waits in the machine until the first demand, which starts the
/// task; the task takes demand out in batches (`takeDemand()`), and when there is none it
/// leaves a `Waiter` that the next request (or a cancel) hands back to be resumed. The events
/// of the subscriber and of the task's lifetime answer with an `Action`; what a cancel or the
/// end lets go of leaves in a `Released`, to be released after the lock.
@usableFromInline
struct AsyncSequenceSubscriptionStateMachine<Downstream, Base, Handle, Waiter> {
  @usableFromInline
  enum Phase {
    /// `receive(subscription:)` is running: demand is recorded, the task waits for it to return.
    case subscribing(Downstream, Base)
    /// Subscribed, nothing requested yet: no task, no work.
    case awaitingDemand(Downstream, Base)
    /// The task iterates. `task` is `nil` until its creation is reported; `waiter` is set while
    /// the task waits for demand.
    case running(Downstream, task: Handle?, waiter: Waiter?)
    /// Finished, failed or cancelled.
    case terminal
  }

  /// What the subscription does after the lock.
  @usableFromInline
  enum Action {
    case none
    /// The first demand: start the task that iterates this sequence, then report it with
    /// `taskStarted(_:)`.
    case start(Base)
    /// Wake the task waiting for demand.
    case resume(Waiter)
    /// Cancel the task, created after the subscription had ended.
    case cancelTask(Handle)
    /// The subscriber cancelled: cancel the task, wake it if it waits, and let go of the rest.
    case end(Released)
  }

  /// What the task does before it pulls.
  @usableFromInline
  enum PullAction {
    /// Pull up to this many elements (demand now held by the task).
    case pull(Subscribers.Demand)
    /// No demand: wait for some (`wait(_:)`), then ask again.
    case wait
    /// The subscription has ended: return.
    case stop
  }

  /// What a cancel or the end lets go of, after the lock.
  @usableFromInline
  struct Released {
    @usableFromInline
    var downstream: Downstream?
    @usableFromInline
    var base: Base?
    @usableFromInline
    var task: Handle?
    @usableFromInline
    var waiter: Waiter?

    @inlinable
    init(downstream: Downstream? = nil, base: Base? = nil, task: Handle? = nil, waiter: Waiter? = nil) {
      self.downstream = downstream
      self.base = base
      self.task = task
      self.waiter = waiter
    }
  }

  @usableFromInline
  var phase: Phase
  /// Requested and not yet taken by the task.
  @usableFromInline
  var demand = Subscribers.Demand.none

  @inlinable
  init(downstream: Downstream, base: Base) {
    phase = .subscribing(downstream, base)
  }

  /// `receive(subscription:)` returned: the task starts if demand came during it.
  @inlinable
  mutating func subscribed() -> Action {
    guard case .subscribing(let downstream, let base) = phase else { return .none }
    guard demand > 0 else {
      phase = .awaitingDemand(downstream, base)
      return .none
    }
    phase = .running(downstream, task: nil, waiter: nil)
    return .start(base)
  }

  /// The downstream requested `more` (never `.none`).
  @inlinable
  mutating func request(_ more: Subscribers.Demand) -> Action {
    switch phase {
    case .subscribing:
      demand += more
      return .none
    case .awaitingDemand(let downstream, let base):
      demand += more
      phase = .running(downstream, task: nil, waiter: nil)
      return .start(base)
    case .running(let downstream, let task, let waiter):
      demand += more
      guard let waiter else { return .none }
      phase = .running(downstream, task: task, waiter: nil)
      return .resume(waiter)
    case .terminal:
      return .none
    }
  }

  /// The task was created: hands it back, to be cancelled, when the subscription ended first.
  @inlinable
  mutating func taskStarted(_ task: Handle) -> Action {
    guard case .running(let downstream, nil, let waiter) = phase else { return .cancelTask(task) }
    phase = .running(downstream, task: task, waiter: waiter)
    return .none
  }

  /// The task is about to pull: takes all the demand granted so far.
  @inlinable
  mutating func takeDemand() -> PullAction {
    guard case .running = phase else { return .stop }
    guard demand > 0 else { return .wait }
    defer { demand = .none }
    return .pull(demand)
  }

  /// The task, told to wait, suspends with `waiter`: hands it back, to be resumed at once, when
  /// demand or the end came since `takeDemand()`.
  @inlinable
  mutating func wait(_ waiter: Waiter) -> Action {
    guard case .running(let downstream, let task, nil) = phase, demand == .none else { return .resume(waiter) }
    phase = .running(downstream, task: task, waiter: waiter)
    return .none
  }

  /// An element arrived: the downstream to deliver it to, or `nil` when the subscription ended
  /// while the task was pulling.
  @inlinable
  func downstreamForElement() -> Downstream? {
    guard case .running(let downstream, _, _) = phase else { return nil }
    return downstream
  }

  /// The sequence ended or threw: everything to let go of, with the downstream to complete, or
  /// `nil` when the subscription had already ended.
  @inlinable
  mutating func finish() -> Released? {
    guard case .running(let downstream, let task, let waiter) = phase else { return nil }
    phase = .terminal
    return Released(downstream: downstream, task: task, waiter: waiter)
  }

  /// The downstream cancelled: everything to let go of, with the task to cancel and the waiter
  /// to resume, unless the subscription had already ended.
  @inlinable
  mutating func cancel() -> Action {
    let released: Released
    switch phase {
    case .subscribing(let downstream, let base), .awaitingDemand(let downstream, let base):
      released = Released(downstream: downstream, base: base)
    case .running(let downstream, let task, let waiter):
      released = Released(downstream: downstream, task: task, waiter: waiter)
    case .terminal:
      return .none
    }
    phase = .terminal
    demand = .none
    return .end(released)
  }
}

import Conduit

/// The decisions of one subscriber's subscription to a `Timer.TimerPublisher`.
///
/// A tick goes out only against demand, as in Combine: one that finds no demand is dropped, not
/// kept for later. A tick that arrives while the subscriber is still receiving the one before
/// (a run loop run again from inside `receive(_:)`) is dropped too, so calls into the subscriber
/// never overlap.
struct TimerSubscriptionStateMachine<Downstream> {
  enum State {
    case active(Downstream, demand: Subscribers.Demand, delivering: Bool)
    case terminal
  }

  /// What the subscription does after its lock, for a tick.
  enum TickAction {
    case drop
    case deliver(Downstream)
  }

  private(set) var state: State

  init(downstream: Downstream) {
    state = .active(downstream, demand: .none, delivering: false)
  }

  /// A tick came: deliver it if there is demand and no delivery is under way.
  mutating func tick() -> TickAction {
    guard case .active(let downstream, let demand, let delivering) = state, demand > .none, !delivering else {
      return .drop
    }
    state = .active(downstream, demand: demand - 1, delivering: true)
    return .deliver(downstream)
  }

  /// The subscriber returned from `receive(_:)`, asking for `additional` more.
  mutating func delivered(additional: Subscribers.Demand) {
    guard case .active(let downstream, let demand, _) = state else { return }
    state = .active(downstream, demand: demand + additional, delivering: false)
  }

  /// The subscriber requested `demand` more.
  mutating func request(_ demand: Subscribers.Demand) {
    guard case .active(let downstream, let current, let delivering) = state else { return }
    state = .active(downstream, demand: current + demand, delivering: delivering)
  }

  /// The subscriber cancelled, or the connection ended: returns the subscriber, for the caller to
  /// release after the lock, or `nil` when the subscription had ended already.
  mutating func end() -> Downstream? {
    guard case .active(let downstream, _, _) = state else { return nil }
    state = .terminal
    return downstream
  }
}

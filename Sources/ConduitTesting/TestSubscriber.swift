import Conduit
import Synchronization

/// A subscriber that records everything it receives, for tests.
///
/// It requests `initialDemand` when subscribed and answers each value with `demandPerValue`;
/// tests can also ``request(_:)`` and ``cancel()`` by hand. It is thread-safe, and it records a
/// contract violation (a value beyond the demand, a second subscription, anything after the
/// completion, two calls at once) in ``violations`` instead of crashing.
///
/// This is an extension to Combine.
///
/// ```swift
/// let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
/// [1, 2, 3].publisher.subscribe(subscriber)
/// #expect(subscriber.values == [1, 2])
/// subscriber.request(.max(1))
/// #expect(subscriber.values == [1, 2, 3])
/// #expect(subscriber.completion == .finished)
/// ```
public final class TestSubscriber<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
  /// One thing the subscriber received.
  public enum Event {
    /// A subscription (``receive(subscription:)``).
    case subscription
    /// A value (``receive(_:)``).
    case value(Input)
    /// A completion (``receive(completion:)``).
    case completion(Subscribers.Completion<Failure>)
  }

  private struct State {
    var events: [Event] = []
    var subscription: (any Subscription)?
    var subscriptionCount = 0
    var outstanding = Subscribers.Demand.none
    var completed = false
    /// How many calls into this subscriber are running; more than one is an overlap.
    var callsRunning = 0
    var violations: [String] = []
    var onValue: ((Input) -> Void)?
  }

  // Guarded by its own lock.
  private let state: Locked<State>
  private let initialDemand: Subscribers.Demand
  private let demandPerValue: Subscribers.Demand

  /// Creates a subscriber that requests `initialDemand` on subscription (nothing for `.none`)
  /// and returns `demandPerValue` from each value.
  public init(initialDemand: Subscribers.Demand = .unlimited, demandPerValue: Subscribers.Demand = .none) {
    self.initialDemand = initialDemand
    self.demandPerValue = demandPerValue
    state = Locked(State())
  }

  /// Runs `action` for each value, inside `receive(_:)`, after recording it: the place to test
  /// re-entrancy (send, request or cancel from inside a delivery). The subscriber lets go of
  /// `action` when it completes or is cancelled, so `action` may capture the subscriber itself.
  public func onValue(_ action: @escaping (Input) -> Void) {
    withState { $0.onValue = action }
  }

  /// Everything received, in order.
  public var events: [Event] { withState { $0.events } }

  /// The values received, in order.
  public var values: [Input] {
    withState { state in
      state.events.compactMap { if case .value(let value) = $0 { return value } else { return nil } }
    }
  }

  /// The completion, once received.
  public var completion: Subscribers.Completion<Failure>? {
    withState { state in
      for case .completion(let completion) in state.events { return completion }
      return nil
    }
  }

  /// How many subscriptions were received (a correct publisher sends exactly one).
  public var subscriptionCount: Int { withState { $0.subscriptionCount } }

  /// The subscription received, until cancelled.
  public var subscription: (any Subscription)? { withState { $0.subscription } }

  /// Contract violations seen, described; empty for a well-behaved publisher.
  public var violations: [String] { withState { $0.violations } }

  /// Requests more values through the subscription.
  public func request(_ demand: Subscribers.Demand) {
    let subscription = withState { state -> (any Subscription)? in
      state.outstanding += demand
      return state.subscription
    }
    subscription?.request(demand)
  }

  /// Cancels the subscription, and drops the ``onValue(_:)`` hook with whatever it captured.
  public func cancel() {
    let subscription = withState { state -> (any Subscription)? in
      defer {
        state.subscription = nil
        state.onValue = nil
      }
      return state.subscription
    }
    subscription?.cancel()
  }

  /// Receives the subscription from the upstream publisher.
  public func receive(subscription: any Subscription) {
    let demand = withState { state -> Subscribers.Demand in
      state.subscriptionCount += 1
      state.events.append(.subscription)
      guard state.subscriptionCount == 1 else {
        state.violations.append("received a second subscription")
        return .none
      }
      state.subscription = subscription
      state.outstanding = initialDemand
      return initialDemand
    }
    if demand > 0 { subscription.request(demand) }
  }

  /// Receives a value from the upstream publisher and returns the additional demand.
  public func receive(_ input: Input) -> Subscribers.Demand {
    let action = withState { state -> ((Input) -> Void)? in
      if state.callsRunning > 0 { state.violations.append("receive(_:) entered while another call was running") }
      if state.subscriptionCount == 0 { state.violations.append("value before subscription") }
      if state.completed { state.violations.append("value after completion") }
      if state.outstanding == .none {
        state.violations.append("value beyond demand")
      } else if state.outstanding != .unlimited {
        state.outstanding -= 1
      }
      state.outstanding += demandPerValue
      state.events.append(.value(input))
      state.callsRunning += 1
      return state.onValue
    }
    action?(input)
    withState { $0.callsRunning -= 1 }
    return demandPerValue
  }

  /// Receives the completion from the upstream publisher.
  public func receive(completion: Subscribers.Completion<Failure>) {
    withState { state in
      if state.callsRunning > 0 {
        state.violations.append("receive(completion:) entered while another call was running")
      }
      if state.completed { state.violations.append("second completion") }
      state.completed = true
      state.events.append(.completion(completion))
      state.subscription = nil
      state.onValue = nil
    }
  }

  private func withState<R>(_ body: (inout State) -> R) -> R {
    state.withLock(body)
  }

}

extension TestSubscriber.Event: Equatable where Input: Equatable, Failure: Equatable {}

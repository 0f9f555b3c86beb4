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
public final class TestSubscriber<Input, Failure: Error>: Subscriber, Cancellable {
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
    /// How many values `next(_:timeout:)` has handed out.
    var taken = 0
    /// The `next(_:timeout:)` and `completion(timeout:)` calls waiting, oldest first.
    var waiters: [Waiter] = []
    var nextWaiterID = 0
  }

  /// An `async` call waiting for events: `poll` answers, under the lock, whether it is done (and
  /// how to resume it, after the lock); `timer` ends it after its timeout.
  private struct Waiter {
    let id: Int
    let poll: (inout State, _ ending: WaitEnding?) -> (() -> Void)?
    var timer: Task<Void, Never>?
  }

  /// Why a waiting call ends without what it waited for.
  private enum WaitEnding {
    case timedOut(Duration)
    case cancelled
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
    withState { Self.values(in: $0.events) }
  }

  /// The completion, once received.
  public var completion: Subscribers.Completion<Failure>? {
    withState { Self.completion(in: $0.events) }
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
    wakeWaiters()
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
    wakeWaiters()
  }

  private func withState<R>(_ body: (inout State) -> R) -> R {
    state.withLock(body)
  }

  // MARK: Waiting

  /// Returns the next `count` values that no earlier call took, once they have arrived.
  ///
  /// Waits without blocking a thread, in Swift Testing and XCTest async tests alike, for at most
  /// `timeout` of real time. Throws a ``TestSubscriberWaitError`` that says what arrived instead
  /// when the stream completes first, or the timeout passes; and `CancellationError` when the
  /// waiting task is cancelled. Calls made one after another take values in turn.
  ///
  /// This is an extension to Combine.
  ///
  /// ```swift
  /// let recorder = subject.record()
  /// subject.send(1)
  /// subject.send(2)
  /// #expect(try await recorder.next(2) == [1, 2])
  /// ```
  public func next(_ count: Int = 1, timeout: Duration = .seconds(1)) async throws -> [Input] {
    precondition(count >= 0, "next(\(count)): ask for zero or more values")
    return try await wait(timeout: timeout, describing: "next(\(count))") { state in
      let arrived = Self.values(in: state.events)
      let waiting = arrived.count - state.taken
      if waiting >= count {
        defer { state.taken += count }
        return .success(Array(arrived[state.taken..<state.taken + count]))
      }
      guard let completion = Self.completion(in: state.events) else { return nil }
      return .failure(
        TestSubscriberWaitError(
          reason: .completed,
          description:
            "next(\(count)): the stream \(Self.describe(completion)) after \(waiting) of the \(count) values asked for: \(Array(arrived[state.taken...]))"
        ))
    }
  }

  /// Returns the completion, once it has arrived.
  ///
  /// Waits without blocking a thread for at most `timeout` of real time; throws a
  /// ``TestSubscriberWaitError`` that says what arrived instead when the timeout passes, and
  /// `CancellationError` when the waiting task is cancelled.
  ///
  /// This is an extension to Combine.
  ///
  /// ```swift
  /// let recorder = [1, 2].publisher.record()
  /// #expect(try await recorder.completion() == .finished)
  /// ```
  public func completion(timeout: Duration = .seconds(1)) async throws -> Subscribers.Completion<Failure> {
    try await wait(timeout: timeout, describing: "completion") { state in
      Self.completion(in: state.events).map { .success($0) }
    }
  }

  /// Waits until `attempt` answers, under the lock, with what the call returns or throws; `nil`
  /// while it cannot tell yet.
  private func wait<Value>(
    timeout: Duration, describing call: String,
    _ attempt: @escaping (inout State) -> Result<Value, TestSubscriberWaitError>?
  ) async throws -> Value {
    let id = withState { state -> Int in
      defer { state.nextWaiterID += 1 }
      return state.nextWaiterID
    }
    let handoff = try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Handoff<Value>, any Error>) in
        let poll = { (state: inout State, ending: WaitEnding?) -> (() -> Void)? in
          switch attempt(&state) {
          case .success(let value)?:
            return { continuation.resume(returning: Handoff(value: value)) }
          case .failure(let error)?:
            return { continuation.resume(throwing: error) }
          case nil:
            switch ending {
            case nil:
              return nil
            case .cancelled:
              return { continuation.resume(throwing: CancellationError()) }
            case .timedOut(let timeout):
              let error = TestSubscriberWaitError(
                reason: .timedOut,
                description:
                  "\(call): nothing more arrived within \(timeout); not yet taken: \(Self.values(in: state.events).dropFirst(state.taken).map { $0 }), completion: \(Self.completion(in: state.events).map(Self.describe) ?? "none")"
              )
              return { continuation.resume(throwing: error) }
            }
          }
        }
        let ready = withState { state -> (() -> Void)? in
          if let ready = poll(&state, nil) { return ready }
          // A cancel that came before this call was waiting found nothing to end.
          if Task.isCancelled { return poll(&state, .cancelled) }
          state.waiters.append(Waiter(id: id, poll: poll, timer: nil))
          return nil
        }
        if let ready {
          ready()
          return
        }
        // The timer holds the subscriber weakly, and is cancelled as soon as the call is
        // answered, so that a finished test keeps nothing alive.
        let ender = WaiterEnder(subscriber: self)
        let timer = Task {
          do {
            try await Task.sleep(for: timeout)
          } catch {
            return
          }
          ender.end(id, .timedOut(timeout))
        }
        let answered = withState { state -> Bool in
          guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return true }
          state.waiters[index].timer = timer
          return false
        }
        if answered { timer.cancel() }
      }
    } onCancel: { [ender = WaiterEnder(subscriber: self)] in
      ender.end(id, .cancelled)
    }
    return handoff.value
  }

  /// The subscriber as a waiting call's timer and cancellation handler hold it, on other threads,
  /// whatever its `Input`: weakly, so that they keep nothing alive. `@unchecked`, as the subscriber
  /// is `Sendable` only when its values are; all these do with it is `endWaiter(_:_:)`, which works
  /// under `state`'s lock and hands what it finds to the waiting call's continuation alone.
  private struct WaiterEnder: @unchecked Sendable {
    weak var subscriber: TestSubscriber?

    func end(_ id: Int, _ ending: WaitEnding) {
      subscriber?.endWaiter(id, ending)
    }
  }

  /// Carries what a waiting call returns from the thread that delivered it to the waiting task:
  /// `@unchecked`, as the values need not be `Sendable`; the task is the only one to see them.
  private struct Handoff<Value>: @unchecked Sendable {
    let value: Value
  }

  /// Answers the waiting calls that the events so far satisfy, oldest first.
  private func wakeWaiters() {
    let answers = withState { state -> [(() -> Void, Task<Void, Never>?)] in
      guard !state.waiters.isEmpty else { return [] }
      var answers: [(() -> Void, Task<Void, Never>?)] = []
      var index = 0
      while index < state.waiters.count {
        if let answer = state.waiters[index].poll(&state, nil) {
          answers.append((answer, state.waiters[index].timer))
          state.waiters.remove(at: index)
        } else {
          index += 1
        }
      }
      return answers
    }
    for (answer, timer) in answers {
      timer?.cancel()
      answer()
    }
  }

  /// Ends waiting call `id`, if it still waits, because of `ending`.
  private func endWaiter(_ id: Int, _ ending: WaitEnding) {
    let answer = withState { state -> (() -> Void, Task<Void, Never>?)? in
      guard let index = state.waiters.firstIndex(where: { $0.id == id }),
        let answer = state.waiters[index].poll(&state, ending)
      else { return nil }
      return (answer, state.waiters.remove(at: index).timer)
    }
    guard let (answer, timer) = answer else { return }
    timer?.cancel()
    answer()
  }

  private static func values(in events: [Event]) -> [Input] {
    events.compactMap { if case .value(let value) = $0 { return value } else { return nil } }
  }

  private static func completion(in events: [Event]) -> Subscribers.Completion<Failure>? {
    for case .completion(let completion) in events { return completion }
    return nil
  }

  private static func describe(_ completion: Subscribers.Completion<Failure>) -> String {
    switch completion {
    case .finished: return "finished"
    case .failure(let error): return "failed with \(error)"
    }
  }

}

// Sendable only when its values are: it keeps what it receives, and hands it to any thread that
// reads it or waits for it. What it keeps is guarded by `state`'s lock.
extension TestSubscriber: Sendable where Input: Sendable {}

extension TestSubscriber.Event: Equatable where Input: Equatable, Failure: Equatable {}

extension TestSubscriber.Event: Sendable where Input: Sendable {}

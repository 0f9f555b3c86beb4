import Conduit
import Synchronization

/// A hot source for one subscriber that a test drives by hand and can await: it delivers a value
/// only against demand, dropping it otherwise as a subject does, and `waitForRequests(_:)`
/// returns once the subscriber has made that many requests, recorded before the wait ends, so
/// that a value sent then is never dropped for lack of demand.
final class DemandAwaitingPublisher<Output, Failure: Error>: Publisher, Subscription, @unchecked Sendable {
  private struct State {
    var subscriber: AnySubscriber<Output, Failure>?
    var outstanding = Subscribers.Demand.none
    var requests: [Subscribers.Demand] = []
    var cancelled = false
    var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    mutating func takeWaiters(where isReady: (Int) -> Bool) -> [CheckedContinuation<Void, Never>] {
      let ready = waiters.filter { isReady($0.count) }.map(\.continuation)
      waiters.removeAll { isReady($0.count) }
      return ready
    }
  }

  private let state = Locked(State())

  init() {}

  var requests: [Subscribers.Demand] { state.withLock { $0.requests } }

  var isCancelled: Bool { state.withLock { $0.cancelled } }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    state.withLock { $0.subscriber = AnySubscriber(subscriber) }
    subscriber.receive(subscription: self)
  }

  func request(_ demand: Subscribers.Demand) {
    let ready = state.withLock { box -> [CheckedContinuation<Void, Never>] in
      box.outstanding += demand
      box.requests.append(demand)
      let made = box.requests.count
      return box.takeWaiters { $0 <= made }
    }
    for waiter in ready { waiter.resume() }
  }

  func cancel() {
    let ready = state.withLock { box -> [CheckedContinuation<Void, Never>] in
      box.cancelled = true
      box.subscriber = nil
      return box.takeWaiters { _ in true }
    }
    for waiter in ready { waiter.resume() }
  }

  /// Returns once `count` requests have been made in all, or the subscription was cancelled.
  func waitForRequests(_ count: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = state.withLock { box -> Bool in
        if box.cancelled || box.requests.count >= count { return true }
        box.waiters.append((count, continuation))
        return false
      }
      if now { continuation.resume() }
    }
  }

  /// Sends `value` if the subscriber has demand for it: returns whether it was delivered.
  @discardableResult
  func send(_ value: Output) -> Bool {
    let subscriber = state.withLock { box -> AnySubscriber<Output, Failure>? in
      guard box.outstanding > .none, let subscriber = box.subscriber else { return nil }
      if box.outstanding != .unlimited { box.outstanding -= 1 }
      return subscriber
    }
    guard let subscriber else { return false }
    let more = subscriber.receive(value)
    state.withLock { $0.outstanding += more }
    return true
  }

  func send(completion: Subscribers.Completion<Failure>) {
    let subscriber = state.withLock { box in
      defer { box.subscriber = nil }
      return box.subscriber
    }
    subscriber?.receive(completion: completion)
  }
}

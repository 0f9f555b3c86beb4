import Conduit
import Synchronization
import Testing

/// A publisher of `offset + 0..<count` that respects demand, for stress tests that need a source
/// which, unlike a subject, never drops a value for lack of demand. Emission is serialized by a
/// drain flag (never calling out under its lock) and happens on whichever thread calls `pump()`
/// and, with `emitsOnRequest`, inside `request`. With `subscribesImmediately` false, the
/// subscriber gets its subscription only from `giveSubscription()`, so that a test can race that
/// moment against other threads.
final class PumpSource: Publisher, Subscription, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never

  private struct State {
    var subscriber: AnySubscriber<Int, Never>?
    var demand = Subscribers.Demand.none
    var requested = Subscribers.Demand.none
    var next = 0
    var draining = false
    var again = false
    var cancelled = false
    var finished = false
  }

  private enum Step {
    case value(AnySubscriber<Int, Never>, Int)
    case finish(AnySubscriber<Int, Never>)
    case again
    case stop
  }

  private let state = Locked(State())
  private let count: Int
  private let emitsOnRequest: Bool
  private let subscribesImmediately: Bool
  private let finishes: Bool
  private let offset: Int

  init(count: Int, emitsOnRequest: Bool, subscribesImmediately: Bool = true, finishes: Bool = false, offset: Int = 0) {
    self.count = count
    self.emitsOnRequest = emitsOnRequest
    self.subscribesImmediately = subscribesImmediately
    self.finishes = finishes
    self.offset = offset
  }

  /// Everything asked of this source so far, by `request` and by the subscriber's answers.
  var totalRequested: Subscribers.Demand { withState { $0.requested } }
  var isFinished: Bool { withState { $0.finished } }
  var isCancelled: Bool { withState { $0.cancelled } }
  var isExhausted: Bool { withState { $0.next == count || $0.cancelled } }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    withState { $0.subscriber = AnySubscriber(subscriber) }
    if subscribesImmediately { subscriber.receive(subscription: self) }
  }

  func giveSubscription() {
    withState { $0.subscriber }?.receive(subscription: self)
  }

  func request(_ demand: Subscribers.Demand) {
    withState {
      $0.demand += demand
      $0.requested += demand
    }
    if emitsOnRequest { pump() }
  }

  func cancel() {
    withState { state in
      state.cancelled = true
      state.subscriber = nil
    }
  }

  /// Sends what the demand allows, and the completion once every value is out if the source
  /// `finishes`. A call that finds another thread sending makes that thread look again instead.
  func pump() {
    let claimed = withState { state -> Bool in
      if state.draining {
        state.again = true
        return false
      }
      state.draining = true
      return true
    }
    guard claimed else { return }
    while true {
      let step = withState { state -> Step in
        if let subscriber = state.subscriber, !state.cancelled {
          if state.next < count, state.demand > 0 {
            state.demand -= 1
            defer { state.next += 1 }
            return .value(subscriber, state.next)
          }
          if state.next == count, finishes, !state.finished {
            state.finished = true
            state.subscriber = nil
            return .finish(subscriber)
          }
        }
        if state.again {
          state.again = false
          return .again
        }
        state.draining = false
        return .stop
      }
      switch step {
      case .value(let subscriber, let value):
        let more = subscriber.receive(offset + value)
        if more > 0 {
          withState {
            $0.demand += more
            $0.requested += more
          }
        }
      case .finish(let subscriber):
        subscriber.receive(completion: .finished)
      case .again:
        continue
      case .stop:
        return
      }
    }
  }

  private func withState<R>(_ body: (inout State) -> R) -> R {
    state.withLock { body(&$0) }
  }
}

import ConduitTesting
import Testing

@testable import Conduit

/// The debounce's decisions, without threads, a scheduler or a downstream; time is an `Int`.
@Suite(.leakChecked)
struct DebounceStateMachineTests {
  fileprivate typealias Machine = DebounceStateMachine<Int, Oops, Int>

  private func subscribed(demand: Subscribers.Demand = .unlimited) -> Machine {
    var machine = Machine()
    #expect(machine.receive(subscription: SpySubscription()) == true)
    // The subscribing call owns the downstream until it has drained.
    guard case .idle = machine.nextDelivery(adding: .none) else {
      Issue.record("a fresh debounce has nothing to deliver")
      return machine
    }
    machine.request(demand)
    return machine
  }

  /// Timer `timer` fires at `now`: the action, the element it hands out (delivered or dropped)
  /// and the timer's cancellable, to be cancelled.
  private func fire(
    _ machine: inout Machine, _ timer: UInt64, at now: Int
  ) -> (
    Machine.TimerAction, Int?, (any Cancellable)?
  ) {
    let action = machine.timerFired(timer, at: now)
    switch action {
    case .none: return (action, nil, nil)
    case .stopTimer(let cancelling, let dropped): return (action, dropped, cancelling)
    case .deliver(let value, let cancelling): return (action, value, cancelling)
    case .rearm(_, _, let cancelling): return (action, nil, cancelling)
    }
  }

  /// An element arrives, due at `deadline`: the timer to arm, if any, and the element released.
  private func receive(_ machine: inout Machine, _ input: Int, deadline: Int) -> (timer: UInt64?, released: Int?) {
    switch machine.receive(input, deadline: deadline) {
    case .release(let released): (nil, released)
    case .arm(let timer, let released): (timer, released)
    }
  }

  @Test func aSecondSubscriptionIsRefused() {
    var machine = subscribed()
    #expect(machine.receive(subscription: SpySubscription()) == false)
  }

  @Test func aBurstOfValuesArmsOneTimerAndMovesItsDeadline() {
    var machine = subscribed()
    #expect(receive(&machine, 1, deadline: 10).timer == 1)
    for value in 2...100 {
      #expect(receive(&machine, value, deadline: 10 + value) == (nil, value - 1))
    }
    #expect(machine.timer.deadline == 110)
    #expect(machine.pending == 100)
  }

  @Test func aTimerThatFiresBeforeTheMovedDeadlineIsReplaced() {
    var machine = subscribed()
    let first = receive(&machine, 1, deadline: 10).timer!
    let spy = SpySubscription()
    #expect(machine.timer.armed(first, spy) == nil)
    _ = receive(&machine, 2, deadline: 14).timer
    let (action, value, cancelling) = fire(&machine, first, at: 10)
    guard case .rearm(let second, 14, _) = action else {
      Issue.record("the deadline moved: a new timer is armed, got \(action)")
      return
    }
    #expect(value == nil)
    #expect(cancelling as? SpySubscription === spy)
    #expect(machine.timer.deadline == 14)
    // A repetition of the first timer that the scheduler did not stop is ignored.
    guard case .none = fire(&machine, first, at: 12).0 else {
      Issue.record("a stale timer is ignored")
      return
    }
    let (due, delivered, _) = fire(&machine, second, at: 14)
    guard case .deliver = due else {
      Issue.record("the element is due at its deadline, got \(due)")
      return
    }
    #expect(delivered == 2)
    #expect(!machine.timer.isPending)
  }

  @Test func aCancellableThatComesAfterItsTimerFiredIsHandedBackToBeCancelled() {
    // The immediate scheduler runs the action before `schedule` returns.
    var machine = subscribed()
    let timer = receive(&machine, 1, deadline: 0).timer!
    guard case .deliver = fire(&machine, timer, at: 0).0 else {
      Issue.record("due at once")
      return
    }
    let spy = SpySubscription()
    #expect(machine.timer.armed(timer, spy) as? SpySubscription === spy)
  }

  @Test func anElementThatComesDueWithoutDemandIsDropped() {
    var machine = subscribed(demand: .max(1))
    let first = receive(&machine, 1, deadline: 10).timer!
    #expect(fire(&machine, first, at: 10).1 == 1)
    #expect(machine.demand == .none)
    let second = receive(&machine, 2, deadline: 20).timer!
    let (action, dropped, _) = fire(&machine, second, at: 20)
    guard case .stopTimer(_, dropping: .some(2)) = action else {
      Issue.record("without demand the element is dropped, got \(action)")
      return
    }
    #expect(dropped == 2)
    #expect(machine.pending == nil)
  }

  @Test func elementsThatComeDueWhileAnotherCallDeliversWaitInOrder() {
    var machine = subscribed()
    let first = receive(&machine, 1, deadline: 10).timer!
    guard case .deliver = fire(&machine, first, at: 10).0 else { return }
    // While that call delivers 1, two more come due on other threads.
    let second = receive(&machine, 2, deadline: 20).timer!
    guard case .stopTimer(_, dropping: nil) = fire(&machine, second, at: 20).0 else {
      Issue.record("the owner delivers it")
      return
    }
    let third = receive(&machine, 3, deadline: 30).timer!
    _ = fire(&machine, third, at: 30)
    guard case .deliver(2) = machine.nextDelivery(adding: .none),
      case .deliver(3) = machine.nextDelivery(adding: .none),
      case .idle = machine.nextDelivery(adding: .none)
    else {
      Issue.record("the waiting elements go out in order")
      return
    }
  }

  @Test func theCompletionDropsTheWaitingElementStopsTheTimerAndWaitsForTheScheduler() {
    var machine = subscribed()
    let timer = receive(&machine, 1, deadline: 10).timer!
    let spy = SpySubscription()
    _ = machine.timer.armed(timer, spy)
    guard case .schedule(let cancelling, dropping: .some(1)) = machine.receive(completion: .failure(Oops())) else {
      Issue.record("the completion is scheduled, dropping the waiting element")
      return
    }
    #expect(cancelling as? SpySubscription === spy)
    guard case .completing = machine.state else {
      Issue.record("the completion waits for the scheduler")
      return
    }
    #expect(machine.upstream == nil, "the upstream is let go of once it completed")
    // Values and completions after the completion are ignored.
    #expect(receive(&machine, 2, deadline: 20) == (nil, 2))
    guard case .none = machine.receive(completion: .finished) else {
      Issue.record("a second completion is ignored")
      return
    }
    #expect(machine.completionCameDue() == true)
    guard case .complete(let completion) = machine.nextDelivery(adding: .none) else {
      Issue.record("the completion goes out once the scheduler ran it")
      return
    }
    #expect(completion == .failure(Oops()))
    guard case .terminal = machine.state else {
      Issue.record("the stream has ended")
      return
    }
  }

  @Test func aCancelReleasesEverythingAndEndsTheStream() {
    var machine = subscribed()
    let timer = receive(&machine, 1, deadline: 10).timer!
    let spy = SpySubscription()
    _ = machine.timer.armed(timer, spy)
    guard case .release(let bundle) = machine.cancel() else {
      Issue.record("the cancel ends the stream")
      return
    }
    #expect(bundle.upstream != nil)
    #expect(machine.upstream == nil)
    #expect(bundle.timer as? SpySubscription === spy)
    #expect(bundle.pending == 1)
    guard case .none = machine.cancel() else {
      Issue.record("a second cancel is ignored")
      return
    }
    guard case .none = fire(&machine, timer, at: 10).0 else {
      Issue.record("nothing after cancel")
      return
    }
  }

  @Test func nothingHappensBeforeTheSubscription() {
    var machine = Machine()
    #expect(receive(&machine, 1, deadline: 10) == (nil, 1))
    machine.request(.max(1))
    #expect(machine.demand == .none)
    guard case .none = machine.cancel() else {
      Issue.record("a cancel before the subscription is ignored, as in Combine")
      return
    }
  }
}

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
    var value: Int?
    var completion: Subscribers.Completion<Oops>?
    guard case .idle = machine.nextStep(adding: .none, value: &value, completion: &completion) else {
      Issue.record("a fresh debounce has nothing to deliver")
      return machine
    }
    machine.request(demand)
    return machine
  }

  private func fire(
    _ machine: inout Machine, _ timer: UInt64, at now: Int
  ) -> (
    Machine.TimerAction, Int?, (any Cancellable)?
  ) {
    var value: Int?
    var cancelling: (any Cancellable)?
    let action = machine.timerFired(timer, at: now, value: &value, cancelling: &cancelling)
    return (action, value, cancelling)
  }

  @Test func aSecondSubscriptionIsRefused() {
    var machine = subscribed()
    #expect(machine.receive(subscription: SpySubscription()) == false)
  }

  @Test func aBurstOfValuesArmsOneTimerAndMovesItsDeadline() {
    var machine = subscribed()
    var released: Int?
    #expect(machine.receive(1, deadline: 10, released: &released) == 1)
    for value in 2...100 {
      #expect(machine.receive(value, deadline: 10 + value, released: &released) == nil)
      #expect(released == value - 1)
    }
    #expect(machine.timer.deadline == 110)
    #expect(machine.pending == 100)
  }

  @Test func aTimerThatFiresBeforeTheMovedDeadlineIsReplaced() {
    var machine = subscribed()
    var released: Int?
    let first = machine.receive(1, deadline: 10, released: &released)!
    let spy = SpySubscription()
    #expect(machine.timer.armed(first, spy) == nil)
    _ = machine.receive(2, deadline: 14, released: &released)
    let (action, value, cancelling) = fire(&machine, first, at: 10)
    guard case .rearm(let second) = action else {
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
    var released: Int?
    let timer = machine.receive(1, deadline: 0, released: &released)!
    guard case .deliver = fire(&machine, timer, at: 0).0 else {
      Issue.record("due at once")
      return
    }
    let spy = SpySubscription()
    #expect(machine.timer.armed(timer, spy) as? SpySubscription === spy)
  }

  @Test func anElementThatComesDueWithoutDemandIsDropped() {
    var machine = subscribed(demand: .max(1))
    var released: Int?
    let first = machine.receive(1, deadline: 10, released: &released)!
    #expect(fire(&machine, first, at: 10).1 == 1)
    #expect(machine.demand == .none)
    let second = machine.receive(2, deadline: 20, released: &released)!
    let (action, dropped, _) = fire(&machine, second, at: 20)
    guard case .none = action else {
      Issue.record("without demand the element is dropped, got \(action)")
      return
    }
    #expect(dropped == 2)
    #expect(machine.pending == nil)
  }

  @Test func elementsThatComeDueWhileAnotherCallDeliversWaitInOrder() {
    var machine = subscribed()
    var released: Int?
    let first = machine.receive(1, deadline: 10, released: &released)!
    guard case .deliver = fire(&machine, first, at: 10).0 else { return }
    // While that call delivers 1, two more come due on other threads.
    let second = machine.receive(2, deadline: 20, released: &released)!
    guard case .none = fire(&machine, second, at: 20).0 else {
      Issue.record("the owner delivers it")
      return
    }
    let third = machine.receive(3, deadline: 30, released: &released)!
    _ = fire(&machine, third, at: 30)
    var value: Int?
    var completion: Subscribers.Completion<Oops>?
    guard case .deliver = machine.nextStep(adding: .none, value: &value, completion: &completion), value == 2,
      case .deliver = machine.nextStep(adding: .none, value: &value, completion: &completion), value == 3,
      case .idle = machine.nextStep(adding: .none, value: &value, completion: &completion)
    else {
      Issue.record("the waiting elements go out in order")
      return
    }
  }

  @Test func theCompletionDropsTheWaitingElementStopsTheTimerAndWaitsForTheScheduler() {
    var machine = subscribed()
    var released: Int?
    let timer = machine.receive(1, deadline: 10, released: &released)!
    let spy = SpySubscription()
    _ = machine.timer.armed(timer, spy)
    var dropped: Int?
    var cancelling: (any Cancellable)?
    #expect(machine.receive(completion: .failure(Oops()), dropped: &dropped, cancelling: &cancelling) == true)
    #expect(dropped == 1)
    #expect(cancelling as? SpySubscription === spy)
    #expect(machine.upstream == nil)
    // Values and completions after the completion are ignored.
    #expect(machine.receive(2, deadline: 20, released: &released) == nil)
    #expect(released == 2)
    #expect(machine.receive(completion: .finished, dropped: &dropped, cancelling: &cancelling) == false)
    #expect(machine.completionCameDue() == true)
    var value: Int?
    var completion: Subscribers.Completion<Oops>?
    guard case .complete = machine.nextStep(adding: .none, value: &value, completion: &completion) else {
      Issue.record("the completion goes out once the scheduler ran it")
      return
    }
    #expect(completion == .failure(Oops()))
    #expect(machine.phase == .terminal)
  }

  @Test func aCancelReleasesEverythingAndEndsTheStream() {
    var machine = subscribed()
    var released: Int?
    let timer = machine.receive(1, deadline: 10, released: &released)!
    let spy = SpySubscription()
    _ = machine.timer.armed(timer, spy)
    var bundle = Machine.Released()
    #expect(machine.cancel(released: &bundle) == true)
    #expect(bundle.upstream != nil)
    #expect(bundle.timer as? SpySubscription === spy)
    #expect(bundle.pending == 1)
    #expect(machine.cancel(released: &bundle) == false)
    guard case .none = fire(&machine, timer, at: 10).0 else {
      Issue.record("nothing after cancel")
      return
    }
  }

  @Test func nothingHappensBeforeTheSubscription() {
    var machine = Machine()
    var released: Int?
    #expect(machine.receive(1, deadline: 10, released: &released) == nil)
    #expect(released == 1)
    machine.request(.max(1))
    #expect(machine.demand == .none)
    var bundle = Machine.Released()
    #expect(machine.cancel(released: &bundle) == false)
  }
}

import ConduitTesting
import Testing

@testable import Conduit

/// The decisions of `collect(_:options:)` by time, without threads or a scheduler.
@Suite(.leakChecked)
struct CollectByTimeStateMachineTests {
  fileprivate typealias Machine = CollectByTimeStateMachine<Int, Oops>

  private func subscribed(count: Int? = nil, upstream: SpySubscription = SpySubscription()) -> Machine {
    var machine = Machine(count: count)
    #expect(machine.receive(subscription: upstream) == (count == nil ? .unlimited : Subscribers.Demand.none))
    return machine
  }

  /// Everything the owner delivers now, as a drain would.
  private func drain(_ machine: inout Machine) -> [String] {
    var steps: [String] = []
    while true {
      switch machine.nextDelivery() {
      case .perform(let work):
        steps.append(describe(work))
      case .performAndStop(let work):
        steps.append(describe(work))
        return steps
      case .stop:
        return steps
      }
    }
  }

  @Test func aTickPublishesWhatWasCollectedSinceThePreviousOne() {
    var machine = subscribed()
    #expect(machine.request(.unlimited).drains == true)
    #expect(drain(&machine).isEmpty)
    #expect(machine.receive(1).drains == false)
    #expect(machine.receive(2).drains == false)
    #expect(machine.timerFired().drains == true)
    #expect(drain(&machine) == ["deliver [1, 2]"])
    // An empty window publishes nothing.
    #expect(machine.timerFired().drains == false)
  }

  @Test func aFullGroupGoesOutAtOnceAndRequestsAskForCountTimesAsMany() {
    let upstream = SpySubscription()
    var machine = subscribed(count: 2, upstream: upstream)
    let followup = machine.request(.max(3))
    #expect(followup.request?.demand == .max(6))
    #expect(followup.request?.upstream as? SpySubscription === upstream)
    _ = drain(&machine)
    #expect(machine.receive(1).drains == false)
    #expect(machine.receive(2).drains == true)
    #expect(drain(&machine) == ["deliver [1, 2]"])
    #expect(machine.request(.unlimited).request?.demand == .unlimited)
  }

  @Test func groupsWaitForDemandInOrder() {
    var machine = subscribed()
    _ = drain(&machine)
    _ = machine.receive(1)
    #expect(machine.timerFired().drains == true)
    #expect(drain(&machine).isEmpty)
    _ = machine.receive(2)
    #expect(machine.timerFired().drains == true)
    #expect(drain(&machine).isEmpty)
    _ = machine.request(.max(1))
    #expect(drain(&machine) == ["deliver [1]"])
    _ = machine.request(.max(1))
    #expect(drain(&machine) == ["deliver [2]"])
  }

  @Test func finishingPublishesWhatIsCollectedThenFinishesAndStopsTheTimer() {
    var machine = subscribed()
    #expect(machine.timerStarted(Subscriptions.empty) == true)
    _ = machine.request(.unlimited)
    _ = drain(&machine)
    _ = machine.receive(1)
    let followup = machine.receive(completion: .finished)
    #expect(followup.cancel?.timer != nil)
    #expect(followup.cancel?.upstream == nil)
    #expect(followup.drains)
    #expect(drain(&machine) == ["deliver [1]", "complete finished"])
    #expect(machine.receive(2).drains == false)
  }

  @Test func aFailureDropsWhatIsCollected() {
    var machine = subscribed()
    _ = machine.receive(1)
    _ = machine.timerFired()
    #expect(drain(&machine).isEmpty)
    _ = machine.receive(2)
    let failed = machine.receive(completion: .failure(Oops()))
    #expect(failed.drains)
    #expect(drain(&machine) == ["complete failure"])
  }

  @Test func cancelStopsTheTimerAndTheUpstream() {
    let upstream = SpySubscription()
    var machine = subscribed(upstream: upstream)
    _ = drain(&machine)
    _ = machine.timerStarted(Subscriptions.empty)
    let followup = machine.cancel()
    #expect(followup.cancel?.timer != nil)
    #expect(followup.cancel?.upstream as? SpySubscription === upstream)
    #expect(drain(&machine) == ["release"])
    let again = machine.cancel()
    #expect(again.cancel == nil)
    // A timer that starts after the cancel is not kept.
    #expect(machine.timerStarted(Subscriptions.empty) == false)
  }
}

private func describe(_ work: CollectByTimeStateMachine<Int, Oops>.Work) -> String {
  switch work {
  case .deliver(let group): return "deliver \(group)"
  case .complete(.finished): return "complete finished"
  case .complete(.failure): return "complete failure"
  case .release: return "release"
  }
}

import ConduitTesting
import Testing

@testable import Conduit

/// The decisions of `receive(on:)` and `delay`, without threads or a scheduler.
@Suite(.leakChecked)
struct ScheduledDeliveryStateMachineTests {
  fileprivate typealias Machine = ScheduledDeliveryStateMachine<Int, Oops>

  /// A machine whose upstream has subscribed and whose subscribing call has handed the
  /// downstream its subscription.
  private func subscribed(_ upstream: SpySubscription = SpySubscription()) -> Machine {
    var machine = Machine()
    #expect(machine.receive(subscription: upstream) == true)
    #expect(machine.subscriptionHandedOver() == 0)
    return machine
  }

  @Test func onlyTheFirstSubscriptionIsKept() {
    var machine = subscribed()
    #expect(machine.receive(subscription: SpySubscription()) == false)
  }

  @Test func eachRunDeliversTheOldestElementThenTheCompletion() {
    var machine = subscribed()
    #expect(machine.receive(1) == true)
    #expect(machine.receive(2) == true)
    #expect(machine.receive(completion: .finished) == true)
    // Nothing is taken after the completion.
    #expect(machine.receive(3) == false)
    #expect(machine.receive(completion: .finished) == false)
    #expect(describe(machine.run()) == "deliver 1")
    #expect(describe(machine.stepDone()) == "idle")
    #expect(describe(machine.run()) == "deliver 2")
    #expect(describe(machine.stepDone()) == "idle")
    #expect(describe(machine.run()) == "complete finished")
    #expect(describe(machine.stepDone()) == "release")
  }

  @Test func aRunThatFindsDeliveryTakenLeavesItsElementToTheOwner() {
    var machine = subscribed()
    _ = machine.receive(1)
    _ = machine.receive(2)
    #expect(describe(machine.run()) == "deliver 1")
    // A second run starts while the first still delivers.
    #expect(describe(machine.run()) == "idle")
    #expect(machine.owedRuns == 1)
    #expect(describe(machine.stepDone()) == "deliver 2")
    #expect(describe(machine.stepDone()) == "idle")
  }

  @Test func runsDuringTheSubscriptionAreScheduledAgainOnceItHasGoneDown() {
    var machine = Machine()
    #expect(machine.receive(subscription: SpySubscription()) == true)
    _ = machine.receive(1)
    #expect(describe(machine.run()) == "idle")
    // The subscribing thread delivers nothing itself: the run goes back to the scheduler.
    #expect(machine.subscriptionHandedOver() == 1)
    #expect(describe(machine.run()) == "deliver 1")
    #expect(describe(machine.stepDone()) == "idle")
  }

  @Test func aCancelDuringTheSubscriptionLeavesNothingToSchedule() {
    var machine = Machine()
    #expect(machine.receive(subscription: SpySubscription()) == true)
    _ = machine.receive(1)
    _ = machine.run()
    #expect(machine.cancel()?.ownsDelivery == false)
    #expect(machine.subscriptionHandedOver() == nil)
  }

  @Test func requestsGoToTheUpstreamUntilTheEnd() {
    let upstream = SpySubscription()
    var machine = subscribed(upstream)
    #expect(machine.runningUpstream as? SpySubscription === upstream)
    _ = machine.receive(completion: .failure(Oops()))
    #expect(machine.runningUpstream == nil)
  }

  @Test func cancelDropsWhatWaitsAndForgetsTheUpstream() {
    let upstream = SpySubscription()
    var machine = subscribed(upstream)
    _ = machine.receive(1)
    _ = machine.receive(2)
    let cancelled = machine.cancel()
    #expect(cancelled?.upstream as? SpySubscription === upstream)
    #expect(cancelled?.ownsDelivery == true)
    #expect(cancelled?.dropped.count == 2)
    #expect(machine.cancel() == nil)
    // The runs scheduled for the dropped elements find nothing.
    #expect(describe(machine.run()) == "idle")
    #expect(machine.receive(3) == false)
  }

  @Test func aCancelDuringADeliveryLeavesTheReleaseToTheOwner() {
    var machine = subscribed()
    _ = machine.receive(1)
    #expect(describe(machine.run()) == "deliver 1")
    #expect(machine.cancel()?.ownsDelivery == false)
    #expect(describe(machine.stepDone()) == "release")
  }
}

private func describe(_ step: ScheduledDeliveryStateMachine<Int, Oops>.Delivery) -> String {
  switch step {
  case .deliver(let value): return "deliver \(value)"
  case .complete(.finished): return "complete finished"
  case .complete(.failure): return "complete failure"
  case .release: return "release"
  case .idle: return "idle"
  }
}

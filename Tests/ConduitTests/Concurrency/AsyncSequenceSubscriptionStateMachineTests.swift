import Testing

@testable import Conduit

/// The machine of an `AsyncSequencePublisher` subscription, driven by hand: strings stand for
/// the downstream, the sequence, the task and the waiting task's continuation.
@Suite(.leakChecked)
struct AsyncSequenceSubscriptionStateMachineTests {
  typealias Machine = AsyncSequenceSubscriptionStateMachine<String, String, String, String>

  private func started(_ action: Machine.RequestAction) -> String? {
    if case .start(let base) = action { return base }
    return nil
  }

  private func resumed(_ action: Machine.RequestAction) -> String? {
    if case .resume(let waiter) = action { return waiter }
    return nil
  }

  private func isNone(_ action: Machine.RequestAction) -> Bool {
    if case .none = action { return true }
    return false
  }

  private func pulled(_ action: Machine.PullAction) -> Subscribers.Demand? {
    if case .pull(let demand) = action { return demand }
    return nil
  }

  private func isWait(_ action: Machine.PullAction) -> Bool {
    if case .wait = action { return true }
    return false
  }

  private func isStop(_ action: Machine.PullAction) -> Bool {
    if case .stop = action { return true }
    return false
  }

  /// A machine whose task runs, has been reported, and has taken no demand yet.
  private func running(demand: Subscribers.Demand = .max(2)) -> Machine {
    var machine = Machine(downstream: "downstream", base: "base")
    #expect(machine.subscribed() == nil)
    #expect(started(machine.request(demand)) == "base")
    #expect(machine.taskStarted("task") == nil)
    return machine
  }

  @Test func demandDuringReceiveSubscriptionStartsTheTaskOnlyOnceItReturns() {
    var machine = Machine(downstream: "downstream", base: "base")
    #expect(isNone(machine.request(.max(1))))
    #expect(isNone(machine.request(.max(2))))
    #expect(machine.subscribed() == "base")
    #expect(machine.taskStarted("task") == nil)
    #expect(pulled(machine.takeDemand()) == .max(3))
  }

  @Test func withoutDemandNothingStartsUntilTheFirstRequest() {
    var machine = Machine(downstream: "downstream", base: "base")
    #expect(machine.subscribed() == nil)
    #expect(started(machine.request(.max(1))) == "base")
    #expect(isNone(machine.request(.max(1))))
    #expect(machine.taskStarted("task") == nil)
    #expect(pulled(machine.takeDemand()) == .max(2))
  }

  @Test func theTaskTakesAllTheDemandThenWaits() {
    var machine = running(demand: .max(2))
    #expect(pulled(machine.takeDemand()) == .max(2))
    #expect(isWait(machine.takeDemand()))
  }

  @Test func unlimitedDemandIsTakenOnce() {
    var machine = running(demand: .unlimited)
    #expect(pulled(machine.takeDemand()) == .unlimited)
    #expect(isNone(machine.request(.max(1))))
  }

  @Test func aRequestWakesTheWaitingTask() {
    var machine = running(demand: .max(1))
    _ = machine.takeDemand()
    #expect(isWait(machine.takeDemand()))
    #expect(machine.wait("waiter") == nil)
    #expect(resumed(machine.request(.max(4))) == "waiter")
    // Woken once: the next request only adds.
    #expect(isNone(machine.request(.max(1))))
    #expect(pulled(machine.takeDemand()) == .max(5))
  }

  @Test func demandThatCameBeforeTheWaitResumesItAtOnce() {
    var machine = running(demand: .max(1))
    _ = machine.takeDemand()
    #expect(isWait(machine.takeDemand()))
    #expect(isNone(machine.request(.max(1))))
    #expect(machine.wait("waiter") == "waiter")
    #expect(pulled(machine.takeDemand()) == .max(1))
  }

  @Test func cancelWhileWaitingHandsBackTheTaskAndTheWaiter() {
    var machine = running(demand: .max(1))
    _ = machine.takeDemand()
    _ = machine.takeDemand()
    #expect(machine.wait("waiter") == nil)
    let released = machine.cancel()
    #expect(released?.downstream == "downstream")
    #expect(released?.task == "task")
    #expect(released?.waiter == "waiter")
    #expect(isStop(machine.takeDemand()))
    #expect(machine.cancel() == nil)
  }

  @Test func cancelBeforeTheTaskIsReportedHandsItBackToBeCancelled() {
    var machine = Machine(downstream: "downstream", base: "base")
    _ = machine.subscribed()
    _ = machine.request(.max(1))
    let released = machine.cancel()
    #expect(released?.downstream == "downstream")
    #expect(released?.task == nil)
    #expect(machine.taskStarted("task") == "task")
    #expect(isStop(machine.takeDemand()))
  }

  @Test func cancelBeforeAnyDemandLetsGoOfTheSequence() {
    var machine = Machine(downstream: "downstream", base: "base")
    _ = machine.subscribed()
    let released = machine.cancel()
    #expect(released?.downstream == "downstream")
    #expect(released?.base == "base")
    #expect(isNone(machine.request(.max(1))))
  }

  @Test func cancelDuringReceiveSubscriptionNeverStarts() {
    var machine = Machine(downstream: "downstream", base: "base")
    _ = machine.request(.max(1))
    #expect(machine.cancel()?.base == "base")
    #expect(machine.subscribed() == nil)
  }

  @Test func anElementPulledAfterCancelIsNotDelivered() {
    var machine = running()
    _ = machine.takeDemand()
    #expect(machine.downstreamForElement() == "downstream")
    _ = machine.cancel()
    #expect(machine.downstreamForElement() == nil)
    #expect(machine.finish() == nil)
  }

  @Test func theEndHandsOutTheDownstreamOnce() {
    var machine = running()
    _ = machine.takeDemand()
    let released = machine.finish()
    #expect(released?.downstream == "downstream")
    #expect(released?.task == "task")
    #expect(machine.finish() == nil)
    #expect(machine.cancel() == nil)
    #expect(isNone(machine.request(.max(1))))
    #expect(machine.downstreamForElement() == nil)
  }

  @Test func waitingAfterTheEndResumesAtOnce() {
    var machine = running()
    _ = machine.cancel()
    #expect(machine.wait("waiter") == "waiter")
  }
}

import Testing

@testable import Conduit

/// The machine of an `AsyncSequencePublisher` subscription, driven by hand: strings stand for
/// the downstream, the sequence, the task and the waiting task's continuation.
@Suite(.leakChecked)
struct AsyncSequenceSubscriptionStateMachineTests {
  typealias Machine = AsyncSequenceSubscriptionStateMachine<String, String, String, String>

  private func started(_ action: Machine.Action) -> String? {
    if case .start(let base) = action { return base }
    return nil
  }

  private func resumed(_ action: Machine.Action) -> String? {
    if case .resume(let waiter) = action { return waiter }
    return nil
  }

  private func cancelledTask(_ action: Machine.Action) -> String? {
    if case .cancelTask(let task) = action { return task }
    return nil
  }

  private func ended(_ action: Machine.Action) -> Machine.Released? {
    if case .end(let released) = action { return released }
    return nil
  }

  private func isNone(_ action: Machine.Action) -> Bool {
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
    #expect(isNone(machine.subscribed()))
    #expect(started(machine.request(demand)) == "base")
    #expect(isNone(machine.taskStarted("task")))
    return machine
  }

  @Test func demandDuringReceiveSubscriptionStartsTheTaskOnlyOnceItReturns() {
    var machine = Machine(downstream: "downstream", base: "base")
    #expect(isNone(machine.request(.max(1))))
    #expect(isNone(machine.request(.max(2))))
    #expect(started(machine.subscribed()) == "base")
    #expect(isNone(machine.taskStarted("task")))
    #expect(pulled(machine.takeDemand()) == .max(3))
  }

  @Test func withoutDemandNothingStartsUntilTheFirstRequest() {
    var machine = Machine(downstream: "downstream", base: "base")
    #expect(isNone(machine.subscribed()))
    #expect(started(machine.request(.max(1))) == "base")
    #expect(isNone(machine.request(.max(1))))
    #expect(isNone(machine.taskStarted("task")))
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
    #expect(isNone(machine.wait("waiter")))
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
    #expect(resumed(machine.wait("waiter")) == "waiter")
    #expect(pulled(machine.takeDemand()) == .max(1))
  }

  @Test func cancelWhileWaitingHandsBackTheTaskAndTheWaiter() {
    var machine = running(demand: .max(1))
    _ = machine.takeDemand()
    _ = machine.takeDemand()
    #expect(isNone(machine.wait("waiter")))
    let released = ended(machine.cancel())
    #expect(released?.downstream == "downstream")
    #expect(released?.task == "task")
    #expect(released?.waiter == "waiter")
    #expect(isStop(machine.takeDemand()))
    #expect(isNone(machine.cancel()))
  }

  @Test func cancelBeforeTheTaskIsReportedHandsItBackToBeCancelled() {
    var machine = Machine(downstream: "downstream", base: "base")
    _ = machine.subscribed()
    _ = machine.request(.max(1))
    let released = ended(machine.cancel())
    #expect(released?.downstream == "downstream")
    #expect(released?.task == nil)
    #expect(cancelledTask(machine.taskStarted("task")) == "task")
    #expect(isStop(machine.takeDemand()))
  }

  @Test func cancelBeforeAnyDemandLetsGoOfTheSequence() {
    var machine = Machine(downstream: "downstream", base: "base")
    _ = machine.subscribed()
    let released = ended(machine.cancel())
    #expect(released?.downstream == "downstream")
    #expect(released?.base == "base")
    #expect(isNone(machine.request(.max(1))))
  }

  @Test func cancelDuringReceiveSubscriptionNeverStarts() {
    var machine = Machine(downstream: "downstream", base: "base")
    _ = machine.request(.max(1))
    #expect(ended(machine.cancel())?.base == "base")
    #expect(isNone(machine.subscribed()))
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
    #expect(isNone(machine.cancel()))
    #expect(isNone(machine.request(.max(1))))
    #expect(machine.downstreamForElement() == nil)
  }

  @Test func waitingAfterTheEndResumesAtOnce() {
    var machine = running()
    _ = machine.cancel()
    #expect(resumed(machine.wait("waiter")) == "waiter")
  }

  @Test func aTaskReportedAfterTheEndIsHandedBackToBeCancelled() {
    var machine = Machine(downstream: "downstream", base: "base")
    #expect(started(machine.subscribed()) == nil)
    #expect(started(machine.request(.max(1))) == "base")
    #expect(pulled(machine.takeDemand()) == .max(1))
    #expect(machine.finish()?.downstream == "downstream")
    #expect(cancelledTask(machine.taskStarted("task")) == "task")
  }
}

import Testing

@testable import Conduit

/// `ObservationChangesStateMachine` driven by hand, without threads: the subscriber and the read
/// closure are stand-in strings.
@Suite(.leakChecked)
struct ObservationChangesStateMachineTests {
  typealias Machine = ObservationChangesStateMachine<String, String, Int>

  /// The work of a step, or `nil` when the run stops.
  private func work(_ step: NextDelivery<Machine.Work>) -> Machine.Work? {
    switch step {
    case .perform(let work), .performAndStop(let work): work
    case .stop: nil
    }
  }

  private func generation(of step: NextDelivery<Machine.Work>) -> UInt64? {
    guard case .read(_, let generation) = work(step) else { return nil }
    return generation
  }

  /// Ends a run after the read returned `read`: what the run does next.
  private func afterRead(
    _ machine: inout Machine, _ read: Int?, modelGone: Bool = false, more: Subscribers.Demand = .none
  ) -> NextDelivery<Machine.Work> {
    var more = more
    var value = read
    var released = Machine.Released()
    return machine.next(adding: &more, value: &value, modelGone: modelGone, released: &released)
  }

  @Test func theFirstRunIsScheduledOnlyOnceTheDownstreamHasItsSubscription() {
    var machine = Machine(downstream: "sink", read: "read")
    let result1 = machine.request(.max(1))
    #expect(!result1)
    let result2 = machine.subscribed()
    #expect(result2)
    #expect(generation(of: machine.runStarted()) == 1)
  }

  @Test func aReadWithDemandIsDeliveredAndOneWithoutIsHeldUntilDemandComes() {
    var machine = Machine(downstream: "sink", read: "read")
    _ = machine.subscribed()
    _ = machine.runStarted()
    guard case .stop = afterRead(&machine, 7) else {
      Issue.record("a read without demand must end the run")
      return
    }
    #expect(machine.held == 7)
    let result3 = machine.request(.max(1))
    #expect(result3)
    guard case .deliver(let downstream, let value) = work(machine.runStarted()) else {
      Issue.record("the run must deliver the value held")
      return
    }
    #expect(downstream == "sink" && value == 7)
    #expect(machine.held == nil)
    #expect(machine.demand == .none)
  }

  @Test func aNewerReadReplacesTheValueHeld() {
    var machine = Machine(downstream: "sink", read: "read")
    _ = machine.subscribed()
    _ = machine.runStarted()
    _ = afterRead(&machine, 1)
    let result4 = machine.registrationEnded(1)
    #expect(result4)
    #expect(generation(of: machine.runStarted()) == 2)
    var more = Subscribers.Demand.none
    var value: Int? = 2
    var released = Machine.Released()
    _ = machine.next(adding: &more, value: &value, modelGone: false, released: &released)
    #expect(released.held == 1)
    #expect(machine.held == 2)
  }

  @Test func theEndOfAnOlderRegistrationChangesNothing() {
    var machine = Machine(downstream: "sink", read: "read")
    _ = machine.subscribed()
    _ = machine.runStarted()
    _ = afterRead(&machine, 1)
    let result5 = machine.registrationEnded(0)
    #expect(!result5)
    #expect(!machine.readOwed)
  }

  @Test func aChangeDuringTheReadGoesToANewRun() {
    var machine = Machine(downstream: "sink", read: "read")
    _ = machine.subscribed()
    _ = machine.request(.unlimited)
    _ = machine.runStarted()
    // The change fires while the run reads: the run owns delivery, so nothing is scheduled.
    let result6 = machine.registrationEnded(1)
    #expect(!result6)
    guard case .deliver = work(afterRead(&machine, 1)) else {
      Issue.record("the value read must go out")
      return
    }
    var more = Subscribers.Demand.none
    var value: Int?
    var released = Machine.Released()
    guard
      case .performAndStop(.reschedule) = machine.next(
        adding: &more, value: &value, modelGone: false, released: &released)
    else {
      Issue.record("the read owed must go to a new run")
      return
    }
    #expect(generation(of: machine.runStarted()) == 2)
  }

  @Test func aModelGoneFinishesAndEndsTheStream() {
    var machine = Machine(downstream: "sink", read: "read")
    _ = machine.subscribed()
    _ = machine.runStarted()
    _ = afterRead(&machine, 1)
    _ = machine.registrationEnded(1)
    _ = machine.runStarted()
    var more = Subscribers.Demand.none
    var value: Int?
    var released = Machine.Released()
    guard
      case .performAndStop(.finish(let downstream)) = machine.next(
        adding: &more, value: &value, modelGone: true, released: &released)
    else {
      Issue.record("a model gone must finish the downstream")
      return
    }
    #expect(downstream == "sink")
    #expect(released.held == 1 && released.read == "read")
    #expect(machine.downstream == nil)
    let result7 = machine.request(.max(1))
    #expect(!result7)
    let result8 = machine.registrationEnded(2)
    #expect(!result8)
    let result9 = machine.cancel()
    #expect(result9 == nil)
  }

  @Test func cancelReleasesEverythingAndLaterEventsDoNothing() {
    var machine = Machine(downstream: "sink", read: "read")
    _ = machine.subscribed()
    _ = machine.runStarted()
    _ = afterRead(&machine, 1)
    let released = machine.cancel()
    #expect(released?.downstream == "sink" && released?.read == "read" && released?.held == 1)
    let result10 = machine.cancel()
    #expect(result10 == nil)
    let result11 = machine.registrationEnded(1)
    #expect(!result11)
    let result12 = machine.request(.max(1))
    #expect(!result12)
    guard case .stop = machine.runStarted() else {
      Issue.record("a run after cancel must do nothing")
      return
    }
  }

  @Test func cancelDuringSubscriptionSchedulesNoRun() {
    var machine = Machine(downstream: "sink", read: "read")
    _ = machine.cancel()
    let result13 = machine.subscribed()
    #expect(!result13)
  }
}

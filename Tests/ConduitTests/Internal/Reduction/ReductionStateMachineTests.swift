import ConduitTesting
import Testing

@testable import Conduit

/// The decisions of the reducers (`reduce`, `count`, `first` …), without threads, publishers or
/// a downstream.
@Suite(.leakChecked)
struct ReductionStateMachineTests {
  /// A machine whose upstream has subscribed, with the downstream's demand so far.
  private func folding(demanded: Bool, upstream: SpySubscription = SpySubscription()) -> Machine {
    var machine = Machine(downstream: "downstream")
    if demanded { #expect(describe(machine.request()) == "none") }
    guard case .handDown(let downstream) = machine.receiveSubscription(upstream) else {
      Issue.record("the first subscription is handed down")
      return machine
    }
    #expect(downstream == "downstream")
    #expect(same(machine.subscriptionHandedDown(), upstream))
    #expect(machine.isFolding)
    return machine
  }

  @Test func aSecondSubscriptionIsCancelled() {
    var machine = folding(demanded: false)
    let second = SpySubscription()
    guard case .cancel(let cancelled) = machine.receiveSubscription(second) else {
      Issue.record("a second subscription is cancelled")
      return
    }
    #expect(same(cancelled, second))
  }

  @Test func aResultReadyBeforeDemandWaitsForTheFirstRequest() {
    var machine = folding(demanded: false)
    #expect(describe(machine.conclude(3, decidedEarly: false)) == "cancel nothing")
    #expect(!machine.isFolding)
    #expect(describe(machine.request()) == "deliver 3")
    let finishes = machine.resultDelivered()
    #expect(finishes)
    #expect(describe(machine.request()) == "none")
  }

  @Test func aResultWithDemandGoesOutAtOnceAndAStepThatDecidedEarlyCancelsTheUpstream() {
    let upstream = SpySubscription()
    var machine = folding(demanded: true, upstream: upstream)
    guard case .deliver(3, "downstream", let cancelling) = machine.conclude(3, decidedEarly: true) else {
      Issue.record("with demand, the result goes out")
      return
    }
    #expect(same(cancelling, upstream))
    let finishes = machine.resultDelivered()
    #expect(finishes)
    let finishesAgain = machine.resultDelivered()
    #expect(!finishesAgain)
  }

  @Test func anEmptyResultFinishesWithoutDelivering() {
    var machine = folding(demanded: true)
    #expect(describe(machine.conclude(nil, decidedEarly: false)) == "deliver nothing")
    let finishes = machine.resultDelivered()
    #expect(!finishes)
    #expect(describe(machine.cancel()) == "none")
  }

  @Test func aFailureGoesOutWithoutDemandAndAThrownErrorCancelsTheUpstream() {
    let upstream = SpySubscription()
    var fromUpstream = folding(demanded: false)
    guard case .fail(_, nil) = fromUpstream.fail(fromStep: false) else {
      Issue.record("an upstream failure goes out at once and cancels nothing")
      return
    }
    var fromStep = folding(demanded: false, upstream: upstream)
    guard case .fail(_, let cancelling) = fromStep.fail(fromStep: true) else {
      Issue.record("a thrown error goes out at once")
      return
    }
    #expect(same(cancelling, upstream))
    guard case .none = fromStep.fail(fromStep: true) else {
      Issue.record("one failure only")
      return
    }
  }

  @Test func aCancelBeforeTheSubscriptionChangesNothing() {
    var machine = Machine(downstream: "downstream")
    #expect(describe(machine.cancel()) == "none")
    guard case .handDown = machine.receiveSubscription(SpySubscription()) else {
      Issue.record("the subscription arriving after the cancel is taken as the first")
      return
    }
  }

  @Test func aCancelWhileFoldingStopsTheFoldAndReleasesTheDownstream() {
    let upstream = SpySubscription()
    var machine = folding(demanded: false, upstream: upstream)
    guard case .cancel(let cancelled, .folding(_, "downstream", _)) = machine.cancel() else {
      Issue.record("a cancel while folding cancels the upstream and lets go of the downstream")
      return
    }
    #expect(same(cancelled, upstream))
    #expect(!machine.isFolding)
    #expect(describe(machine.conclude(1, decidedEarly: false)) == "none")
  }

  @Test func aCancelReleasesAHeldResultAndStopsTheFinishOfOneGoingOut() {
    var holding = folding(demanded: false)
    _ = holding.conclude(5, decidedEarly: false)
    guard case .cancel(nil, .holding(5, _)) = holding.cancel() else {
      Issue.record("a held result is let go of")
      return
    }
    #expect(describe(holding.request()) == "none")

    var delivering = folding(demanded: true)
    _ = delivering.conclude(5, decidedEarly: false)
    guard case .cancel(nil, .delivering) = delivering.cancel() else {
      Issue.record("a cancel while the result goes out takes the finish back")
      return
    }
    let finishes5 = delivering.resultDelivered()
    #expect(!finishes5)
  }
}

private typealias Machine = ReductionStateMachine<Int, String>

private func describe(_ action: Machine.EndAction) -> String {
  switch action {
  case .none: "none"
  case .cancel(let upstream): upstream == nil ? "cancel nothing" : "cancel upstream"
  case .deliver(let value, _, _): "deliver " + (value.map { "\($0)" } ?? "nothing")
  }
}

private func describe(_ action: Machine.RequestAction) -> String {
  switch action {
  case .none: "none"
  case .deliver(let value, _): "deliver " + (value.map { "\($0)" } ?? "nothing")
  }
}

private func describe(_ action: Machine.CancelAction) -> String {
  switch action {
  case .none: "none"
  case .cancel: "cancel"
  }
}

import ConduitTesting
import Testing

@testable import Conduit

/// The decisions of `switchToLatest`, without threads, publishers or a downstream.
@Suite(.leakChecked)
struct SwitchToLatestStateMachineTests {
  /// A machine whose upstream has subscribed, with child 0 the latest and subscribed.
  private func withChild(
    scalar: Bool = false, upstream: SpySubscription = SpySubscription(), child: SpySubscription = SpySubscription()
  ) -> Machine {
    var machine = Machine(childrenAreScalar: scalar)
    #expect(machine.receiveSubscription(upstream) == .unlimited)
    var previous: (any Subscription)?
    #expect(outerValue(&machine, cancelling: &previous) == 0)
    #expect(previous == nil)
    #expect(machine.childSubscription(0, child) == Subscribers.Demand.none)
    return machine
  }

  @Test func aSecondUpstreamSubscriptionIsRefused() {
    var machine = Machine(childrenAreScalar: false)
    #expect(machine.receiveSubscription(SpySubscription()) == .unlimited)
    #expect(machine.receiveSubscription(SpySubscription()) == nil)
  }

  @Test func anUpstreamSubscriptionAfterItsFinishIsStillTakenOnce() {
    var machine = Machine(childrenAreScalar: false)
    #expect(describe(machine.outerCompletion(.finished)) == "drain")
    #expect(machine.receiveSubscription(SpySubscription()) == .unlimited)
    #expect(machine.receiveSubscription(SpySubscription()) == nil)
  }

  @Test func aNewPublisherCancelsThePreviousChildAndTakesTheOutstandingDemand() {
    let first = SpySubscription()
    var machine = withChild(child: first)
    var forward: (any Subscription)?
    #expect(describe(request(&machine, .max(3), forwardingTo: &forward)) == "none")
    #expect(same(forward, first))
    guard case .deliver = machine.childValue(0, 1) else {
      Issue.record("with delivery unclaimed, the child's element goes out on its own call")
      return
    }
    guard case .returnDemand = machine.childValueDelivered(0, returned: .none) else {
      Issue.record("with nothing waiting, the downstream's answer goes back to the child")
      return
    }
    var previous: (any Subscription)?
    #expect(outerValue(&machine, cancelling: &previous) == 1)
    #expect(same(previous, first))
    guard case .none = machine.childValue(0, 9) else {
      Issue.record("an element from a replaced child is dropped")
      return
    }
    #expect(machine.childSubscription(0, SpySubscription()) == nil)
    #expect(machine.childSubscription(1, SpySubscription()) == .max(2))
    #expect(machine.childSubscription(1, SpySubscription()) == nil)
  }

  @Test func anElementPostedWhileDeliveryIsClaimedWaitsForTheOwner() {
    var machine = withChild()
    var forward: (any Subscription)?
    _ = request(&machine, .max(3), forwardingTo: &forward)
    guard case .deliver = machine.childValue(0, 1) else {
      Issue.record("the first element claims delivery")
      return
    }
    guard case .none = machine.childValue(0, 2) else {
      Issue.record("an element posted from inside the delivery is queued")
      return
    }
    guard case .drain = machine.childValueDelivered(0, returned: .max(1)) else {
      Issue.record("with an element waiting, the owner drains")
      return
    }
    #expect(describe(machine.nextDelivery(adding: .max(1), forwardingTo: &forward)) == "perform deliver 2, forwarding")
    #expect(forward != nil)
    forward = nil
    #expect(describe(machine.nextDelivery(adding: .none, forwardingTo: &forward)) == "stop idle")
    #expect(machine.demand == .max(2))
    guard case .deliver = machine.childValue(0, 3) else {
      Issue.record("delivery was given back, so the next element claims it")
      return
    }
  }

  @Test func elementsQueuedByAReplacedChildGiveTheirDemandToTheNextOne() {
    var machine = withChild()
    var forward: (any Subscription)?
    _ = request(&machine, .max(2), forwardingTo: &forward)
    _ = machine.childValue(0, 1)
    _ = machine.childValue(0, 2)
    #expect(machine.demand == Subscribers.Demand.none)
    var previous: (any Subscription)?
    #expect(outerValue(&machine, cancelling: &previous) == 1)
    #expect(machine.backlog.isEmpty)
    #expect(machine.childSubscription(1, SpySubscription()) == .max(1))
  }

  @Test func theUpstreamsFinishWaitsForTheLatestChild() {
    var machine = withChild()
    #expect(describe(machine.outerCompletion(.finished)) == "none")
    var previous: (any Subscription)?
    #expect(outerValue(&machine, cancelling: &previous) == nil)
    #expect(describe(machine.childCompletion(0, .finished)) == "drain")
    var forward: (any Subscription)?
    #expect(describe(machine.nextDelivery(adding: .none, forwardingTo: &forward)) == "stop complete finished")
    #expect(describe(machine.nextDelivery(adding: .none, forwardingTo: &forward)) == "stop release")
    #expect(describe(machine.cancel()) == "none")
  }

  @Test func aChildFailureCancelsTheUpstreamAndGoesOut() {
    let upstream = SpySubscription()
    let child = SpySubscription()
    var machine = withChild(upstream: upstream, child: child)
    let action = machine.childCompletion(0, .failure(Oops()))
    #expect(describe(action) == "detach 1 drains")
    if case .detach(let detached, _) = action { #expect(same(detached.cancelled.first, upstream)) }
    #expect(describe(machine.childCompletion(0, .failure(Oops()))) == "none")
    var forward: (any Subscription)?
    #expect(describe(machine.nextDelivery(adding: .none, forwardingTo: &forward)) == "stop complete failure")
  }

  @Test func aReplacedChildsCompletionIsIgnored() {
    var machine = withChild()
    var previous: (any Subscription)?
    _ = outerValue(&machine, cancelling: &previous)
    #expect(describe(machine.childCompletion(0, .failure(Oops()))) == "none")
    #expect(describe(machine.childCompletion(0, .finished)) == "none")
    #expect(machine.phase.isActive)
  }

  @Test func anUpstreamFailureCancelsTheLatestChild() {
    let child = SpySubscription()
    var machine = withChild(child: child)
    let action = machine.outerCompletion(.failure(Oops()))
    #expect(describe(action) == "detach 1 drains")
    if case .detach(let detached, _) = action { #expect(same(detached.cancelled.first, child)) }
  }

  @Test func aCancelDetachesTheChildThenTheUpstream() {
    let upstream = SpySubscription()
    let child = SpySubscription()
    var machine = withChild(upstream: upstream, child: child)
    let action = machine.cancel()
    #expect(describe(action) == "detach 2 drains")
    if case .detach(let detached, _) = action {
      #expect(same(detached.cancelled.first, child))
      #expect(same(detached.cancelled.last, upstream))
    }
    #expect(describe(machine.cancel()) == "none")
    var forward: (any Subscription)?
    #expect(describe(machine.nextDelivery(adding: .none, forwardingTo: &forward)) == "stop release")
  }

  @Test func aCancelWhileAnotherCallDeliversLeavesTheDownstreamToThatCall() {
    var machine = withChild()
    var forward: (any Subscription)?
    _ = request(&machine, .max(1), forwardingTo: &forward)
    _ = machine.childValue(0, 1)
    #expect(describe(machine.cancel()) == "detach 2")
    guard case .drain = machine.childValueDelivered(0, returned: .none) else {
      Issue.record("after the cancel, the owner drains to let the downstream go")
      return
    }
    #expect(describe(machine.nextDelivery(adding: .none, forwardingTo: &forward)) == "stop release")
  }

  @Test func aScalarValueWaitsForDemandAndItsChildFinishesOnceDelivered() {
    var machine = Machine(childrenAreScalar: true)
    _ = machine.receiveSubscription(SpySubscription())
    #expect(describe(machine.outerScalar(.value(1))) == "none")
    #expect(describe(machine.outerScalar(.value(2))) == "none")
    #expect(machine.pendingScalar == 2)
    var forward: (any Subscription)?
    #expect(describe(request(&machine, .max(1), forwardingTo: &forward)) == "deliver 2")
    #expect(forward == nil)
    #expect(machine.currentID == 1)
    #expect(describe(machine.nextDelivery(adding: .none, forwardingTo: &forward)) == "stop idle")
    #expect(machine.currentID == nil)
    #expect(describe(machine.outerCompletion(.finished)) == "drain")
    #expect(describe(machine.nextDelivery(adding: .none, forwardingTo: &forward)) == "stop complete finished")
  }

  @Test func theUpstreamsFinishWaitsBehindAScalarValueQueuedForTheOwner() {
    var machine = Machine(childrenAreScalar: true)
    _ = machine.receiveSubscription(SpySubscription())
    var forward: (any Subscription)?
    _ = request(&machine, .max(2), forwardingTo: &forward)
    #expect(describe(machine.outerScalar(.value(1))) == "deliver 1")
    #expect(describe(machine.outerScalar(.value(2))) == "none")
    #expect(describe(machine.outerCompletion(.finished)) == "none")
    #expect(describe(machine.nextDelivery(adding: .none, forwardingTo: &forward)) == "perform deliver 2")
    #expect(describe(machine.nextDelivery(adding: .none, forwardingTo: &forward)) == "stop complete finished")
  }

  @Test func aScalarChildWithoutAValueCompletesAsASubscribedOneWould() {
    var machine = Machine(childrenAreScalar: true)
    _ = machine.receiveSubscription(SpySubscription())
    #expect(describe(machine.outerScalar(.finished)) == "complete 0 finished")
    #expect(describe(machine.childCompletion(0, .finished)) == "none")
    #expect(describe(machine.outerScalar(.failure(Oops()))) == "complete 1 failure")
    #expect(describe(machine.outerScalar(.silent)) == "none")
    #expect(machine.currentID == 2)
  }
}

private func describe(_ action: Machine.ScalarAction) -> String {
  switch action {
  case .none: "none"
  case .deliver(let value): "deliver \(value)"
  case .complete(let child, .finished): "complete \(child) finished"
  case .complete(let child, .failure): "complete \(child) failure"
  }
}

private func describe(_ action: Machine.Action) -> String {
  switch action {
  case .none: "none"
  case .drain: "drain"
  case .detach(let detached, let drains): "detach \(detached.cancelled.count)" + (drains ? " drains" : "")
  }
}

private func describe(_ step: NextDelivery<Machine.Work>) -> String {
  switch step {
  case .perform(let work): "perform " + describe(work)
  case .performAndStop(let work): "stop " + describe(work)
  case .stop: "stop"
  }
}

private func describe(_ work: Machine.Work) -> String {
  describe(work.step) + (work.forwardsDemand ? ", forwarding" : "")
}

private func describe(_ step: Machine.Delivery) -> String {
  switch step {
  case .deliver(let value): "deliver \(value)"
  case .complete(.finished): "complete finished"
  case .complete(.failure): "complete failure"
  case .release: "release"
  case .idle: "idle"
  }
}

private typealias Machine = SwitchToLatestStateMachine<Int, Oops>

/// Whether `subscription` is `spy`.

/// The machine's `outerValue()`, with the child's id returned (`nil` when ignored) and the
/// replaced child's subscription put in `previous`.
private func outerValue(_ machine: inout Machine, cancelling previous: inout (any Subscription)?) -> Int? {
  switch machine.outerValue() {
  case .ignore: return nil
  case .subscribe(let child, let cancelling):
    previous = cancelling
    return child
  }
}

/// The machine's `request(_:)`, with the child asked put in `forward` and what a scalar value
/// that waited does returned.
private func request(
  _ machine: inout Machine, _ demand: Subscribers.Demand, forwardingTo forward: inout (any Subscription)?
) -> Machine.ScalarAction {
  switch machine.request(demand) {
  case .none: return .none
  case .forward(let child):
    forward = child
    return .none
  case .scalar(let action): return action
  }
}

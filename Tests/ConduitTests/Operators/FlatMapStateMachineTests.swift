import ConduitTesting
import Testing

@testable import Conduit

/// The decisions of `flatMap`, without threads, publishers or a downstream.
@Suite(.leakChecked)
struct FlatMapStateMachineTests {
  /// A machine whose upstream has subscribed, with `children` subscribed children (ids 0, 1 …).
  private func subscribed(
    maxPublishers: Subscribers.Demand = .unlimited, upstream: SpySubscription = SpySubscription(),
    children: [SpySubscription] = []
  ) -> Machine {
    var machine = Machine(maxPublishers: maxPublishers, childrenAreScalar: false) { .init(.success($0)) }
    #expect(machine.receiveSubscription(upstream) == maxPublishers)
    for (expectedID, child) in children.enumerated() {
      #expect(machine.outerValue()?.child == expectedID)
      #expect(machine.childSubscription(expectedID, child) == .max(1))
    }
    return machine
  }

  /// A machine whose children are scalar ones, with its upstream subscribed.
  private func scalar(maxPublishers: Subscribers.Demand, upstream: SpySubscription) -> Machine {
    var machine = Machine(maxPublishers: maxPublishers, childrenAreScalar: true) { .init(.success($0)) }
    _ = machine.receiveSubscription(upstream)
    return machine
  }

  @Test func theUpstreamIsAskedForMaxPublishersOnce() {
    var machine = subscribed(maxPublishers: .max(2))
    #expect(machine.receiveSubscription(SpySubscription()) == nil)
    var none = Machine(maxPublishers: .none, childrenAreScalar: false) { .init(.success($0)) }
    #expect(none.receiveSubscription(SpySubscription()) == Subscribers.Demand.none)
  }

  @Test func eachUpstreamValueBecomesAChildMadeByTheTransform() throws {
    var machine = subscribed()
    let first = machine.outerValue()
    let second = machine.outerValue()
    #expect(first?.child == 0)
    #expect(second?.child == 1)
    #expect(machine.children.ids == [0, 1])
    let transform = try #require(second?.transform)
    #expect(try transform(7).result.get() == 7)
  }

  @Test func aChildIsAskedForOneValueAtATimeUntilTheDemandIsUnlimited() {
    let limited = SpySubscription()
    var machine = subscribed(children: [limited])
    #expect(machine.childSubscription(0, SpySubscription()) == nil)
    let request = machine.request(.unlimited)
    #expect(request.upgraded.count == 1)
    #expect(same(request.upgraded.first, limited))
    #expect(!request.drains)
    #expect(machine.request(.max(1)).upgraded.isEmpty)
    _ = machine.outerValue()
    #expect(machine.childSubscription(1, SpySubscription()) == .unlimited)
  }

  @Test func aValueWaitsForDemandAndItsChildIsAskedForMoreOnceDelivered() {
    let child = SpySubscription()
    var machine = subscribed(children: [child])
    #expect(describe(machine.childValue(0, 1)) == "queued")
    let request = machine.request(.max(1))
    #expect(request.drains)
    var replacement: (any Subscription)?
    #expect(describe(machine.nextDelivery(adding: .none, replacement: &replacement)) == "deliver 1 replenishing 0")
    #expect(same(machine.childValueDelivered(0), child))
    #expect(describe(machine.nextDelivery(adding: .none, replacement: &replacement)) == "idle")
    #expect(machine.demand == Subscribers.Demand.none)
  }

  @Test func aValuePostedDuringADownstreamCallTakesItsDemandAndAsksForMoreAtOnce() {
    var machine = subscribed(children: [SpySubscription(), SpySubscription()])
    _ = machine.request(.max(2))
    #expect(describe(machine.childValue(0, 1)) == "deliver, ask for more")
    #expect(machine.inDownstreamCall)
    #expect(describe(machine.childValue(1, 2)) == "queued, ask for more")
    #expect(machine.paidBacklog == 1)
    #expect(machine.demand == Subscribers.Demand.none)
    #expect(describe(machine.childValue(1, 3)) == "queued")
    var replacement: (any Subscription)?
    #expect(describe(machine.nextDelivery(adding: .none, replacement: &replacement)) == "deliver 2")
    #expect(describe(machine.nextDelivery(adding: .max(1), replacement: &replacement)) == "deliver 3 replenishing 1")
    #expect(describe(machine.nextDelivery(adding: .none, replacement: &replacement)) == "idle")
    #expect(!machine.inDownstreamCall)
  }

  @Test func theUpstreamsFinishWaitsForEveryChild() {
    var machine = subscribed(children: [SpySubscription()])
    let finish = machine.outerCompletion(.finished)
    #expect(describe(finish) == "detach 0 drains")
    if case .detach(let detached, _) = finish { #expect(detached.held != nil) }
    #expect(machine.transform == nil)
    #expect(machine.outerValue() == nil)
    var replacement: (any Subscription)?
    #expect(describe(machine.nextDelivery(adding: .none, replacement: &replacement)) == "idle")
    #expect(describe(childCompletion(&machine, 0, .finished, replacement: &replacement)) == "drain")
    #expect(replacement == nil)
    #expect(describe(machine.nextDelivery(adding: .none, replacement: &replacement)) == "complete finished")
    #expect(describe(machine.nextDelivery(adding: .none, replacement: &replacement)) == "release")
  }

  @Test func aFinishedChildIsReplacedFromTheUpstreamOnlyWhenChildrenAreBounded() {
    let upstream = SpySubscription()
    var bounded = subscribed(maxPublishers: .max(1), upstream: upstream, children: [SpySubscription()])
    var replacement: (any Subscription)?
    _ = childCompletion(&bounded, 0, .finished, replacement: &replacement)
    #expect(same(replacement, upstream))
    var unbounded = subscribed(children: [SpySubscription()])
    replacement = nil
    _ = childCompletion(&unbounded, 0, .finished, replacement: &replacement)
    #expect(replacement == nil)
  }

  @Test func aChildFailureCancelsTheOtherChildrenThenTheUpstream() {
    let upstream = SpySubscription()
    let other = SpySubscription()
    var machine = subscribed(upstream: upstream, children: [other, SpySubscription()])
    _ = machine.childValue(0, 1)
    var replacement: (any Subscription)?
    let failure = childCompletion(&machine, 1, .failure(Oops()), replacement: &replacement)
    #expect(describe(failure) == "detach 2 drains")
    if case .detach(let detached, _) = failure {
      #expect(same(detached.cancelled.first, other))
      #expect(same(detached.cancelled.last, upstream))
      #expect(detached.backlog.elements.map { $0.value } == [1])
    }
    #expect(describe(machine.childValue(0, 2)) == "drop")
    #expect(machine.outerValue() == nil)
    #expect(describe(machine.nextDelivery(adding: .none, replacement: &replacement)) == "complete failure")
    #expect(describe(machine.cancel()) == "none")
  }

  @Test func anUpstreamFailureCancelsTheChildrenOnly() {
    let child = SpySubscription()
    var machine = subscribed(children: [child])
    let failure = machine.outerCompletion(.failure(Oops()))
    #expect(describe(failure) == "detach 1 drains")
    if case .detach(let detached, _) = failure { #expect(same(detached.cancelled.first, child)) }
    #expect(describe(machine.outerCompletion(.failure(Oops()))) == "none")
  }

  @Test func aCancelWhileAnotherCallDeliversLeavesTheDownstreamToThatCall() {
    let upstream = SpySubscription()
    let child = SpySubscription()
    var machine = subscribed(upstream: upstream, children: [child])
    _ = machine.request(.max(1))
    _ = machine.childValue(0, 1)
    let cancel = machine.cancel()
    #expect(describe(cancel) == "detach 2")
    if case .detach(let detached, _) = cancel {
      #expect(same(detached.cancelled.first, child))
      #expect(same(detached.cancelled.last, upstream))
    }
    #expect(describe(machine.cancel()) == "none")
    #expect(machine.childValueDelivered(0) == nil)
    var replacement: (any Subscription)?
    #expect(describe(machine.nextDelivery(adding: .max(1), replacement: &replacement)) == "release")
  }

  @Test func aScalarValueWithoutDemandWaitsAndItsChildFinishesAtOnce() {
    let upstream = SpySubscription()
    var machine = scalar(maxPublishers: .max(1), upstream: upstream)
    #expect(machine.outerValue()?.child == 0)
    #expect(machine.scalarChildren == 1)
    var replacement: (any Subscription)?
    #expect(!machine.scalarValue(0, 5, replacement: &replacement))
    #expect(machine.backlog.count == 1)
    #expect(same(replacement, upstream))
    #expect(machine.scalarChildren == 0)
    #expect(machine.request(.max(1)).drains)
    replacement = nil
    #expect(describe(machine.nextDelivery(adding: .none, replacement: &replacement)) == "deliver 5")
    #expect(describe(machine.nextDelivery(adding: .none, replacement: &replacement)) == "idle")
    #expect(replacement == nil)
  }

  @Test func aDeliveredScalarChildFinishesWhereTheDrainWouldGiveDeliveryBack() {
    let upstream = SpySubscription()
    var machine = scalar(maxPublishers: .max(1), upstream: upstream)
    _ = machine.request(.max(1))
    _ = machine.outerValue()
    var replacement: (any Subscription)?
    #expect(machine.scalarValue(0, 5, replacement: &replacement))
    #expect(replacement == nil)
    #expect(machine.scalarChildren == 1)
    #expect(describe(machine.outerCompletion(.finished)) == "detach 0")
    #expect(describe(machine.nextDelivery(adding: .none, replacement: &replacement)) == "complete finished")
    #expect(machine.scalarChildren == 0)
  }

  @Test func aDeliveredScalarChildOfABoundedFlatMapAsksTheUpstreamForAReplacement() {
    let upstream = SpySubscription()
    var machine = scalar(maxPublishers: .max(1), upstream: upstream)
    _ = machine.request(.max(1))
    _ = machine.outerValue()
    var replacement: (any Subscription)?
    _ = machine.scalarValue(0, 5, replacement: &replacement)
    #expect(describe(machine.nextDelivery(adding: .none, replacement: &replacement)) == "request replacement")
    #expect(same(replacement, upstream))
    #expect(describe(machine.nextDelivery(adding: .none, replacement: &replacement)) == "idle")
  }

  @Test func aScalarChildThatFinishesWithoutAValueClaimsDelivery() {
    let upstream = SpySubscription()
    var machine = scalar(maxPublishers: .max(2), upstream: upstream)
    _ = machine.outerValue()
    var replacement: (any Subscription)?
    #expect(describe(scalarFinished(&machine, replacement: &replacement)) == "drain")
    #expect(same(replacement, upstream))
    _ = machine.outerValue()
    #expect(describe(scalarFinished(&machine, replacement: &replacement)) == "none")
    #expect(machine.scalarChildren == 0)
  }
}

private typealias Machine = FlatMapStateMachine<Int, Result<Int, Oops>.Publisher>

/// Whether `subscription` is `spy`.

private func describe(_ action: Machine.ValueAction) -> String {
  switch action {
  case .drop: "drop"
  case .queued(let askForMore): "queued" + (askForMore ? ", ask for more" : "")
  case .deliver(let askForMore): "deliver" + (askForMore ? ", ask for more" : "")
  }
}

private func describe(_ action: Machine.Action) -> String {
  switch action {
  case .none: "none"
  case .drain: "drain"
  case .detach(let detached, let drains): "detach \(detached.cancelled.count)" + (drains ? " drains" : "")
  }
}

private func describe(_ step: (Machine.Delivery, [any Subscription])) -> String {
  switch step.0 {
  case .deliver(let value, let replenish): "deliver \(value)" + (replenish.map { " replenishing \($0)" } ?? "")
  case .complete(.finished): "complete finished"
  case .complete(.failure): "complete failure"
  case .requestReplacement: "request replacement"
  case .release: "release"
  case .idle: "idle"
  }
}

// The machine's end-of-child events, with the upstream they say to ask for a replacement put in
// `replacement`, so that each test reads as the sequence of calls the subscription makes.

private func childCompletion(
  _ machine: inout Machine, _ id: Int, _ completion: Subscribers.Completion<Oops>,
  replacement: inout (any Subscription)?
) -> Machine.Action {
  let action = machine.childCompletion(id, completion)
  if let upstream = action.replacement { replacement = upstream }
  return action.then
}

private func scalarFinished(_ machine: inout Machine, replacement: inout (any Subscription)?) -> Machine.Action {
  let action = machine.scalarFinished()
  if let upstream = action.replacement { replacement = upstream }
  return action.then
}

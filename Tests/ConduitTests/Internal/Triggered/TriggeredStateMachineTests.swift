import ConduitTesting
import Testing

@testable import Conduit

/// The decisions of `drop(untilOutputFrom:)` and `prefix(untilOutputFrom:)`, without threads or
/// publishers.
@Suite(.leakChecked)
struct TriggeredStateMachineTests {
  private typealias Machine = TriggeredStateMachine<TestSubscriber<Int, Never>>

  /// `prefix(untilOutputFrom:)`'s machine.
  private func prefix(_ downstream: TestSubscriber<Int, Never>) -> Machine {
    Machine(downstream: downstream, announced: false, gated: false)
  }

  /// `drop(untilOutputFrom:)`'s machine.
  private func drop(_ downstream: TestSubscriber<Int, Never>) -> Machine {
    Machine(downstream: downstream, announced: true, gated: true)
  }

  /// A machine whose upstream and trigger have subscribed.
  private func running(
    _ machine: Machine, _ downstream: TestSubscriber<Int, Never>, upstream: SpySubscription,
    trigger: SpySubscription
  ) -> Machine {
    var machine = machine
    let taken = machine.triggerSubscribed(trigger)
    #expect(taken)
    switch machine.upstreamSubscribed(upstream) {
    case .announce(let announced):
      #expect(announced === downstream)
      let afterCall = machine.deliveryEnded()
      #expect(afterCall == nil)
    case .none:
      #expect(machine.announced)
    case .request, .cancel:
      Issue.record("the first subscription is taken and nothing is asked yet")
    }
    return machine
  }

  @Test func aFinishDecidedWhileCallsIntoDownstreamRunWaitsForTheOutermostToReturn() {
    let downstream = TestSubscriber<Int, Never>()
    let upstream = SpySubscription()
    let trigger = SpySubscription()
    var machine = running(prefix(downstream), downstream, upstream: upstream, trigger: trigger)

    // A value, and inside its call another (a synchronous upstream asked from inside receive).
    let delivery = machine.value()
    #expect(delivery === downstream)
    let delivery2 = machine.value()
    #expect(delivery2 === downstream)
    // The trigger fires on another thread: upstream and the trigger are cancelled at once, the
    // finish waits.
    guard case .complete(let cancelledUpstream, let cancelledTrigger, nil, .finished) = machine.triggerFiredFinishing()
    else {
      Issue.record("the trigger ends the stream, and the finish waits for the calls running")
      return
    }
    #expect(same(cancelledUpstream, upstream))
    #expect(same(cancelledTrigger, trigger))
    let delivery3 = machine.value()
    #expect(delivery3 == nil)
    let cancelling = machine.cancel()
    #expect(describe(cancelling) == "none")
    let afterCall = machine.deliveryEnded()
    #expect(afterCall == nil)
    guard case (let finished, .finished)? = machine.deliveryEnded() else {
      Issue.record("the outermost call returning finishes the downstream")
      return
    }
    #expect(finished === downstream)
    #expect(machine.downstream == nil)
    let afterCall3 = machine.deliveryEnded()
    #expect(afterCall3 == nil)
  }

  @Test func prefixsTriggerFiringBeforeUpstreamSubscribesSubscribesAndFinishesTheDownstream() {
    let downstream = TestSubscriber<Int, Never>()
    let trigger = SpySubscription()
    var machine = prefix(downstream)
    let taken = machine.triggerSubscribed(trigger)
    #expect(taken)
    let taken2 = machine.triggerSubscribed(SpySubscription())
    #expect(!taken2)
    guard case .subscribeAndFinish(let cancelled, let finished) = machine.triggerFiredFinishing() else {
      Issue.record("the downstream, never subscribed, gets its subscription and the finish")
      return
    }
    #expect(same(cancelled, trigger))
    #expect(finished === downstream)
    guard case .cancel = machine.upstreamSubscribed(SpySubscription()) else {
      Issue.record("an upstream subscribing after the end is cancelled")
      return
    }
  }

  @Test func dropCountsWhatItDropsAgainstDemandAndPassesValuesOnceTheTriggerFires() {
    let downstream = TestSubscriber<Int, Never>()
    var machine = drop(downstream)
    // Requested before upstream subscribed: asked of it when it does.
    let askedOf = machine.request(.max(2))
    #expect(askedOf == nil)
    let taken = machine.triggerSubscribed(SpySubscription())
    #expect(taken)
    let upstream = SpySubscription()
    guard case .request(.max(2)) = machine.upstreamSubscribed(upstream) else {
      Issue.record("upstream is asked for what was requested before it subscribed")
      return
    }
    let askedOf2 = machine.request(.max(1))
    #expect(same(askedOf2, upstream))
    let delivery = machine.value()
    #expect(delivery == nil)
    #expect(machine.outstandingDemand == .max(2))
    machine.triggerFiredOpening()
    let delivery2 = machine.value()
    #expect(delivery2 === downstream)
    let afterCall = machine.deliveryEnded()
    #expect(afterCall == nil)
    // Firing again, or completing, after the trigger fired changes nothing.
    let ending = machine.triggerCompleted(ending: .finished)
    #expect(describe(ending) == "none")
    let delivery3 = machine.value()
    #expect(delivery3 === downstream)
  }

  @Test func dropsTriggerCompletingBeforeItFiresEndsTheStreamWithItsCompletion() {
    let downstream = TestSubscriber<Int, Never>()
    let upstream = SpySubscription()
    var machine = running(drop(downstream), downstream, upstream: upstream, trigger: SpySubscription())
    guard case .complete(let cancelled, nil, let completed?, .finished) = machine.triggerCompleted(ending: .finished)
    else {
      Issue.record("the trigger finishing before it fired finishes the stream at once")
      return
    }
    #expect(same(cancelled, upstream))
    #expect(completed === downstream)
    machine.triggerFiredOpening()
    guard case .closed = machine.gate else {
      Issue.record("the trigger firing after the end opens nothing")
      return
    }
  }

  @Test func prefixsUpstreamCompletingBeforeItsSubscriptionEndsWithoutAWordAndDropsAnnounced() {
    let downstream = TestSubscriber<Int, Never>()
    let trigger = SpySubscription()
    var machine = prefix(downstream)
    let taken = machine.triggerSubscribed(trigger)
    #expect(taken)
    guard case .release(nil, let cancelled, let released?) = machine.upstreamCompleted(.finished)
    else {
      Issue.record("the stream ends without a word to the downstream, never subscribed")
      return
    }
    #expect(same(cancelled, trigger))
    #expect(released === downstream)

    var announced = drop(downstream)
    let ending = announced.upstreamCompleted(.finished)
    #expect(describe(ending) == "finish the downstream")
  }

  @Test func aCancelLetsGoOfEverythingOnceAndLaterEventsDoNothing() {
    let downstream = TestSubscriber<Int, Never>()
    let upstream = SpySubscription()
    let trigger = SpySubscription()
    var machine = running(prefix(downstream), downstream, upstream: upstream, trigger: trigger)
    guard case .release(let cancelledUpstream, let cancelledTrigger, let released?) = machine.cancel() else {
      Issue.record("a cancel lets go of both publishers and the downstream")
      return
    }
    #expect(same(cancelledUpstream, upstream))
    #expect(same(cancelledTrigger, trigger))
    #expect(released === downstream)
    let cancelling = machine.cancel()
    #expect(describe(cancelling) == "none")
    let askedOf = machine.request(.max(1))
    #expect(askedOf == nil)
    let delivery = machine.value()
    #expect(delivery == nil)
    let firing = machine.triggerFiredFinishing()
    #expect(describe(firing) == "none")
    let ending = machine.upstreamCompleted(.finished)
    #expect(describe(ending) == "none")
  }
}

/// A short name for an action, for the expectations above.
private func describe<Downstream>(_ action: TriggeredStateMachine<Downstream>.EndAction) -> String {
  switch action {
  case .none: return "none"
  case .complete(_, _, nil, _): return "complete later"
  case .complete(_, _, _, .finished): return "finish the downstream"
  case .complete: return "fail the downstream"
  case .subscribeAndFinish: return "subscribe and finish the downstream"
  case .release: return "release"
  }
}

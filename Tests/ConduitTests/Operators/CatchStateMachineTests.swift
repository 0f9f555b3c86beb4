import ConduitTesting
import Testing

@testable import Conduit

/// The decisions of `catch` and `tryCatch`, without threads or publishers; the handler is a
/// label, so a test can tell which one the machine hands out.
@Suite(.leakChecked)
struct CatchStateMachineTests {
  fileprivate typealias Downstream = RecordingSubscriber<Int, Never>
  fileprivate typealias Machine = CatchStateMachine<Downstream, String>

  /// A machine whose upstream has subscribed, and whose downstream asked for `demand`.
  private func subscribed(
    _ downstream: Downstream = Downstream(), upstream: SpySubscription = SpySubscription(),
    demand: Subscribers.Demand = .none
  ) -> Machine {
    var machine = Machine(downstream: downstream, handler: "handler")
    guard case .handDown(let handedTo) = machine.receiveUpstream(subscription: upstream), handedTo === downstream
    else {
      Issue.record("the upstream's subscription is handed down")
      return machine
    }
    if demand != .none {
      guard case .forward(let targets) = machine.request(demand), same(targets.upstream, upstream) else {
        Issue.record("a request goes to the upstream")
        return machine
      }
    }
    return machine
  }

  /// A machine whose upstream has failed, with `demand` left.
  private func failed(_ downstream: Downstream = Downstream(), demand: Subscribers.Demand = .none) -> Machine {
    var machine = subscribed(downstream, demand: demand)
    guard case .replace("handler", _) = machine.upstreamFailed() else {
      Issue.record("the upstream's failure hands out the handler")
      return machine
    }
    return machine
  }

  @Test func theUpstreamsFirstSubscriptionIsHandedDownAndAnotherIsCancelled() {
    let downstream = Downstream()
    var machine = subscribed(downstream)
    #expect(machine.downstream === downstream)
    guard case .cancel = machine.receiveUpstream(subscription: SpySubscription()) else {
      Issue.record("a second subscription from the upstream is cancelled")
      return
    }
    guard case .cancel = machine.receiveReplacement(subscription: SpySubscription()) else {
      Issue.record("a replacement's subscription before the upstream failed is cancelled")
      return
    }
  }

  @Test func theUpstreamsValuesCountAgainstTheDemand() {
    let upstream = SpySubscription()
    var machine = subscribed(upstream: upstream, demand: .max(2))
    guard case .deliver(let targets) = machine.receiveUpstreamValue(), same(targets.upstream, upstream) else {
      Issue.record("a value with demand is delivered")
      return
    }
    guard case .deliver = machine.receiveUpstreamValue() else {
      Issue.record("the second value is still within the demand")
      return
    }
    #expect(machine.demand == .none)
    guard case .unrequested = machine.receiveUpstreamValue() else {
      Issue.record("a value beyond the demand breaks the contract")
      return
    }
    machine.add(.max(1))
    guard case .deliver = machine.receiveUpstreamValue() else {
      Issue.record("the demand a value returned counts")
      return
    }
    guard case .ignore = machine.receiveReplacementValue() else {
      Issue.record("a replacement's value before the upstream failed is dropped")
      return
    }
  }

  @Test func aValueOrAFailureBeforeTheUpstreamsSubscriptionBreaksTheContract() {
    var machine = Machine(downstream: Downstream(), handler: "handler")
    guard case .none = machine.request(.max(1)) else {
      Issue.record("a request before the subscription is only counted")
      return
    }
    #expect(machine.demand == .max(1))
    guard case .unrequested = machine.receiveUpstreamValue() else {
      Issue.record("a value before the subscription breaks the contract, whatever the demand")
      return
    }
    guard case .outOfOrder = machine.upstreamFailed() else {
      Issue.record("a failure before the subscription breaks the contract")
      return
    }
    guard case .none = machine.upstreamFinished() else {
      Issue.record("a finish before the subscription is ignored")
      return
    }
    machine.add(.max(5))
    #expect(machine.demand == .max(1))
  }

  @Test func theReplacementIsAskedForTheDemandTheUpstreamLeft() {
    let downstream = Downstream()
    var machine = failed(downstream, demand: .max(3))
    #expect(machine.downstream === downstream)
    guard case .ignore = machine.receiveUpstreamValue() else {
      Issue.record("the failed upstream's values are dropped")
      return
    }
    guard case .none = machine.request(.max(2)) else {
      Issue.record("a request while the replacement is made is only counted")
      return
    }
    let replacement = SpySubscription()
    guard case .request(.max(5)) = machine.receiveReplacement(subscription: replacement) else {
      Issue.record("the replacement is asked for what is left")
      return
    }
    guard case .deliver(let targets) = machine.receiveReplacementValue(), same(targets.upstream, replacement),
      targets.downstream === downstream
    else {
      Issue.record("the replacement's values go to the downstream")
      return
    }
    #expect(machine.demand == .max(4))
    guard case .cancel = machine.receiveReplacement(subscription: SpySubscription()) else {
      Issue.record("a second subscription from the replacement is cancelled")
      return
    }
  }

  @Test func aReplacementWithNoDemandLeftIsAskedForNothing() {
    var machine = subscribed(demand: .max(1))
    _ = machine.receiveUpstreamValue()
    _ = machine.upstreamFailed()
    guard case .none = machine.receiveReplacement(subscription: SpySubscription()) else {
      Issue.record("no demand is left to ask for")
      return
    }
  }

  @Test func theReplacementsValuesAreNotCheckedAgainstTheDemand() {
    var machine = failed()
    _ = machine.receiveReplacement(subscription: SpySubscription())
    guard case .deliver = machine.receiveReplacementValue() else {
      Issue.record("as in Combine, a replacement's value beyond the demand is delivered")
      return
    }
    #expect(machine.demand == .none)
  }

  @Test func theUpstreamFailsOnlyOnce() {
    var machine = failed()
    guard case .outOfOrder = machine.upstreamFailed() else {
      Issue.record("a second failure breaks the contract")
      return
    }
    _ = machine.receiveReplacement(subscription: SpySubscription())
    guard case .outOfOrder = machine.upstreamFailed() else {
      Issue.record("a failure while the replacement runs breaks the contract")
      return
    }
    guard case .none = machine.upstreamFinished() else {
      Issue.record("the failed upstream's finish is ignored")
      return
    }
    _ = machine.cancel()
    guard case .none = machine.upstreamFailed() else {
      Issue.record("a failure after the end is ignored")
      return
    }
  }

  @Test func theUpstreamsFinishEndsTheStream() {
    let downstream = Downstream()
    var machine = subscribed(downstream)
    guard case .complete(let completed, ended: .upstream(_, handler: "handler")) = machine.upstreamFinished(),
      completed === downstream
    else {
      Issue.record("the finish goes to the downstream, and the handler is let go of with the rest")
      return
    }
    #expect(machine.downstream == nil)
    guard case .none = machine.upstreamFinished(), case .ignore = machine.receiveUpstreamValue() else {
      Issue.record("nothing after the end")
      return
    }
  }

  @Test func aThrowingHandlerEndsTheStream() {
    let downstream = Downstream()
    var machine = Machine(downstream: downstream, handler: "handler")
    guard case .none = machine.handlerThrew() else {
      Issue.record("only the handler that is making the replacement can throw")
      return
    }
    machine = failed(downstream)
    guard case .complete(let completed, ended: .awaitingReplacement) = machine.handlerThrew(), completed === downstream
    else {
      Issue.record("what the handler threw goes to the downstream")
      return
    }
    guard case .cancel = machine.receiveReplacement(subscription: SpySubscription()) else {
      Issue.record("a replacement's subscription after the end is cancelled")
      return
    }
  }

  @Test func theReplacementsCompletionEndsTheStream() {
    let downstream = Downstream()
    var machine = failed(downstream)
    guard case .none = machine.replacementCompleted() else {
      Issue.record("a completion before the replacement's subscription is ignored")
      return
    }
    _ = machine.receiveReplacement(subscription: SpySubscription())
    guard case .complete(let completed, ended: .replacement) = machine.replacementCompleted(), completed === downstream
    else {
      Issue.record("the replacement's completion goes to the downstream")
      return
    }
    guard case .none = machine.replacementCompleted(), case .ignore = machine.receiveReplacementValue() else {
      Issue.record("nothing after the end")
      return
    }
  }

  @Test func aCancelHandsOverTheCurrentSubscriptionOnce() {
    let upstream = SpySubscription()
    var machine = subscribed(upstream: upstream)
    guard case .cancel(let current, ended: .upstream) = machine.cancel(), same(current?.upstream, upstream) else {
      Issue.record("the upstream is cancelled")
      return
    }
    guard case .none = machine.cancel(), case .none = machine.request(.max(1)) else {
      Issue.record("nothing after the end")
      return
    }
    #expect(machine.demand == .none)
  }

  @Test func aCancelWhileTheReplacementIsMadeHasNothingToCancel() {
    var machine = failed()
    guard case .cancel(nil, ended: .awaitingReplacement) = machine.cancel() else {
      Issue.record("no subscription is current")
      return
    }
    guard case .cancel = machine.receiveReplacement(subscription: SpySubscription()) else {
      Issue.record("the replacement's subscription, arriving after the cancel, is cancelled")
      return
    }
  }
}

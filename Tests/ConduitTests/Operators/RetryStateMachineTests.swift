import ConduitTesting
import Testing

@testable import Conduit

/// The decisions of `retry`, without threads or publishers; the upstream is a label, so a test
/// can tell when the machine asks for it to be subscribed to.
@Suite(.leakChecked)
struct RetryStateMachineTests {
  fileprivate typealias Downstream = RecordingSubscriber<Int, Never>
  fileprivate typealias Machine = RetryStateMachine<String, Downstream>

  /// A machine that has started and whose first subscription has arrived.
  private func subscribed(
    retries: Int? = 1, _ downstream: Downstream = Downstream(), upstream: SpySubscription = SpySubscription()
  ) -> Machine {
    var machine = Machine(upstream: "upstream", retries: retries, downstream: downstream)
    guard case .subscribe("upstream") = machine.start() else {
      Issue.record("the start subscribes to the upstream")
      return machine
    }
    guard case .handDown(let handedTo) = machine.receive(subscription: upstream), handedTo === downstream else {
      Issue.record("the first subscription is handed down")
      return machine
    }
    guard case .leave = machine.nextSubscription() else {
      Issue.record("nothing asked for another subscription")
      return machine
    }
    return machine
  }

  @Test func aSecondSubscriptionWhileOneIsCurrentIsCancelled() {
    var machine = subscribed()
    guard case .cancel = machine.receive(subscription: SpySubscription()) else {
      Issue.record("only one subscription is current")
      return
    }
  }

  @Test func valuesCountAgainstTheDemand() {
    let upstream = SpySubscription()
    var machine = subscribed(upstream: upstream)
    guard case .unrequested = machine.receiveValue() else {
      Issue.record("a value without demand breaks the contract")
      return
    }
    guard case .forward(let targets) = machine.request(.max(1)), same(targets.upstream, upstream) else {
      Issue.record("a request goes to the current subscription")
      return
    }
    guard case .deliver(let delivering) = machine.receiveValue(), same(delivering.upstream, upstream) else {
      Issue.record("a value within the demand is delivered")
      return
    }
    #expect(machine.demand == .none)
  }

  @Test func aFailureSubscribesAgainAndTheNewSubscriptionIsAskedForWhatIsLeft() {
    let downstream = Downstream()
    let first = SpySubscription()
    var machine = Machine(upstream: "upstream", retries: 2, downstream: downstream)
    _ = machine.receive(subscription: first)
    _ = machine.request(.max(3))
    _ = machine.receiveValue()
    guard case .resubscribe("upstream", let failed) = machine.receiveCompletion(failed: true),
      same(failed?.upstream, first)
    else {
      Issue.record("with no loop running, the failure's call subscribes again")
      return
    }
    #expect(machine.retriesLeft == 1)
    guard case .none = machine.request(.max(1)) else {
      Issue.record("a request between subscriptions is only counted")
      return
    }
    guard case .request(.max(3)) = machine.receive(subscription: SpySubscription()) else {
      Issue.record("the new subscription is asked for what is left")
      return
    }
    guard case .leave = machine.nextSubscription() else {
      Issue.record("the failure's call leaves its loop once subscribed")
      return
    }
    #expect(machine.loop == .idle)
  }

  @Test func aNewSubscriptionWithNoDemandLeftIsAskedForNothing() {
    var machine = subscribed()
    _ = machine.receiveCompletion(failed: true)
    guard case .none = machine.receive(subscription: SpySubscription()) else {
      Issue.record("no demand is left to ask for")
      return
    }
  }

  @Test func aFailureWhileTheLoopRunsIsLeftToIt() {
    let upstream = SpySubscription()
    var machine = Machine(upstream: "upstream", retries: nil, downstream: Downstream())
    _ = machine.start()
    _ = machine.receive(subscription: upstream)
    guard case .leaveToLoop(let failed) = machine.receiveCompletion(failed: true), same(failed?.upstream, upstream)
    else {
      Issue.record("the loop subscribes again, not the failure's call")
      return
    }
    guard case .none = machine.receiveCompletion(failed: true) else {
      Issue.record("a completion while subscribing again is ignored")
      return
    }
    guard case .subscribe("upstream") = machine.nextSubscription(), case .leave = machine.nextSubscription() else {
      Issue.record("the loop subscribes once for the failure, then leaves")
      return
    }
    #expect(machine.retriesLeft == nil)
  }

  @Test func theLastRetryFailsTheStream() {
    let downstream = Downstream()
    var machine = subscribed(retries: 1, downstream)
    _ = machine.receiveCompletion(failed: true)
    _ = machine.receive(subscription: SpySubscription())
    guard case .complete(let completed, ended: .subscribed) = machine.receiveCompletion(failed: true),
      completed === downstream
    else {
      Issue.record("with no retries left, the failure goes to the downstream")
      return
    }
    guard case .ignore = machine.receiveValue(), case .none = machine.receiveCompletion(failed: true) else {
      Issue.record("nothing after the end")
      return
    }
  }

  @Test func aNegativeCountNeverRunsOut() {
    let machine = Machine(upstream: "upstream", retries: -1, downstream: Downstream())
    #expect(machine.retriesLeft == nil)
  }

  @Test func aFinishEndsTheStreamWhateverRetriesRemain() {
    let downstream = Downstream()
    var machine = subscribed(retries: nil, downstream)
    guard case .complete(let completed, _) = machine.receiveCompletion(failed: false), completed === downstream else {
      Issue.record("a finish goes to the downstream")
      return
    }
    guard case .cancel = machine.receive(subscription: SpySubscription()) else {
      Issue.record("a subscription after the end is cancelled")
      return
    }
  }

  @Test func aFailureBeforeTheFirstSubscriptionIsHandledAndTheDownstreamSubscribesLater() {
    let downstream = Downstream()
    var machine = Machine(upstream: "upstream", retries: 1, downstream: downstream)
    guard case .resubscribe("upstream", failed: nil) = machine.receiveCompletion(failed: true) else {
      Issue.record("a failure before any subscription counts as any other")
      return
    }
    guard case .handDown(let handedTo) = machine.receive(subscription: SpySubscription()), handedTo === downstream
    else {
      Issue.record("the downstream gets its subscription with the first that arrives")
      return
    }
  }

  @Test func aValueBetweenSubscriptionsGoesToTheDownstream() {
    let downstream = Downstream()
    var machine = subscribed(downstream)
    _ = machine.receiveCompletion(failed: true)
    guard case .unrequested = machine.receiveValue() else {
      Issue.record("a value between subscriptions is checked against the demand too")
      return
    }
    _ = machine.request(.max(1))
    guard case .deliverBetweenSubscriptions(let target) = machine.receiveValue(), target === downstream else {
      Issue.record("a value between subscriptions goes to the downstream")
      return
    }
    #expect(machine.demand == .none)
  }

  @Test func aCancelHandsOverTheCurrentSubscriptionOnceAndStopsTheLoop() {
    let upstream = SpySubscription()
    var machine = subscribed(upstream: upstream)
    guard case .cancel(let current, ended: .subscribed) = machine.cancel(), same(current?.upstream, upstream) else {
      Issue.record("the current subscription is cancelled")
      return
    }
    guard case .none = machine.cancel(), case .none = machine.request(.max(1)) else {
      Issue.record("nothing after the end")
      return
    }
    #expect(machine.demand == .none)
    guard case .leave = machine.start() else {
      Issue.record("nothing is subscribed to after the end")
      return
    }
    #expect(machine.loop == .idle)
  }

  @Test func aCancelBetweenSubscriptionsHasNothingToCancelAndEndsTheLoop() {
    var machine = Machine(upstream: "upstream", retries: 1, downstream: Downstream())
    _ = machine.start()
    _ = machine.receive(subscription: SpySubscription())
    _ = machine.receiveCompletion(failed: true)
    guard case .cancel(nil, ended: .resubscribing) = machine.cancel() else {
      Issue.record("no subscription is current")
      return
    }
    guard case .leave = machine.nextSubscription() else {
      Issue.record("the loop does not subscribe again after the end")
      return
    }
  }
}

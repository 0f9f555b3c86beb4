import ConduitTesting
import Testing

@testable import Conduit

/// The decisions of `replaceError(with:)`, without threads or publishers.
@Suite(.leakChecked)
struct ReplaceErrorStateMachineTests {
  private typealias Machine = ReplaceErrorStateMachine<TestSubscriber<Int, Never>>

  /// A machine whose upstream has subscribed, after `demand` was requested.
  private func active(
    _ downstream: TestSubscriber<Int, Never>, upstream: SpySubscription, demand: Subscribers.Demand
  ) -> Machine {
    var machine = Machine(downstream: downstream)
    if demand > 0 {
      guard case .none = machine.request(demand) else {
        Issue.record("a request before the subscription is only counted")
        return machine
      }
    }
    guard case .handDown(let handedDown) = machine.receive(subscription: upstream) else {
      Issue.record("the first subscription is handed down")
      return machine
    }
    #expect(handedDown === downstream)
    return machine
  }

  @Test func demandCountedBeforeTheSubscriptionIsSpentByValues() {
    let downstream = TestSubscriber<Int, Never>()
    let upstream = SpySubscription()
    var machine = active(downstream, upstream: upstream, demand: .max(1))
    let first = machine.value()
    #expect(first?.downstream === downstream)
    // The one value requested is spent: a failure now waits for a request.
    guard case .release(let released) = machine.receive(finished: false) else {
      Issue.record("a failure without demand lets go of upstream and waits")
      return
    }
    #expect(same(released.upstream, upstream))
    guard case .replace(let replaced) = machine.request(.max(1)) else {
      Issue.record("the request the replacement waited for sends it")
      return
    }
    #expect(replaced === downstream)
    guard case .none = machine.request(.max(1)) else {
      Issue.record("after the replacement, nothing is asked")
      return
    }
  }

  @Test func aFailureWithDemandIsReplacedAtOnce() {
    let downstream = TestSubscriber<Int, Never>()
    var machine = active(downstream, upstream: SpySubscription(), demand: .none)
    guard case .request = machine.request(.max(2)) else {
      Issue.record("a request while active goes to upstream")
      return
    }
    _ = machine.value()
    machine.add(.max(1))
    guard case .replace(let replaced, _) = machine.receive(finished: false) else {
      Issue.record("with demand left, the failure is replaced at once")
      return
    }
    #expect(replaced === downstream)
    let afterTheEnd = machine.value()
    #expect(afterTheEnd == nil)
  }

  @Test func aSecondSubscriptionIsCancelledAndAFinishGoesOn() {
    var machine = active(TestSubscriber(), upstream: SpySubscription(), demand: .none)
    guard case .cancel = machine.receive(subscription: SpySubscription()) else {
      Issue.record("a second subscription is cancelled")
      return
    }
    guard case .finish = machine.receive(finished: true) else {
      Issue.record("a finish goes on")
      return
    }
    guard case .none = machine.receive(finished: false) else {
      Issue.record("nothing follows the end")
      return
    }
  }

  @Test func aCancelBeforeTheSubscriptionIsIgnoredAndAfterItCancelsOnce() {
    let downstream = TestSubscriber<Int, Never>()
    var machine = Machine(downstream: downstream)
    guard case .none = machine.cancel() else {
      Issue.record("a cancel before the subscription changes nothing, as in Combine")
      return
    }
    let upstream = SpySubscription()
    guard case .handDown = machine.receive(subscription: upstream) else {
      Issue.record("the subscription is still taken after that cancel")
      return
    }
    guard case .cancel(let targets) = machine.cancel() else {
      Issue.record("a cancel while active cancels upstream")
      return
    }
    #expect(same(targets.upstream, upstream))
    guard case .none = machine.cancel() else {
      Issue.record("a second cancel does nothing")
      return
    }
  }
}

import ConduitTesting
import Testing

@testable import Conduit

/// The decisions of `Publishers.Concatenate`, without threads or publishers; the downstream is an
/// object the test can recognise and the suffix a label.
@Suite(.leakChecked)
struct ConcatenateStateMachineTests {
  fileprivate typealias Machine = ConcatenateStateMachine<Downstream, String>

  fileprivate final class Downstream {}

  /// A machine whose prefix has subscribed, and whose downstream asked for `demand`.
  private func prefixing(
    _ downstream: Downstream = Downstream(), prefix: SpySubscription = SpySubscription(),
    demand: Subscribers.Demand = .none
  ) -> Machine {
    var machine = Machine(downstream: downstream, suffix: "suffix")
    guard case .handDown(let handedTo) = machine.receive(subscription: prefix, from: .prefix), handedTo === downstream
    else {
      Issue.record("the prefix's subscription is handed down")
      return machine
    }
    guard case .forward(let upstream) = machine.request(demand), same(upstream, prefix) else {
      Issue.record("a request goes to the prefix")
      return machine
    }
    return machine
  }

  /// A machine whose prefix has finished and whose suffix has subscribed.
  private func suffixing(
    _ downstream: Downstream = Downstream(), suffix: SpySubscription = SpySubscription(),
    demand: Subscribers.Demand = .none
  ) -> Machine {
    var machine = prefixing(downstream, demand: demand)
    _ = machine.receiveCompletion(from: .prefix, finished: true)
    _ = machine.receive(subscription: suffix, from: .suffix)
    return machine
  }

  @Test func onlyTheCurrentSidesFirstSubscriptionIsKept() {
    var machine = Machine(downstream: Downstream(), suffix: "suffix")
    guard case .cancel = machine.receive(subscription: SpySubscription(), from: .suffix) else {
      Issue.record("the suffix's subscription before the prefix finished is cancelled")
      return
    }
    _ = machine.receive(subscription: SpySubscription(), from: .prefix)
    guard case .cancel = machine.receive(subscription: SpySubscription(), from: .prefix) else {
      Issue.record("a second subscription from the prefix is cancelled")
      return
    }
  }

  @Test func valuesWithinTheDemandGoToTheDownstreamAndOthersAreDropped() {
    let downstream = Downstream()
    var machine = prefixing(downstream, demand: .max(1))
    guard case .ignore = machine.receiveValue(from: .suffix) else {
      Issue.record("the suffix's values before it is current are dropped")
      return
    }
    guard case .deliver(let target) = machine.receiveValue(from: .prefix), target === downstream else {
      Issue.record("a value within the demand is delivered")
      return
    }
    guard case .ignore = machine.receiveValue(from: .prefix) else {
      Issue.record("as in Combine, a value beyond the demand is dropped")
      return
    }
    machine.add(.max(1))
    guard case .deliver = machine.receiveValue(from: .prefix) else {
      Issue.record("the demand a value returned counts")
      return
    }
  }

  @Test func thePrefixsFinishSubscribesToTheSuffixWhichIsAskedForWhatIsLeft() {
    let prefix = SpySubscription()
    var machine = prefixing(prefix: prefix, demand: .max(3))
    _ = machine.receiveValue(from: .prefix)
    guard case .subscribe("suffix", let finished) = machine.receiveCompletion(from: .prefix, finished: true),
      same(finished, prefix)
    else {
      Issue.record("the prefix's finish hands out the suffix")
      return
    }
    guard case .ignore = machine.receiveValue(from: .prefix), case .none = machine.request(.max(1)) else {
      Issue.record("the finished prefix's values are dropped, and a request is only counted")
      return
    }
    let suffix = SpySubscription()
    guard case .request(.max(3)) = machine.receive(subscription: suffix, from: .suffix) else {
      Issue.record("the suffix is asked for the demand the prefix did not meet")
      return
    }
    guard case .forward(let upstream) = machine.request(.max(1)), same(upstream, suffix) else {
      Issue.record("requests go to the suffix now")
      return
    }
  }

  @Test func aSuffixWithNoDemandLeftIsAskedForNothing() {
    var machine = prefixing()
    _ = machine.receiveCompletion(from: .prefix, finished: true)
    guard case .none = machine.receive(subscription: SpySubscription(), from: .suffix) else {
      Issue.record("no demand is left to ask for")
      return
    }
  }

  @Test func thePrefixsFailureEndsTheStreamWithoutTheSuffix() {
    let downstream = Downstream()
    var machine = prefixing(downstream)
    guard
      case .complete(let completed, ended: .prefix(_, "suffix", _)) = machine.receiveCompletion(
        from: .prefix, finished: false),
      completed === downstream
    else {
      Issue.record("the failure goes to the downstream, and the suffix is let go of")
      return
    }
    guard case .none = machine.receiveCompletion(from: .prefix, finished: true) else {
      Issue.record("a second completion is ignored")
      return
    }
  }

  @Test func theSuffixsCompletionEndsTheStreamAndThePrefixsIsIgnored() {
    let downstream = Downstream()
    var machine = suffixing(downstream)
    guard case .none = machine.receiveCompletion(from: .prefix, finished: false) else {
      Issue.record("the finished prefix's completion is ignored")
      return
    }
    guard case .complete(let completed, ended: .suffix) = machine.receiveCompletion(from: .suffix, finished: true),
      completed === downstream
    else {
      Issue.record("the suffix's completion goes to the downstream")
      return
    }
    guard case .ignore = machine.receiveValue(from: .suffix), case .none = machine.request(.max(1)) else {
      Issue.record("nothing after the end")
      return
    }
    machine.add(.max(1))
    #expect(machine.demand == .none)
  }

  @Test func aCancelHandsOverTheCurrentSubscriptionOnce() {
    let suffix = SpySubscription()
    var machine = suffixing(suffix: suffix)
    guard case .cancel(let current, ended: .suffix) = machine.cancel(), same(current, suffix) else {
      Issue.record("the suffix is cancelled")
      return
    }
    guard case .none = machine.cancel() else {
      Issue.record("a second cancel does nothing")
      return
    }
  }

  @Test func aCancelWhileTheSuffixIsSubscribedToHasNothingToCancel() {
    var machine = prefixing()
    _ = machine.receiveCompletion(from: .prefix, finished: true)
    guard case .cancel(nil, ended: .awaitingSuffix) = machine.cancel() else {
      Issue.record("no subscription is current")
      return
    }
    guard case .cancel = machine.receive(subscription: SpySubscription(), from: .suffix) else {
      Issue.record("the suffix's subscription, arriving after the cancel, is cancelled")
      return
    }
  }
}

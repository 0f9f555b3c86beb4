import ConduitTesting
import Testing

@testable import Conduit

/// The decisions of `measureInterval`, without threads or a scheduler.
@Suite(.leakChecked)
struct MeasureIntervalStateMachineTests {
  @Test func theFirstIntervalIsMeasuredFromTheSubscriptionAndEachLaterOneFromThePreviousElement() {
    let upstream = SpySubscription()
    var machine = MeasureIntervalStateMachine<Int>()
    #expect(machine.receiveValue(at: 5) == nil)
    #expect(machine.receive(subscription: upstream, at: 10) == true)
    #expect(machine.receive(subscription: SpySubscription(), at: 11) == false)
    #expect(machine.receiveValue(at: 15)?.interval == 5)
    #expect(machine.receiveValue(at: 15)?.interval == 0)
    let last = machine.receiveValue(at: 40)
    #expect(last?.interval == 25)
    #expect(last?.upstream as? SpySubscription === upstream)
  }

  @Test func theEndForgetsTheUpstreamOnce() {
    let upstream = SpySubscription()
    var machine = MeasureIntervalStateMachine<Int>()
    _ = machine.receive(subscription: upstream, at: 0)
    let ended = machine.end()
    #expect(ended != nil)
    #expect(ended! as? SpySubscription === upstream)
    #expect(machine.end() == nil)
    #expect(machine.receiveValue(at: 1) == nil)
    #expect(machine.receive(subscription: SpySubscription(), at: 2) == false)
  }
}

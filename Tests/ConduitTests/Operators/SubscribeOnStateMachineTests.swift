import ConduitTesting
import Testing

@testable import Conduit

/// The decisions of `subscribe(on:)`, without threads or a scheduler.
@Suite(.leakChecked)
struct SubscribeOnStateMachineTests {
  @Test func valuesAndRequestsFlowOnlyWhileSubscribed() {
    let downstream = SpySubscription()
    let upstream = SpySubscription()
    var machine = SubscribeOnStateMachine(downstream: downstream)
    #expect(machine.valueTarget == nil)
    #expect(machine.requestTarget == nil)
    #expect(machine.receive(subscription: upstream) === downstream)
    #expect(machine.receive(subscription: SpySubscription()) == nil)
    #expect(machine.handedDown() == nil)
    #expect(machine.holdsRequest(.max(1)) == false)
    #expect(machine.valueTarget === downstream)
    #expect(machine.requestTarget as? SpySubscription === upstream)
    #expect(machine.receiveCompletion() === downstream)
    #expect(machine.valueTarget == nil)
    #expect(machine.receiveCompletion() == nil)
    #expect(machine.cancel() == nil)
  }

  @Test func requestsThatRunWhileTheDownstreamTakesItsSubscriptionAreHeldThenAskedTogether() {
    let downstream = SpySubscription()
    let upstream = SpySubscription()
    var machine = SubscribeOnStateMachine(downstream: downstream)
    _ = machine.receive(subscription: upstream)
    #expect(machine.requestTarget as? SpySubscription === upstream)
    #expect(machine.holdsRequest(.max(2)) == true)
    #expect(machine.holdsRequest(.max(3)) == true)
    let handed = machine.handedDown()
    #expect(handed?.upstream as? SpySubscription === upstream)
    #expect(handed?.demand == .max(5))
    #expect(machine.holdsRequest(.max(1)) == false)
    #expect(machine.handedDown() == nil)
  }

  @Test func aCancelWhileTheDownstreamTakesItsSubscriptionDropsWhatWasHeld() {
    let downstream = SpySubscription()
    var machine = SubscribeOnStateMachine(downstream: downstream)
    _ = machine.receive(subscription: SpySubscription())
    #expect(machine.holdsRequest(.unlimited) == true)
    #expect(machine.cancel() != nil)
    #expect(machine.handedDown() == nil)
  }

  @Test func cancelHandsOverBothEndsOnce() {
    let downstream = SpySubscription()
    let upstream = SpySubscription()
    var machine = SubscribeOnStateMachine(downstream: downstream)
    _ = machine.receive(subscription: upstream)
    let cancelled = machine.cancel()
    #expect(cancelled?.upstream as? SpySubscription === upstream)
    #expect(cancelled?.downstream === downstream)
    #expect(machine.cancel() == nil)
    #expect(machine.requestTarget == nil)
  }
}

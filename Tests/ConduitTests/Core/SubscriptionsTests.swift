import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct SubscriptionsTests {
  @Test func emptyIgnoresRequestsAndCancellation() {
    let subscription = Subscriptions.empty
    subscription.request(.max(1))
    subscription.request(.unlimited)
    subscription.cancel()
    subscription.cancel()
    subscription.request(.max(3))
  }

  @Test func emptyIsShared() {
    #expect(Subscriptions.empty.combineIdentifier == Subscriptions.empty.combineIdentifier)
  }

  @Test func emptyDescribesItself() {
    #expect(String(describing: Subscriptions.empty) == "Empty")
  }

  /// As in Combine: shown in playgrounds as "Empty", and reflected with no children.
  @Test func emptyReflectsAsCombinesDoes() throws {
    let subscription = Subscriptions.empty
    #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Empty")
    let mirror = try #require((subscription as? any CustomReflectable)?.customMirror)
    #expect(mirror.children.isEmpty)
    #expect(!(subscription is any CustomDebugStringConvertible))
  }

  @Test func emptyLetsAPublisherCompleteAtOnce() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subscriber.receive(subscription: Subscriptions.empty)
    subscriber.receive(completion: .finished)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func emptyHoldsNothing() {
    weak var weakSubscriber: TestSubscriber<Int, Never>?
    do {
      let subscriber = TestSubscriber<Int, Never>()
      weakSubscriber = subscriber
      subscriber.receive(subscription: Subscriptions.empty)
    }
    #expect(weakSubscriber == nil)
  }
}

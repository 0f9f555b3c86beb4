import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct OptionalPublisherTests {
  @Test func someDeliversTheValueThenFinishes() {
    let subscriber = TestSubscriber<Int, Never>()
    Optional(3).publisher.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(3), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func noneFinishesAtOnceWithoutDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Int?.none.publisher.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func someWaitsForDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Optional.Publisher(5).subscribe(subscriber)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(5), .completion(.finished)])
  }

  @Test func cancelBeforeDemandDeliversNothing() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Optional(5).publisher.subscribe(subscriber)
    let subscription = subscriber.subscription
    subscriber.cancel()
    subscription?.request(.max(1))
    #expect(subscriber.events == [.subscription])
  }

  @Test func everySubscriberGetsTheValue() {
    let publisher = Optional("x").publisher
    let first = TestSubscriber<String, Never>()
    let second = TestSubscriber<String, Never>()
    publisher.subscribe(first)
    publisher.subscribe(second)
    #expect(first.values == ["x"])
    #expect(second.values == ["x"])
  }

  @Test func exposesOutputAndEquatable() {
    #expect(Optional(1).publisher.output == 1)
    #expect(Int?.none.publisher.output == nil)
    #expect(Optional(1).publisher == Optional.Publisher(1))
    #expect(Optional(1).publisher != Int?.none.publisher)
  }

  @Test func finishedSubscriptionReleasesTheSubscriber() {
    weak var weakProbe: CapturedProbe?
    var subscription: (any Subscription)?
    var values: [Int] = []
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      Optional(1).publisher.subscribe(
        AnySubscriber<Int, Never>(
          receiveSubscription: { subscription = $0 },
          receiveValue: {
            _ = probe
            values.append($0)
            return .none
          }))
    }
    #expect(weakProbe != nil)
    subscription?.request(.max(1))
    #expect(values == [1])
    #expect(weakProbe == nil)
    subscription = nil
  }

  @Test func cancelledSubscriptionReleasesTheSubscriber() {
    weak var weakProbe: CapturedProbe?
    var subscription: (any Subscription)?
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      Optional(1).publisher.subscribe(
        AnySubscriber<Int, Never>(
          receiveSubscription: { subscription = $0 },
          receiveValue: { _ in
            _ = probe
            return .none
          }))
    }
    #expect(weakProbe != nil)
    subscription?.cancel()
    #expect(weakProbe == nil)
    subscription = nil
  }

  @Test func noneHoldsNoReferenceToTheSubscriber() {
    weak var weakProbe: CapturedProbe?
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      Int?.none.publisher.subscribe(AnySubscriber<Int, Never>(receiveCompletion: { _ in _ = probe }))
    }
    #expect(weakProbe == nil)
  }

  /// As in Combine: described and shown in playgrounds as "Optional", with the value as the
  /// mirror's one unlabelled child.
  @Test func subscriptionReflectsAsCombinesDoes() throws {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Optional(42).publisher.subscribe(subscriber)
    let subscription = try #require(subscriber.subscription)
    #expect(String(describing: subscription) == "Optional")
    #expect(
      (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Optional")
    let mirror = try #require((subscription as? any CustomReflectable)?.customMirror)
    #expect(mirror.children.map(\.label) == [nil])
    #expect(mirror.children.first?.value as? Int == 42)
    subscriber.cancel()
  }
}

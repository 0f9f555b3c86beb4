import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct ObservableObjectPublisherTests {
  @Test func aSubscriberGetsNothingBeforeItsFirstRequestThenEverySignal() {
    let publisher = ObservableObjectPublisher()
    let subscriber = TestSubscriber<Void, Never>(initialDemand: .none)
    publisher.subscribe(subscriber)
    publisher.send()
    #expect(subscriber.values.isEmpty)
    subscriber.request(.max(1))
    publisher.send()
    publisher.send()
    publisher.send()
    // As in Combine, demand does not limit the signals once a request has been made.
    #expect(subscriber.values.count == 3)
    subscriber.cancel()
    publisher.send()
    #expect(subscriber.values.count == 3)
  }

  @Test func everySubscriberGetsEachSignal() {
    let publisher = ObservableObjectPublisher()
    let first = TestSubscriber<Void, Never>()
    let second = TestSubscriber<Void, Never>()
    publisher.subscribe(first)
    publisher.send()
    publisher.subscribe(second)
    publisher.send()
    #expect(first.values.count == 2)
    #expect(second.values.count == 1)
    first.cancel()
    second.cancel()
  }

  @Test func theSubscriptionIsDescribedAsCombineDescribesIt() throws {
    let publisher = ObservableObjectPublisher()
    let subscriber = TestSubscriber<Void, Never>()
    publisher.subscribe(subscriber)
    let subscription = try #require(subscriber.subscription)
    #expect(String(describing: subscription) == "ObservableObjectPublisher")
    #expect(Mirror(reflecting: subscription).children.map(\.label) == ["downstream"])
    subscriber.cancel()
  }
}

import Conduit
import ConduitTesting
import Testing

private enum ResultTestError: Error, Equatable {
  case failed
  case other
}

@Suite(.leakChecked)
struct ResultPublisherTests {
  @Test func successDeliversTheValueThenFinishes() {
    let subscriber = TestSubscriber<Int, ResultTestError>()
    Result<Int, ResultTestError>.success(1).publisher.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func successWaitsForDemand() {
    let subscriber = TestSubscriber<Int, ResultTestError>(initialDemand: .none)
    Result<Int, ResultTestError>.success(1).publisher.subscribe(subscriber)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func failureIsDeliveredWithoutDemand() {
    let subscriber = TestSubscriber<Int, ResultTestError>(initialDemand: .none)
    Result<Int, ResultTestError>.failure(.failed).publisher.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.failure(.failed))])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func initializers() {
    typealias Publisher = Result<Int, ResultTestError>.Publisher
    #expect(Publisher(.success(2)).result == .success(2))
    #expect(Publisher(3).result == .success(3))
    #expect(Publisher(ResultTestError.other).result == .failure(.other))
    let subscriber = TestSubscriber<Int, ResultTestError>()
    Publisher(ResultTestError.other).subscribe(subscriber)
    #expect(subscriber.completion == .failure(.other))
  }

  @Test func equatableByResult() {
    typealias Publisher = Result<Int, ResultTestError>.Publisher
    #expect(Publisher(1) == Publisher(1))
    #expect(Publisher(1) != Publisher(2))
    #expect(Publisher(ResultTestError.failed) != Publisher(ResultTestError.other))
  }

  @Test func cancelBeforeDemandDeliversNothing() {
    let subscriber = TestSubscriber<Int, ResultTestError>(initialDemand: .none)
    Result<Int, ResultTestError>.success(1).publisher.subscribe(subscriber)
    let subscription = subscriber.subscription
    subscriber.cancel()
    subscription?.request(.max(1))
    #expect(subscriber.events == [.subscription])
  }

  @Test func everySubscriberGetsTheResult() {
    let publisher = Result<Int, ResultTestError>.success(8).publisher
    let first = TestSubscriber<Int, ResultTestError>()
    let second = TestSubscriber<Int, ResultTestError>()
    publisher.subscribe(first)
    publisher.subscribe(second)
    #expect(first.values == [8])
    #expect(second.values == [8])
    #expect(second.completion == .finished)
  }

  @Test func finishedSubscriptionReleasesTheSubscriber() {
    weak var weakProbe: CapturedProbe?
    var subscription: (any Subscription)?
    var values: [Int] = []
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      Result<Int, ResultTestError>.success(1).publisher.subscribe(
        AnySubscriber(
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
      Result<Int, ResultTestError>.success(1).publisher.subscribe(
        AnySubscriber(
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

  @Test func failureHoldsNoReferenceToTheSubscriber() {
    weak var weakProbe: CapturedProbe?
    var completion: Subscribers.Completion<ResultTestError>?
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      Result<Int, ResultTestError>.failure(.failed).publisher.subscribe(
        AnySubscriber(
          receiveCompletion: {
            _ = probe
            completion = $0
          }))
    }
    #expect(completion == .failure(.failed))
    #expect(weakProbe == nil)
  }

  /// As in Combine: described and shown in playgrounds as "Once", dumped as a class with the value
  /// as its one unlabelled child.
  @Test func subscriptionReflectsAsCombinesDoes() throws {
    let subscriber = TestSubscriber<Int, ResultTestError>(initialDemand: .none)
    Result<Int, ResultTestError>.success(42).publisher.subscribe(subscriber)
    let subscription = try #require(subscriber.subscription)
    #expect(String(describing: subscription) == "Once")
    #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Once")
    var dumped = ""
    dump(subscription, to: &dumped)
    #expect(dumped == "\u{25BF} Once #0\n  - 42\n")
    subscriber.cancel()
  }
}

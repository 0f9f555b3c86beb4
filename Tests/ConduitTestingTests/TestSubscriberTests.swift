import Conduit
import ConduitTesting
import Synchronization
import Testing

@Suite(.leakChecked)
struct TestSubscriberTests {
  enum TestError: Error, Equatable {
    case failed
  }

  /// A subscription that only records what it is asked, to drive a subscriber by hand.
  final class ProbeSubscription: Subscription, @unchecked Sendable {
    // Guarded by `lock`.
    private var requestsMade: [Subscribers.Demand] = []
    private var cancelCount = 0
    private let lock = Locked(())

    var requests: [Subscribers.Demand] { lock.withLock { _ in requestsMade } }
    var cancels: Int { lock.withLock { _ in cancelCount } }

    func request(_ demand: Subscribers.Demand) {
      lock.withLock { _ in requestsMade.append(demand) }
    }

    func cancel() {
      lock.withLock { _ in cancelCount += 1 }
    }
  }

  // MARK: Recording

  @Test func recordsEveryEventInOrder() {
    let subscriber = TestSubscriber<Int, Never>()
    [1, 2, 3].publisher.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)])
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.subscriptionCount == 1)
    #expect(subscriber.subscription == nil)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func recordsAFailure() {
    let subscriber = TestSubscriber<Int, TestError>()
    Fail<Int, TestError>(error: .failed).subscribe(subscriber)
    #expect(subscriber.values.isEmpty)
    #expect(subscriber.completion == .failure(.failed))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func keepsTheSubscriptionUntilTheEnd() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.subscribe(subscriber)
    #expect(subscriber.subscription != nil)
    #expect(subscriber.completion == nil)
    subject.send(completion: .finished)
    #expect(subscriber.subscription == nil)
    #expect(subscriber.completion == .finished)
  }

  // MARK: Demand

  @Test func requestsItsInitialDemandOnSubscription() {
    let probe = ProbeSubscription()
    TestSubscriber<Int, Never>(initialDemand: .max(3)).receive(subscription: probe)
    TestSubscriber<Int, Never>().receive(subscription: probe)
    #expect(probe.requests == [.max(3), .unlimited])
  }

  @Test func requestsNothingForAnInitialDemandOfNone() {
    let probe = ProbeSubscription()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    subscriber.receive(subscription: probe)
    #expect(probe.requests.isEmpty)
    subscriber.request(.max(2))
    #expect(probe.requests == [.max(2)])
  }

  @Test func initialDemandLimitsWhatArrives() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    [1, 2, 3, 4].publisher.subscribe(subscriber)
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion == nil)
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2, 3])
    subscriber.request(.max(5))
    #expect(subscriber.values == [1, 2, 3, 4])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func answersEachValueWithDemandPerValue() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    subscriber.receive(subscription: ProbeSubscription())
    #expect(subscriber.receive(1) == .max(1))
    let oneAtATime = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (1...100).publisher.subscribe(oneAtATime)
    #expect(oneAtATime.values == Array(1...100))
    #expect(oneAtATime.completion == .finished)
    #expect(oneAtATime.violations.isEmpty)
  }

  // MARK: Cancellation and re-entrancy

  @Test func cancelStopsDeliveryAndCancelsTheSubscription() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.subscribe(subscriber)
    subject.send(1)
    subscriber.cancel()
    subject.send(2)
    #expect(subscriber.values == [1])
    #expect(subscriber.subscription == nil)
    #expect(subscriber.completion == nil)

    let probe = ProbeSubscription()
    let driven = TestSubscriber<Int, Never>()
    driven.receive(subscription: probe)
    driven.cancel()
    driven.cancel()
    #expect(probe.cancels == 1)
  }

  @Test func onValueRunsInsideDeliveryForReentrancy() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { value in
      if value < 3 { subject.send(value + 1) }
    }
    subject.subscribe(subscriber)
    subject.send(1)
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func subscriberThatCancelsItselfFromOnValueIsFreed() throws {
    let subject = PassthroughSubject<Int, Never>()
    try withLeakCheck { tracker in
      let subscriber = tracker.track(TestSubscriber<Int, Never>())
      // The hook captures its own subscriber: a cycle that must end with the subscription.
      subscriber.onValue { _ in subscriber.cancel() }
      subject.subscribe(subscriber)
      subject.send(1)
      subject.send(2)
      #expect(subscriber.values == [1])
    }
  }

  @Test func subscriberThatCompletesDropsItsHook() throws {
    let subject = PassthroughSubject<Int, Never>()
    try withLeakCheck { tracker in
      let subscriber = tracker.track(TestSubscriber<Int, Never>())
      subscriber.onValue { _ in _ = subscriber.values }
      subject.subscribe(subscriber)
      subject.send(1)
      subject.send(completion: .finished)
      #expect(subscriber.values == [1])
    }
  }

  // MARK: Contract violations

  @Test func reportsAValueBeyondDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subscriber.receive(subscription: ProbeSubscription())
    _ = subscriber.receive(1)
    _ = subscriber.receive(2)
    #expect(subscriber.violations == ["value beyond demand"])
    #expect(subscriber.values == [1, 2])
  }

  @Test func reportsAValueBeforeTheSubscription() {
    let subscriber = TestSubscriber<Int, Never>()
    _ = subscriber.receive(1)
    #expect(subscriber.violations == ["value before subscription", "value beyond demand"])
  }

  @Test func reportsASecondSubscriptionAndDoesNotRequestFromIt() {
    let first = ProbeSubscription()
    let second = ProbeSubscription()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.receive(subscription: first)
    subscriber.receive(subscription: second)
    #expect(subscriber.violations == ["received a second subscription"])
    #expect(subscriber.subscriptionCount == 2)
    #expect(second.requests.isEmpty)
    #expect(subscriber.subscription as? ProbeSubscription === first)
  }

  @Test func reportsAnythingAfterTheCompletion() {
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.receive(subscription: ProbeSubscription())
    subscriber.receive(completion: .finished)
    _ = subscriber.receive(1)
    subscriber.receive(completion: .finished)
    #expect(subscriber.violations == ["value after completion", "second completion"])
  }

  @Test func acceptsCallsFromTheSubscribingThreadDuringReceiveSubscription() {
    let subscriber = TestSubscriber<Int, Never>()
    Just(1).subscribe(subscriber)
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
    let stepping = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    [1, 2, 3].publisher.subscribe(stepping)
    #expect(stepping.values == [1, 2, 3])
    #expect(stepping.violations.isEmpty)
  }

  @Test func reportsOverlappingCalls() {
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.receive(subscription: ProbeSubscription())
    subscriber.onValue { value in
      guard value == 1 else { return }
      _ = subscriber.receive(2)
      subscriber.receive(completion: .finished)
    }
    _ = subscriber.receive(1)
    #expect(
      subscriber.violations == [
        "receive(_:) entered while another call was running",
        "receive(completion:) entered while another call was running",
      ])
  }
}

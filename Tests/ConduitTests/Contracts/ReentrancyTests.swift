import Conduit
import ConduitTesting
import Testing

/// DESIGN.md §2.6: a subscriber may send, cancel and request from inside its own `receive`.
/// Nothing deadlocks, values stay in order, and synchronous sources do not recurse without bound.
@Suite(.leakChecked)
struct ReentrancyTests {
  // MARK: Sending from inside receive

  @Test func passthroughSendFromInsideReceiveKeepsOrder() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { if $0 == 1 { subject.send(2) } }
    subject.subscribe(subscriber)

    subject.send(1)
    subject.send(3)
    subject.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func sendFromInsideReceiveReachesEverySubscriberAfterTheValueBeingDelivered() {
    let subject = PassthroughSubject<Int, Never>()
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    let third = TestSubscriber<Int, Never>()
    first.onValue { if $0 == 1 { subject.send(2) } }
    second.onValue { if $0 == 2 { subject.send(3) } }
    subject.subscribe(first)
    subject.subscribe(second)
    subject.subscribe(third)

    subject.send(1)
    subject.send(completion: .finished)

    for subscriber in [first, second, third] {
      #expect(subscriber.values == [1, 2, 3])
      #expect(subscriber.violations.isEmpty)
    }
  }

  @Test func currentValueSendFromInsideReceiveReachesEverySubscriberInOrder() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    first.onValue { if $0 == 1 { subject.send(2) } }
    subject.subscribe(first)
    subject.subscribe(second)

    subject.send(1)
    subject.send(completion: .finished)

    #expect(first.values == [0, 1, 2])
    #expect(second.values == [0, 1, 2])
    #expect(subject.value == 2)
  }

  @Test func currentValueSendFromInsideReceiveKeepsOrder() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { if $0 == 1 { subject.send(2) } }
    subject.subscribe(subscriber)

    subject.send(1)
    subject.send(3)
    subject.send(completion: .finished)

    #expect(subscriber.values == [0, 1, 2, 3])
    #expect(subject.value == 3)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func currentValueWriteFromInsideReceiveKeepsOrder() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { if $0 == 0 { subject.value += 1 } }
    subject.subscribe(subscriber)

    subject.value = 2
    subject.send(completion: .finished)

    #expect(subscriber.values == [0, 1, 2])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func deeplyNestedSendsDoNotGrowTheStack() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { if $0 < 20_000 { subject.send($0 + 1) } }
    subject.subscribe(subscriber)

    subject.send(1)
    subject.send(completion: .finished)

    #expect(subscriber.values == Array(1...20_000))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func completingFromInsideReceiveDeliversCompletionAfterTheValue() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { _ in subject.send(completion: .finished) }
    subject.subscribe(subscriber)

    subject.send(1)
    subject.send(2)

    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func sendingToASubjectFromInsideASequenceSink() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.subscribe(subscriber)

    let token = [1, 2, 3].publisher.sink(
      receiveCompletion: { _ in subject.send(completion: .finished) }, receiveValue: { subject.send($0 * 10) })

    #expect(subscriber.events == [.subscription, .value(10), .value(20), .value(30), .completion(.finished)])
    token.cancel()
  }

  @Test func sendingBackIntoTheUpstreamOfARelay() {
    let upstream = PassthroughSubject<Int, Never>()
    let relay = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { if $0 == 1 { upstream.send(2) } }
    relay.subscribe(subscriber)
    let token = upstream.subscribe(relay)

    upstream.send(1)
    upstream.send(3)
    upstream.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
    token.cancel()
  }

  // MARK: Cancelling from inside receive

  @Test func passthroughCancelFromInsideReceiveStopsValues() {
    let subject = PassthroughSubject<Int, Never>()
    let cancelling = TestSubscriber<Int, Never>()
    let other = TestSubscriber<Int, Never>()
    cancelling.onValue { [weak cancelling] in if $0 == 2 { cancelling?.cancel() } }
    subject.subscribe(cancelling)
    subject.subscribe(other)

    for value in 1...4 { subject.send(value) }
    subject.send(completion: .finished)

    #expect(cancelling.events == [.subscription, .value(1), .value(2)])
    #expect(other.values == [1, 2, 3, 4])
    #expect(cancelling.violations.isEmpty)
  }

  @Test func currentValueCancelFromInsideReceiveStopsValues() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { [weak subscriber] in if $0 == 1 { subscriber?.cancel() } }
    subject.subscribe(subscriber)

    for value in 1...3 { subject.send(value) }
    subject.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value(0), .value(1)])
  }

  @Test func cancelFromInsideReceiveBeforeAPendingSendDropsIt() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { [weak subscriber] in
      if $0 == 1 {
        subject.send(2)
        subscriber?.cancel()
      }
    }
    subject.subscribe(subscriber)

    subject.send(1)
    subject.send(3)

    #expect(subscriber.values == [1])
    subject.send(completion: .finished)
  }

  @Test func cancelFromInsideReceiveStopsValuesAlreadyQueued() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { [weak subscriber] value in
      if value == 1 {
        subject.send(2)
        subject.send(3)
      }
      if value == 2 { subscriber?.cancel() }
    }
    subject.subscribe(subscriber)

    subject.send(1)
    subject.send(4)

    #expect(subscriber.events == [.subscription, .value(1), .value(2)])
    #expect(subscriber.violations.isEmpty)
    subject.send(completion: .finished)
  }

  @Test func cancellingAnotherSubscriberFromInsideReceive() {
    let subject = PassthroughSubject<Int, Never>()
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    first.onValue { _ in second.cancel() }
    subject.subscribe(first)
    subject.subscribe(second)

    subject.send(1)
    subject.send(2)
    subject.send(completion: .finished)

    #expect(first.values == [1, 2])
    #expect(second.events == [.subscription])
  }

  @Test func sequenceCancelFromInsideReceiveStopsValues() {
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { [weak subscriber] in if $0 == 3 { subscriber?.cancel() } }

    (1...10).publisher.subscribe(subscriber)

    #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func sequenceCancelFromInsideReceiveWithBoundedDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    subscriber.onValue { [weak subscriber] in if $0 == 2 { subscriber?.cancel() } }

    (1...10).publisher.subscribe(subscriber)

    #expect(subscriber.events == [.subscription, .value(1), .value(2)])
  }

  @Test func sinkCancellingItsOwnTokenFromInsideReceive() {
    let subject = PassthroughSubject<Int, Never>()
    let box = TokenBox()
    box.token = subject.sink { value in
      box.values.append(value)
      if value == 2 { box.token?.cancel() }
    }

    for value in 1...4 { subject.send(value) }

    #expect(box.values == [1, 2])
    box.token = nil
  }

  // MARK: Requesting from inside receive

  @Test func passthroughRequestFromInsideReceiveAddsDemand() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subscriber.onValue { [weak subscriber] in if $0 < 3 { subscriber?.request(.max(1)) } }
    subject.subscribe(subscriber)

    for value in 1...5 { subject.send(value) }
    subject.send(completion: .finished)

    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func currentValueRequestFromInsideReceiveAddsDemand() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subscriber.onValue { [weak subscriber] in if $0 < 2 { subscriber?.request(.max(1)) } }
    subject.subscribe(subscriber)

    for value in 1...3 { subject.send(value) }
    subject.send(completion: .finished)

    #expect(subscriber.values == [0, 1, 2])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func sequenceRequestFromInsideReceiveAddsDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subscriber.onValue { [weak subscriber] in if $0 < 4 { subscriber?.request(.max(1)) } }

    (1...10).publisher.subscribe(subscriber)

    #expect(subscriber.values == [1, 2, 3, 4])
    #expect(subscriber.completion == nil)
    subscriber.request(.unlimited)
    #expect(subscriber.values == Array(1...10))
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func sequenceDemandReturnedFromReceiveDeliversEverything() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))

    (1...1_000).publisher.subscribe(subscriber)

    #expect(subscriber.values == Array(1...1_000))
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func sequenceRequestingOneAtATimeOverAMillionElementsDoesNotOverflowTheStack() {
    let subscriber = OneAtATimeSubscriber<Int>()

    (1...1_000_000).publisher.subscribe(subscriber)

    #expect(subscriber.count == 1_000_000)
    #expect(subscriber.last == 1_000_000)
    #expect(subscriber.finished)
  }

  // MARK: Subscribing from inside receive

  @Test func subscriberAddedFromInsideReceiveGetsOnlyLaterValues() {
    let subject = PassthroughSubject<Int, Never>()
    let first = TestSubscriber<Int, Never>()
    let late = TestSubscriber<Int, Never>()
    first.onValue { if $0 == 1 { subject.subscribe(late) } }
    subject.subscribe(first)

    subject.send(1)
    subject.send(2)
    subject.send(completion: .finished)

    #expect(first.values == [1, 2])
    #expect(late.events == [.subscription, .value(2), .completion(.finished)])
  }

  // MARK: receive(subscription:) comes once, first, and alone

  @Test func passthroughValueSentDuringSubscriptionArrivesAfterIt() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = SetupRecordingSubscriber { subject.send(1) }

    subject.subscribe(subscriber)
    subject.send(2)
    subject.send(completion: .finished)

    #expect(subscriber.log == ["begin", "end", "1", "2", "finished"])
  }

  /// The current value comes inside the request, as in Combine; a value sent from inside
  /// `receive(subscription:)` waits for it to return.
  @Test func currentValueArrivesInsideTheRequestAndASentValueAfterTheSubscription() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let subscriber = SetupRecordingSubscriber { subject.send(1) }

    subject.subscribe(subscriber)
    subject.send(2)
    subject.send(completion: .finished)

    #expect(subscriber.log == ["begin", "0", "end", "1", "2", "finished"])
  }

  @Test func everyPublisherCallsReceiveSubscriptionExactlyOnceAndFirst() {
    let passthrough = PassthroughSubject<Int, Never>()
    let currentValue = CurrentValueSubject<Int, Never>(0)
    let subscribers = (0..<5).map { _ in TestSubscriber<Int, Never>() }
    passthrough.subscribe(subscribers[0])
    currentValue.subscribe(subscribers[1])
    (1...3).publisher.subscribe(subscribers[2])
    Just(1).subscribe(subscribers[3])
    [Int]().publisher.subscribe(subscribers[4])
    passthrough.send(1)
    currentValue.send(1)
    passthrough.send(completion: .finished)
    currentValue.send(completion: .finished)

    for subscriber in subscribers {
      #expect(subscriber.subscriptionCount == 1)
      #expect(subscriber.events.first == .subscription)
      #expect(subscriber.completion == .finished)
      #expect(subscriber.violations.isEmpty)
    }
  }
}

/// Holds a sink's token where the sink's own closure can reach it.
private final class TokenBox {
  var token: AnyCancellable?
  var values: [Int] = []
}

/// Requests one element at a time from inside `receive(_:)` (rather than by its return value),
/// keeping nothing but counts.
final class OneAtATimeSubscriber<Input>: Subscriber {
  typealias Failure = Never
  private var subscription: (any Subscription)?
  private(set) var count = 0
  private(set) var last: Input?
  private(set) var finished = false

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    subscription.request(.max(1))
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    count += 1
    last = input
    subscription?.request(.max(1))
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    finished = true
    subscription = nil
  }
}

/// Logs when `receive(subscription:)` begins and ends, and what arrives; runs `duringSetup`
/// inside `receive(subscription:)` after requesting unlimited demand.
private final class SetupRecordingSubscriber: Subscriber {
  private let duringSetup: () -> Void
  private(set) var log: [String] = []

  init(duringSetup: @escaping () -> Void) {
    self.duringSetup = duringSetup
  }

  func receive(subscription: any Subscription) {
    log.append("begin")
    subscription.request(.unlimited)
    duringSetup()
    log.append("end")
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    log.append(String(input))
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    log.append("finished")
  }
}

import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct CurrentValueSubjectTests {
  @Test func newSubscriberGetsCurrentValueThenLaterValues() {
    let subject = CurrentValueSubject<Int, Never>(0)
    subject.send(1)
    let subscriber = TestSubscriber<Int, Never>()
    subject.subscribe(subscriber)

    subject.send(2)
    subject.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func currentValueWaitsForFirstDemand() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    subject.subscribe(subscriber)
    #expect(subscriber.events == [.subscription])

    subject.value = 5
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.values == [5])

    subscriber.request(.max(1))
    #expect(subscriber.values == [5])
    subject.send(6)
    #expect(subscriber.values == [5, 6])
    #expect(subscriber.violations.isEmpty)
    subject.send(completion: .finished)
  }

  @Test func valueCanBeReadAndWritten() {
    let subject = CurrentValueSubject<String, Never>("a")
    #expect(subject.value == "a")

    subject.value = "b"
    #expect(subject.value == "b")

    subject.send("c")
    #expect(subject.value == "c")
  }

  @Test func writingValueSendsIt() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let subscriber = TestSubscriber<Int, Never>()
    subject.subscribe(subscriber)

    subject.value = 1
    subject.value += 1

    #expect(subscriber.values == [0, 1, 2])
    subject.send(completion: .finished)
  }

  @Test func sendsToEverySubscriber() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let first = TestSubscriber<Int, Never>()
    subject.subscribe(first)
    subject.send(1)
    let second = TestSubscriber<Int, Never>()
    subject.subscribe(second)

    subject.send(2)

    #expect(first.values == [0, 1, 2])
    #expect(second.values == [1, 2])
    subject.send(completion: .finished)
  }

  @Test func tracksDemandPerSubscriber() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let limited = TestSubscriber<Int, Never>(initialDemand: .max(1))
    let unlimited = TestSubscriber<Int, Never>()
    subject.subscribe(limited)
    subject.subscribe(unlimited)

    for value in 1...3 { subject.send(value) }

    #expect(limited.values == [0])
    #expect(unlimited.values == [0, 1, 2, 3])
    #expect(limited.violations.isEmpty)
    subject.send(completion: .finished)
  }

  // Combine's CurrentValueSubject drops a value sent while a subscriber has no demand, but a
  // subscriber that missed values gets the current value with its next demand.
  @Test func subscriberThatMissedValuesGetsCurrentValueOnNextDemand() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subject.subscribe(subscriber)

    subject.send(1)
    subject.send(2)
    #expect(subscriber.values == [0])

    subscriber.request(.max(2))
    #expect(subscriber.values == [0, 2])

    subject.send(3)
    subject.send(4)
    #expect(subscriber.values == [0, 2, 3])
    #expect(subscriber.violations.isEmpty)
    subject.send(completion: .finished)
  }

  @Test func subscriberThatMissedNothingDoesNotGetCurrentValueAgain() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subject.subscribe(subscriber)

    subscriber.request(.max(1))
    #expect(subscriber.values == [0])

    subject.send(1)
    #expect(subscriber.values == [0, 1])
    subject.send(completion: .finished)
  }

  // A subscriber that missed a value asks for more from inside another subscriber's `receive`,
  // just after a newer value was sent there (and queued, since delivery is under way). The
  // queued broadcast brings it the newer value; it must not get that value a second time as the
  // current value it was owed. Combine gives [0, 2].
  @Test func requestAfterAMissFromInsideReceiveGetsTheQueuedValueOnce() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let slow = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subject.subscribe(slow)
    let other = TestSubscriber<Int, Never>()
    subject.subscribe(other)
    other.onValue { value in
      guard value == 1 else { return }
      subject.send(2)
      slow.request(.max(2))
    }

    subject.send(1)

    #expect(slow.values == [0, 2])
    #expect(other.values == [0, 1, 2])
    slow.cancel()
    other.cancel()
  }

  // The same with demand one at a time: once the queued broadcast has brought the newer value,
  // the subscriber is owed nothing, so a later request brings nothing until a new value is sent.
  @Test func requestAfterAMissFromInsideReceiveOwesNothingLater() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let slow = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subject.subscribe(slow)
    let other = TestSubscriber<Int, Never>()
    subject.subscribe(other)
    other.onValue { value in
      guard value == 1 else { return }
      subject.send(2)
      slow.request(.max(1))
    }

    subject.send(1)
    #expect(slow.values == [0, 2])

    slow.request(.max(1))
    #expect(slow.values == [0, 2])
    subject.send(3)
    #expect(slow.values == [0, 2, 3])
    slow.cancel()
    other.cancel()
  }

  // A new subscriber that asks for its first value from inside another subscriber's `receive`,
  // while a newer value waits in the queue, gets the value delivered so far and then the newer
  // one, in order, each once.
  @Test func firstRequestWhileANewerValueIsQueuedGetsEachValueOnceInOrder() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let late = TestSubscriber<Int, Never>(initialDemand: .none)
    let other = TestSubscriber<Int, Never>()
    subject.subscribe(other)
    other.onValue { value in
      guard value == 1 else { return }
      subject.subscribe(late)
      late.request(.max(1))
      subject.send(2)
      late.request(.max(1))
    }

    subject.send(1)

    #expect(late.values == [1, 2])
    #expect(other.values == [0, 1, 2])
    #expect(late.violations.isEmpty)
    late.cancel()
    other.cancel()
  }

  // A request that comes after the completion was sent, while it still waits in the queue, brings
  // no value: the completion is the last thing the subscriber gets.
  @Test func requestQueuedBehindTheCompletionBringsNoValue() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let slow = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subject.subscribe(slow)
    let other = TestSubscriber<Int, Never>()
    subject.subscribe(other)
    other.onValue { value in
      guard value == 1 else { return }
      subject.send(completion: .finished)
      slow.request(.max(1))
    }

    subject.send(1)

    #expect(slow.values == [0])
    #expect(slow.completion == .finished)
    #expect(slow.violations.isEmpty)
  }

  @Test func deliversFailure() {
    let subject = CurrentValueSubject<Int, Oops>(0)
    let subscriber = TestSubscriber<Int, Oops>()
    subject.subscribe(subscriber)

    subject.send(completion: .failure(Oops()))

    #expect(subscriber.events == [.subscription, .value(0), .completion(.failure(Oops()))])
  }

  @Test func afterCompletionWritingValueChangesItButSendsNothing() {
    let subject = CurrentValueSubject<Int, Oops>(0)
    let subscriber = TestSubscriber<Int, Oops>()
    subject.subscribe(subscriber)

    subject.send(completion: .finished)
    subject.value = 9
    #expect(subject.value == 9)

    subject.send(10)
    #expect(subject.value == 9)
    subject.send(completion: .failure(Oops()))

    #expect(subscriber.events == [.subscription, .value(0), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func subscriberArrivingAfterCompletionGetsCompletionAndNoValue() {
    let subject = CurrentValueSubject<Int, Never>(0)
    subject.send(completion: .finished)
    let subscriber = TestSubscriber<Int, Never>()

    subject.subscribe(subscriber)

    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func sendWithoutArgumentForVoidOutput() {
    let subject = CurrentValueSubject<Void, Never>(())
    let subscriber = TestSubscriber<Void, Never>()
    subject.subscribe(subscriber)

    subject.send()

    #expect(subscriber.values.count == 2)
    subject.send(completion: .finished)
  }

  @Test func cancellingOneSubscriberLeavesTheOthers() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let cancelled = TestSubscriber<Int, Never>()
    let kept = TestSubscriber<Int, Never>()
    subject.subscribe(cancelled)
    subject.subscribe(kept)

    cancelled.cancel()
    subject.value = 1
    subject.send(completion: .finished)

    #expect(cancelled.events == [.subscription, .value(0)])
    #expect(kept.events == [.subscription, .value(0), .value(1), .completion(.finished)])
  }

  @Test func subscriberCancelledBeforeDemandGetsNothing() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    subject.subscribe(subscriber)
    let subscription = subscriber.subscription

    subscriber.cancel()
    subscription?.request(.unlimited)
    subject.value = 1

    #expect(subscriber.events == [.subscription])
  }

  @Test func relaysUpstreamPublisherValuesAndCompletion() {
    let relay = CurrentValueSubject<Int, Never>(0)
    let subscriber = TestSubscriber<Int, Never>()
    relay.subscribe(subscriber)

    let token = [1, 2].publisher.subscribe(relay)

    #expect(subscriber.events == [.subscription, .value(0), .value(1), .value(2), .completion(.finished)])
    #expect(relay.value == 2)
    token.cancel()
  }

  @Test func cancellingTheRelayTokenStopsTheRelay() {
    let upstream = PassthroughSubject<Int, Never>()
    let relay = CurrentValueSubject<Int, Never>(0)
    let subscriber = TestSubscriber<Int, Never>()
    relay.subscribe(subscriber)
    let token = upstream.subscribe(relay)

    upstream.send(1)
    token.cancel()
    upstream.send(2)
    upstream.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value(0), .value(1)])
    #expect(relay.value == 1)
    relay.send(completion: .finished)
  }

  @Test func requestsUnlimitedFromSentSubscriptionAndCancelsItWhenReleased() {
    let upstream = SpySubscription()
    do {
      let subject = CurrentValueSubject<Int, Never>(0)
      subject.send(subscription: upstream)
      #expect(upstream.requests == [.unlimited])
      #expect(upstream.cancelCount == 0)
    }
    #expect(upstream.cancelCount == 1)
  }

  @Test func holdsSubscriberUntilCompletion() {
    let subject = CurrentValueSubject<Int, Never>(0)
    weak var weakSubscriber: TestSubscriber<Int, Never>?
    do {
      let subscriber = TestSubscriber<Int, Never>()
      weakSubscriber = subscriber
      subject.subscribe(subscriber)
    }
    #expect(weakSubscriber != nil)

    subject.send(completion: .finished)

    #expect(weakSubscriber == nil)
  }
}

private struct Oops: Error, Equatable {}

/// Records what a subject asks of the upstream subscription it was given.
private final class SpySubscription: Subscription {
  private(set) var requests: [Subscribers.Demand] = []
  private(set) var cancelCount = 0

  func request(_ demand: Subscribers.Demand) { requests.append(demand) }
  func cancel() { cancelCount += 1 }
}

/// Requests, subscriptions and sends racing on two threads: each subscriber gets every value at
/// most once, and never an older value after a newer one.
@Suite(.leakChecked(timeout: .seconds(3)), .serialized)
struct CurrentValueSubjectStressTests {
  typealias Round = (subject: CurrentValueSubject<Int, Never>, subscriber: TestSubscriber<Int, Never>)

  /// What a round's subscriber got, if it is not one of `allowed` or broke a contract.
  private static func problem(in round: Round, allowed: [[Int]]) -> String? {
    defer { round.subscriber.cancel() }
    let values = round.subscriber.values
    if !allowed.contains(values) { return "got \(values)" }
    if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
    return nil
  }

  @Test func firstRequestRacingASendGetsNoStaleOrRepeatedValue() {
    let problem = race(
      rounds: 50_000,
      setup: { () -> Round in
        let round: Round = (CurrentValueSubject(0), TestSubscriber(initialDemand: .none))
        round.subject.subscribe(round.subscriber)
        return round
      },
      sides: [
        { round in round.subject.send(1) },
        { round in round.subscriber.request(.max(2)) },
      ],
      check: { Self.problem(in: $0, allowed: [[0, 1], [1]]) })
    #expect(problem == nil)
  }

  @Test func subscribeRacingASendGetsEachValueOnce() {
    let problem = race(
      rounds: 50_000,
      setup: { () -> Round in (CurrentValueSubject(0), TestSubscriber()) },
      sides: [
        { round in round.subject.send(1) },
        { round in round.subject.subscribe(round.subscriber) },
      ],
      check: { Self.problem(in: $0, allowed: [[0, 1], [1]]) })
    #expect(problem == nil)
  }

  @Test func requestAfterSpentDemandRacingSendsStaysIncreasing() {
    let problem = race(
      rounds: 50_000,
      setup: { () -> Round in
        let round: Round = (CurrentValueSubject(0), TestSubscriber(initialDemand: .max(1)))
        round.subject.subscribe(round.subscriber)
        return round
      },
      sides: [
        { round in for value in 1...4 { round.subject.send(value) } },
        { round in round.subscriber.request(.max(3)) },
      ],
      check: { round in
        defer { round.subscriber.cancel() }
        let values = round.subscriber.values
        guard values.first == 0, zip(values, values.dropFirst()).allSatisfy({ $0 < $1 }) else {
          return "got \(values)"
        }
        // Three more were asked for: the subscriber gets three more, or ends on 4, the value
        // sent last, which it is owed if it missed it.
        if values.count != 4 && values.last != 4 { return "got \(values)" }
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        return nil
      })
    #expect(problem == nil)
  }
}

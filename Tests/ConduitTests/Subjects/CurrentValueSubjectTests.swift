import Conduit
import ConduitTesting
import Dispatch
import Synchronization
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

  /// A value the subject lets go of is released after its lock: a value whose `deinit` reads or
  /// sets the same subject (a view model's token, say) used to deadlock on the subject's lock.
  @Test func replacedValueMayUseTheSubjectInItsDeinit() {
    final class Probe {
      let onDeinit: () -> Void
      init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
      deinit { onDeinit() }
    }
    let subject = CurrentValueSubject<Probe?, Never>(nil)
    // The subscriber records whether each value was `nil`, not the probes, which it would keep.
    let subscriber = TestSubscriber<Bool, Never>(initialDemand: .unlimited)
    subject.map { $0 == nil }.subscribe(subscriber)
    var seenInDeinit: [Bool] = []
    // Replaced by `send`: its deinit reads the subject.
    subject.send(Probe { seenInDeinit.append(subject.value == nil) })
    subject.send(nil)
    // Replaced by assigning `value`: its deinit sends to the subject.
    subject.value = Probe { subject.send(nil) }
    subject.value = nil
    #expect(seenInDeinit == [true])
    #expect(subscriber.values == [true, false, true, false, true, true])
    #expect(subject.value == nil)
    subscriber.cancel()
  }

  /// The same for a current-value subject, whose value is changed once before the subscriber
  /// comes, then 20 times, then set to itself: the first value is the current one (111), and
  /// setting the same value sends it again.
  /// Evidence (OpenCombine): CurrentValueSubjectTests.swift `testRequestingDemand`
  /// (`expectedNumberOfInputsHistory`, `inputs.first == 111`).
  @Test func currentValueSubjectDemandMatrixMatchesCombine() {
    let makeSubject = {
      let subject = CurrentValueSubject<Int, ParityFailure>(112)
      subject.value -= 1
      return subject
    }
    let counts = subjectDemandMatrix(makeSubject) { subject, subscriber, initial in
      #expect(subscriber.values.first == (initial == nil ? nil : 111))
      for _ in 0..<20 { subject.value += 1 }
      let value = subject.value
      subject.value = value
    }
    #expect(
      counts == [
        0, 0, 0, 0, 0, 1, 11, 2, 1, 22, 2, 12, 4, 5, 22, 10, 20, 12, 13, 22, 22, 22, 22, 22, 22,
      ])
  }

  /// Several requests before the first value add up: the current value takes one, and the rest
  /// is left for the values sent after.
  /// Evidence (OpenCombine): CurrentValueSubjectTests.swift `testRequestSeveralTimes` (requests of 2, 3 and 1
  /// give `.value(-1)`, then `.value(0)` … `.value(4)` of ten sent).
  @Test func currentValueSubjectRequestsBeforeTheFirstValueAddUp() {
    let subject = CurrentValueSubject<Int, Never>(-1)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    subject.subscribe(subscriber)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(2))
    subscriber.request(.max(3))
    subscriber.request(.max(1))
    #expect(subscriber.values == [-1])

    for value in 0..<10 { subject.send(value) }
    #expect(subscriber.values == [-1, 0, 1, 2, 3, 4])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  /// The same with a current-value subject: each of the 11 subscriptions gets the current value
  /// once, and after every other one is cancelled, a new value reaches the other five.
  /// Evidence (OpenCombine): CurrentValueSubjectTests.swift `testMultipleSubscriptions` (eleven `.value(112)`,
  /// then five `.value(200)`). The order in which Combine interleaves these values with the
  /// subscriptions is checked by `nestedSubscribesEachGetTheValueInsideTheirRequest`.
  @Test func currentValueSubscriberSubscribingAgainFromInsideGetsTheValueOnEachSubscription() {
    let subject = CurrentValueSubject<Int, Never>(112)
    let subscriber = ResubscribingSubscriber(subscribe: { subject.subscribe($0) })
    subject.subscribe(subscriber)
    subject.subscribe(subscriber)
    #expect(subscriber.subscriptions.count == 11)
    #expect(subscriber.values == Array(repeating: 112, count: 11))

    for (index, subscription) in subscriber.subscriptions.enumerated() where index.isMultiple(of: 2) {
      subscription.cancel()
    }
    subject.value = 200
    #expect(subscriber.values == Array(repeating: 112, count: 11) + Array(repeating: 200, count: 5))
    subject.send(completion: .finished)
  }
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

/// Current values owed and delivered around re-entrant sends, requests and completions, and
/// what the subject keeps (from a review of the delivery-order fix).
@Suite(.leakChecked)
struct CurrentValueSubjectOwedValueTests {
  /// Combine lets go of the old value when `value` is assigned after the completion (the
  /// assignment changes the value). The subject's record of the value it delivered last must not
  /// keep it alive.
  @Test func valueAssignedAfterCompletionReleasesTheOldValue() {
    let subject = CurrentValueSubject<Payload?, Never>(Payload())
    weak let old = subject.value
    #expect(old != nil)
    subject.send(completion: .finished)
    subject.value = nil
    #expect(subject.value == nil)
    #expect(old == nil, "the old value is still retained by the subject")
  }

  /// The same without a completion, for contrast: assigning sends, so the old value goes.
  @Test func valueAssignedBeforeCompletionReleasesTheOldValue() {
    let subject = CurrentValueSubject<Payload?, Never>(Payload())
    weak let old = subject.value
    subject.value = nil
    #expect(old == nil)
  }

  /// Combine: X missed 1 (no demand); Y, later in the list, asks for X inside receive(1): X gets
  /// the current value 1 at once; the 2 Y then sends finds X without demand. [0, 1].
  @Test func requestInsideAnotherReceiveThenNewerSend() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let x = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subject.subscribe(x)
    let y = TestSubscriber<Int, Never>()
    subject.subscribe(y)
    y.onValue { value in
      guard value == 1 else { return }
      x.request(.max(1))
      subject.send(2)
    }
    subject.send(1)
    #expect(x.values == [0, 1])
    #expect(y.values == [0, 1, 2])
    // X missed 2, so it is owed it.
    x.request(.max(1))
    #expect(x.values == [0, 1, 2])
    #expect(x.violations.isEmpty && y.violations.isEmpty)
    x.cancel()
    y.cancel()
  }

  /// After two misses the next demand brings the newest value only, once.
  @Test func owedValueAfterSeveralMissesIsTheNewest() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let x = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subject.subscribe(x)
    subject.send(1)
    subject.send(2)
    x.request(.max(2))
    #expect(x.values == [0, 2])
    subject.send(3)
    #expect(x.values == [0, 2, 3])
    subject.send(4)
    x.request(.max(1))
    #expect(x.values == [0, 2, 3, 4])
    x.request(.max(1))
    #expect(x.values == [0, 2, 3, 4])
    #expect(x.violations.isEmpty)
    x.cancel()
  }

  /// X, inside its own receive(0), sends 1 then asks for one more: Combine gives [0, 1].
  @Test func sendThenRequestFromInsideOwnReceive() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let x = TestSubscriber<Int, Never>(initialDemand: .max(1))
    x.onValue { value in
      guard value == 0 else { return }
      subject.send(1)
      x.request(.max(1))
    }
    subject.subscribe(x)
    #expect(x.values == [0, 1])
    subject.send(2)
    #expect(x.values == [0, 1])
    x.request(.max(1))
    #expect(x.values == [0, 1, 2])
    #expect(x.violations.isEmpty)
    x.cancel()
  }

  /// Inside receive(subscription:) (not ready yet), the subscriber sends a value, then requests:
  /// it gets the value it sent (Combine: the miss then the request's current value), once.
  @Test func sendThenRequestInsideReceiveSubscription() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let x = HookSubscriber { subscription in
      subject.send(5)
      subscription.request(.max(1))
    }
    subject.subscribe(x)
    #expect(x.values == [5])
    subject.send(6)
    #expect(x.values == [5])
    x.subscription?.request(.max(1))
    #expect(x.values == [5, 6])
    x.subscription?.cancel()
  }

  /// As in Combine: the first request, made inside receive(subscription:), gets the current value
  /// inside the request, before receive(subscription:) has returned.
  @Test func requestInsideReceiveSubscriptionGetsTheValueInsideTheRequest() {
    let subject = CurrentValueSubject<Int, Never>(3)
    var valuesWhenRequestReturned: [Int] = []
    var x: HookSubscriber?
    x = HookSubscriber { subscription in
      subscription.request(.max(1))
      valuesWhenRequestReturned = x?.values ?? []
    }
    subject.subscribe(x!)
    #expect(valuesWhenRequestReturned == [3])
    #expect(x?.values == [3])
    subject.send(4)
    #expect(x?.values == [3])
    x?.subscription?.request(.max(1))
    #expect(x?.values == [3, 4])
    x?.subscription?.cancel()
    x = nil
  }

  /// As in Combine: a subscriber that subscribes again from inside receive(subscription:), after
  /// its request, gets each subscription's value inside that subscription's request, in order.
  @Test func nestedSubscribesEachGetTheValueInsideTheirRequest() {
    let subject = CurrentValueSubject<Int, Never>(7)
    final class Recursive: Subscriber, @unchecked Sendable {
      typealias Input = Int
      typealias Failure = Never
      let subject: CurrentValueSubject<Int, Never>
      var log: [String] = []
      var subscriptions: [any Subscription] = []
      init(_ subject: CurrentValueSubject<Int, Never>) { self.subject = subject }
      func receive(subscription: any Subscription) {
        subscription.request(.unlimited)
        log.append("subscription")
        subscriptions.append(subscription)
        if subscriptions.count < 3 { subject.subscribe(self) }
      }
      func receive(_ input: Int) -> Subscribers.Demand {
        log.append("\(input)")
        return .none
      }
      func receive(completion: Subscribers.Completion<Never>) {}
    }
    let subscriber = Recursive(subject)
    subject.subscribe(subscriber)
    #expect(subscriber.log == ["7", "subscription", "7", "subscription", "7", "subscription"])
    subject.send(8)
    #expect(subscriber.log.suffix(3) == ["8", "8", "8"])
    subscriber.subscriptions.forEach { $0.cancel() }
    subscriber.subscriptions = []
  }

  /// As in Combine: described as "CurrentValueSubject", with the subject as parent and subject,
  /// the subscriber and the demand left; after the end, what was left of the demand.
  @Test func subscriptionReflectsAsCombinesDoes() throws {
    let subject = CurrentValueSubject<Int, Never>(0)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(12))
    subject.subscribe(subscriber)
    subject.send(1)
    let subscription = try #require(subscriber.subscription)
    #expect(String(describing: subscription) == "CurrentValueSubject")
    #expect(
      (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
        == "CurrentValueSubject")
    let mirror = try #require((subscription as? any CustomReflectable)?.customMirror)
    let children = mirror.children.map { ($0.label ?? "", String(describing: $0.value)) }
    #expect(children.map(\.0) == ["parent", "downstream", "demand", "subject"])
    #expect(children[0].1.contains("CurrentValueSubject<"))
    #expect(children[1].1.contains("TestSubscriber"))
    #expect(children[2].1 == "max(10)")
    #expect(children[3].1.contains("CurrentValueSubject<"))
    subject.send(completion: .finished)
    let ended = (subscription as? any CustomReflectable)?.customMirror.children.map { String(describing: $0.value) }
    #expect(ended == ["nil", "nil", "max(10)", "nil"])
  }

  /// Inside receive(subscription:), the subscriber completes the subject, assigns `value`, and
  /// requests: nothing but the completion reaches it.
  @Test func completionThenAssignmentThenRequestInsideReceiveSubscription() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let x = HookSubscriber { subscription in
      subject.send(completion: .finished)
      subject.value = 7
      subscription.request(.max(1))
    }
    subject.subscribe(x)
    #expect(x.values == [])
    #expect(x.completed)
    #expect(subject.value == 7)
  }

  /// Same, but the request comes first: Combine delivers the current value (0) and then the
  /// completion; assigning after the completion changes nothing delivered.
  @Test func requestThenCompletionThenAssignmentInsideReceiveSubscription() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let x = HookSubscriber { subscription in
      subscription.request(.max(1))
      subject.send(completion: .finished)
      subject.value = 7
    }
    subject.subscribe(x)
    #expect(x.values == [0])
    #expect(x.completed)
  }

  /// A subscriber with no demand at completion, then `value` assigned, then demand: nothing.
  @Test func assignmentAfterCompletionIsNotOwed() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let x = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subject.subscribe(x)
    subject.send(1)
    subject.send(completion: .finished)
    subject.value = 9
    x.request(.max(1))
    #expect(x.events == [.subscription, .value(0), .completion(.finished)])
  }

  /// multicast(subject: CurrentValueSubject(0)) fed by a passthrough subject.
  @Test func multicastIntoCurrentValueSubject() {
    let upstream = PassthroughSubject<Int, Never>()
    let multicast = upstream.multicast(subject: CurrentValueSubject<Int, Never>(0))
    let x = TestSubscriber<Int, Never>(initialDemand: .max(1))
    multicast.subscribe(x)
    #expect(x.values == [0])
    let connection = multicast.connect()
    upstream.send(1)
    upstream.send(2)
    #expect(x.values == [0])
    x.request(.max(1))
    #expect(x.values == [0, 2])
    upstream.send(3)
    upstream.send(completion: .finished)
    x.request(.max(1))
    #expect(x.events == [.subscription, .value(0), .value(2), .completion(.finished)])
    connection.cancel()
  }

  /// A relay (`publisher.subscribe(subject)`) of a synchronous sequence into the subject, with a
  /// subscriber that asks for one more from inside each receive.
  @Test func relayOfASequenceWithOneAtATimeDemand() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let x = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    subject.subscribe(x)
    let relay = (1...5).publisher.subscribe(subject)
    #expect(x.events == [.subscription] + (0...5).map { .value($0) } + [.completion(.finished)])
    relay.cancel()
  }
}

/// Sends, assignments, requests, subscriptions, relays and cancels racing on several threads.
@Suite(.leakChecked(timeout: .seconds(3)), .serialized)
struct CurrentValueSubjectOrderStressTests {
  /// Two threads send 1 and 2 at once; once both sends have returned, a new subscriber must get
  /// the subject's `value` (Combine reads `value`): values must be delivered in the order they
  /// were set, since the value owed is the one delivered last.
  @Test func newSubscriberAfterRacingSendsGetsTheSubjectsValue() {
    let problem = race(
      rounds: 100_000,
      setup: { CurrentValueSubject<Int, Never>(0) },
      sides: [
        { subject in subject.send(1) },
        { subject in subject.send(2) },
      ],
      check: { subject in
        let late = TestSubscriber<Int, Never>()
        subject.subscribe(late)
        defer { late.cancel() }
        let value = subject.value
        if late.values != [value] { return "value \(value), new subscriber got \(late.values)" }
        return nil
      })
    #expect(problem == nil)
  }

  /// The same through assignment of `value` (setValue → perform).
  @Test func newSubscriberAfterRacingAssignmentsGetsTheSubjectsValue() {
    let problem = race(
      rounds: 100_000,
      setup: { CurrentValueSubject<Int, Never>(0) },
      sides: [
        { subject in subject.value = 1 },
        { subject in subject.value = 2 },
      ],
      check: { subject in
        let late = TestSubscriber<Int, Never>()
        subject.subscribe(late)
        defer { late.cancel() }
        let value = subject.value
        if late.values != [value] { return "value \(value), new subscriber got \(late.values)" }
        return nil
      })
    #expect(problem == nil)
  }

  /// Lost wake-up: a subscriber that spent its demand misses 1, 2, 3 on one thread while it asks
  /// for one more on another. Whatever the interleaving, one more value arrives, values increase,
  /// and a further request brings 3 if it is still owed.
  @Test func missRacingRequestIsNeverLost() {
    let problem = race(
      rounds: 30_000,
      setup: { () -> (CurrentValueSubject<Int, Never>, TestSubscriber<Int, Never>) in
        let subject = CurrentValueSubject<Int, Never>(0)
        let x = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subject.subscribe(x)
        return (subject, x)
      },
      sides: [
        { round in for value in 1...3 { round.0.send(value) } },
        { round in round.1.request(.max(1)) },
      ],
      check: { round in
        let x = round.1
        defer { x.cancel() }
        let first = x.values
        guard first.count == 2, first[0] == 0, first[1] > 0 else { return "after race \(first)" }
        x.request(.max(1))
        let second = x.values
        guard second.last == 3, zip(second, second.dropFirst()).allSatisfy({ $0 < $1 }),
          second.count == (first[1] == 3 ? 2 : 3)
        else { return "after race \(first), after one more request \(second)" }
        if !x.violations.isEmpty { return "\(x.violations)" }
        return nil
      })
    #expect(problem == nil)
  }

  /// The first demand racing a send and the completion: at most one value (0 or 1), then the
  /// completion, and nothing after it.
  @Test func firstRequestRacingSendAndCompletion() {
    let problem = race(
      rounds: 30_000,
      setup: { () -> (CurrentValueSubject<Int, Never>, TestSubscriber<Int, Never>) in
        let subject = CurrentValueSubject<Int, Never>(0)
        let x = TestSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(x)
        return (subject, x)
      },
      sides: [
        { round in
          round.0.send(1)
          round.0.send(completion: .finished)
          round.0.value = 2
        },
        { round in
          round.1.request(.max(1))
          round.1.request(.max(1))
        },
      ],
      check: { round in
        let x = round.1
        let events = x.events
        let allowed: [[TestSubscriber<Int, Never>.Event]] = [
          [.subscription, .completion(.finished)],
          [.subscription, .value(0), .completion(.finished)],
          [.subscription, .value(1), .completion(.finished)],
          [.subscription, .value(0), .value(1), .completion(.finished)],
        ]
        if !allowed.contains(events) { return "got \(events)" }
        if !x.violations.isEmpty { return "\(x.violations)" }
        return nil
      })
    #expect(problem == nil)
  }

  /// A subscriber joins from inside another's receive while a second thread sends: it gets a
  /// suffix of what the other got, beginning with the value being delivered or a later one.
  @Test func subscribeInsideReceiveWhileAnotherThreadSends() {
    typealias Round = (CurrentValueSubject<Int, Never>, TestSubscriber<Int, Never>, TestSubscriber<Int, Never>)
    let problem = race(
      rounds: 20_000,
      setup: { () -> Round in
        let subject = CurrentValueSubject<Int, Never>(0)
        let y = TestSubscriber<Int, Never>()
        let x = TestSubscriber<Int, Never>()
        subject.subscribe(y)
        let joined = Flag()
        y.onValue { value in
          if value != 0, joined.set() { subject.subscribe(x) }
        }
        return (subject, y, x)
      },
      sides: [
        { round in round.0.send(1) },
        { round in round.0.send(2) },
      ],
      check: { round in
        let (_, y, x) = round
        defer {
          x.cancel()
          y.cancel()
        }
        let yValues = y.values
        let xValues = x.values
        guard !xValues.isEmpty, xValues.count < yValues.count, Array(yValues.suffix(xValues.count)) == xValues
        else { return "y \(yValues), x \(xValues)" }
        if !x.violations.isEmpty || !y.violations.isEmpty { return "\(x.violations) \(y.violations)" }
        return nil
      })
    #expect(problem == nil)
  }

  /// Two relays send into one subject from two threads; a subscriber takes one value at a time,
  /// asking from inside receive, and a third thread adds demand. No value twice, each thread's
  /// values in order, never beyond demand, no overlap.
  @Test func twoRelaysAndARequesterNoRepeats() {
    typealias Round = (
      CurrentValueSubject<Int, Never>, PassthroughSubject<Int, Never>, PassthroughSubject<Int, Never>,
      TestSubscriber<Int, Never>, [AnyCancellable]
    )
    let problem = race(
      rounds: 10_000,
      setup: { () -> Round in
        let subject = CurrentValueSubject<Int, Never>(0)
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let relays = [a.subscribe(subject), b.subscribe(subject)]
        let x = TestSubscriber<Int, Never>(initialDemand: .max(1))
        x.onValue { value in if value % 2 == 1 { x.request(.max(1)) } }
        subject.subscribe(x)
        return (subject, a, b, x, relays)
      },
      sides: [
        { round in for value in [1, 3, 5] { round.1.send(value) } },
        { round in
          for value in [2, 4, 6] {
            round.2.send(value)
            round.3.request(.max(1))
          }
        },
      ],
      check: { round in
        let x = round.3
        defer {
          x.cancel()
          for relay in round.4 { relay.cancel() }
        }
        let values = x.values
        if Set(values).count != values.count { return "repeat in \(values)" }
        let odd = values.filter { $0 % 2 == 1 }
        let even = values.filter { $0 != 0 && $0 % 2 == 0 }
        if odd != odd.sorted() || even != even.sorted() { return "out of order \(values)" }
        if !x.violations.isEmpty { return "\(x.violations) in \(values)" }
        return nil
      })
    #expect(problem == nil)
  }

  /// Long runs, so that queued events pass the succession threshold and delivery is handed
  /// over between the sending and the requesting thread: one value at a time, asked for from the
  /// other thread, stays increasing and within demand, and a last request brings the last value
  /// if it was missed.
  @Test func manySendsRacingManyRequestsAcrossHandOvers() {
    typealias Round = (CurrentValueSubject<Int, Never>, TestSubscriber<Int, Never>, TestSubscriber<Int, Never>)
    let problem = race(
      rounds: 300,
      setup: { () -> Round in
        let subject = CurrentValueSubject<Int, Never>(0)
        let y = TestSubscriber<Int, Never>()
        let x = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subject.subscribe(y)
        subject.subscribe(x)
        return (subject, y, x)
      },
      sides: [
        { round in for value in 1...300 { round.0.send(value) } },
        { round in for _ in 0..<150 { round.2.request(.max(1)) } },
      ],
      check: { round in
        let (_, y, x) = round
        defer {
          x.cancel()
          y.cancel()
        }
        x.request(.max(1))
        let values = x.values
        guard values.first == 0, zip(values, values.dropFirst()).allSatisfy({ $0 < $1 }), values.last == 300,
          values.count <= 152
        else { return "got \(values)" }
        if y.values != Array(0...300) { return "y got \(y.values.count) values" }
        if !x.violations.isEmpty { return "\(x.violations)" }
        return nil
      })
    #expect(problem == nil)
  }

  /// Request, cancel and send on two threads: nothing after cancel returns on the cancelling
  /// thread once the other has finished too, and no violation.
  @Test func requestThenCancelRacingSends() {
    typealias Round = (CurrentValueSubject<Int, Never>, TestSubscriber<Int, Never>)
    let problem = race(
      rounds: 30_000,
      setup: { () -> Round in
        let subject = CurrentValueSubject<Int, Never>(0)
        let x = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subject.subscribe(x)
        subject.send(1)  // missed: owed
        return (subject, x)
      },
      sides: [
        { round in for value in 2...4 { round.0.send(value) } },
        { round in
          round.1.request(.max(1))
          round.1.cancel()
        },
      ],
      check: { round in
        let x = round.1
        let before = x.values
        round.0.send(5)
        round.1.request(.max(1))
        let after = x.values
        if before != after { return "after cancel: \(before) -> \(after)" }
        guard after.first == 0, after.count <= 2, zip(after, after.dropFirst()).allSatisfy({ $0 < $1 }) else {
          return "got \(after)"
        }
        if !x.violations.isEmpty { return "\(x.violations)" }
        return nil
      })
    #expect(problem == nil)
  }
}

private final class Payload: Sendable {}

private final class Flag: Sendable {
  private let flag = Atomic<Bool>(false)
  /// Sets the flag; returns whether this call set it.
  func set() -> Bool { !flag.exchange(true, ordering: .relaxed) }
}

/// Calls `hook` with its subscription from inside `receive(subscription:)`; records values.
/// Used only by single-threaded tests.
private final class HookSubscriber: Subscriber, @unchecked Sendable {
  typealias Input = Int
  typealias Failure = Never
  private let hook: (any Subscription) -> Void
  private(set) var values: [Int] = []
  private(set) var completed = false
  private(set) var subscription: (any Subscription)?

  init(hook: @escaping (any Subscription) -> Void) { self.hook = hook }

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    hook(subscription)
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    values.append(input)
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    completed = true
    subscription = nil
  }
}

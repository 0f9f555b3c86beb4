import ConduitTesting
import Synchronization
import Testing

@testable import Conduit

@Suite(.leakChecked)
struct PassthroughSubjectTests {
  // Unlike Combine (DifferencesFromCombine §21): what the upstream sends in answer to a request
  // made inside `receive(subscription:)` waits until that call has returned, so the buffer below,
  // whose own subscriber asks for everything meanwhile, drops nothing. Found by differential
  // fuzzing (seed 13859).
  @Test func aRequestFromInsideReceiveSubscriptionIsAnsweredAfterItReturns() {
    let multicast = (2..<6).publisher.multicast(subject: PassthroughSubject<Int, Never>())
    let connection = multicast.connect()
    let subscriber = TestSubscriber<Int, Never>()
    multicast.buffer(size: 1, prefetch: .byRequest, whenFull: .dropNewest).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(2), .value(3), .value(4), .value(5), .completion(.finished)])
    connection.cancel()
  }

  @Test func sendsValuesToEverySubscriber() {
    let subject = PassthroughSubject<Int, Never>()
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    subject.subscribe(first)
    subject.subscribe(second)

    subject.send(1)
    subject.send(2)
    subject.send(completion: .finished)

    for subscriber in [first, second] {
      #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
      #expect(subscriber.violations.isEmpty)
    }
  }

  @Test func subscriberReceivesOnlyWhatIsSentAfterItSubscribed() {
    let subject = PassthroughSubject<Int, Never>()
    subject.send(0)
    let subscriber = TestSubscriber<Int, Never>()
    subject.subscribe(subscriber)

    subject.send(1)

    #expect(subscriber.values == [1])
    subject.send(completion: .finished)
  }

  @Test func tracksDemandPerSubscriber() {
    let subject = PassthroughSubject<Int, Never>()
    let limited = TestSubscriber<Int, Never>(initialDemand: .max(1))
    let unlimited = TestSubscriber<Int, Never>()
    subject.subscribe(limited)
    subject.subscribe(unlimited)

    for value in 1...3 { subject.send(value) }

    #expect(limited.values == [1])
    #expect(unlimited.values == [1, 2, 3])
    #expect(limited.violations.isEmpty)
    subject.send(completion: .finished)
  }

  @Test func dropsValueSentWithoutDemandAndDoesNotDeliverItLater() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subject.subscribe(subscriber)

    subject.send(1)
    subject.send(2)
    subscriber.request(.max(1))
    #expect(subscriber.values == [1])

    subject.send(3)
    subject.send(4)
    #expect(subscriber.values == [1, 3])
    #expect(subscriber.violations.isEmpty)
    subject.send(completion: .finished)
  }

  @Test func demandsAddUp() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    subject.subscribe(subscriber)

    subject.send(0)
    subscriber.request(.max(1))
    subscriber.request(.max(2))
    for value in 1...5 { subject.send(value) }

    #expect(subscriber.values == [1, 2, 3])
    subject.send(completion: .finished)
  }

  @Test func demandReturnedFromReceiveIsAdded() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    subject.subscribe(subscriber)

    for value in 1...4 { subject.send(value) }

    #expect(subscriber.values == [1, 2, 3, 4])
    #expect(subscriber.violations.isEmpty)
    subject.send(completion: .finished)
  }

  @Test func completionReachesSubscriberWithoutDemand() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    subject.subscribe(subscriber)

    subject.send(1)
    subject.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func deliversFailure() {
    let subject = PassthroughSubject<Int, Oops>()
    let subscriber = TestSubscriber<Int, Oops>()
    subject.subscribe(subscriber)

    subject.send(1)
    subject.send(completion: .failure(Oops()))

    #expect(subscriber.events == [.subscription, .value(1), .completion(.failure(Oops()))])
  }

  @Test func ignoresSendsAndCompletionsAfterCompletion() {
    let subject = PassthroughSubject<Int, Oops>()
    let subscriber = TestSubscriber<Int, Oops>()
    subject.subscribe(subscriber)

    subject.send(completion: .finished)
    subject.send(1)
    subject.send(completion: .failure(Oops()))

    #expect(subscriber.events == [.subscription, .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func subscriberArrivingAfterCompletionGetsSubscriptionAndCompletionAtOnce() {
    let subject = PassthroughSubject<Int, Oops>()
    subject.send(completion: .failure(Oops()))

    let eager = TestSubscriber<Int, Oops>()
    let idle = TestSubscriber<Int, Oops>(initialDemand: .none)
    subject.subscribe(eager)
    subject.subscribe(idle)
    subject.send(1)

    for subscriber in [eager, idle] {
      #expect(subscriber.events == [.subscription, .completion(.failure(Oops()))])
      #expect(subscriber.violations.isEmpty)
    }
  }

  @Test func sendWithoutArgumentForVoidOutput() {
    let subject = PassthroughSubject<Void, Never>()
    let subscriber = TestSubscriber<Void, Never>()
    subject.subscribe(subscriber)

    subject.send()
    subject.send()

    #expect(subscriber.values.count == 2)
    subject.send(completion: .finished)
  }

  @Test func cancellingOneSubscriberLeavesTheOthers() {
    let subject = PassthroughSubject<Int, Never>()
    let cancelled = TestSubscriber<Int, Never>()
    let kept = TestSubscriber<Int, Never>()
    subject.subscribe(cancelled)
    subject.subscribe(kept)

    subject.send(1)
    cancelled.cancel()
    subject.send(2)
    subject.send(completion: .finished)

    #expect(cancelled.events == [.subscription, .value(1)])
    #expect(kept.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func cancelIsIdempotent() throws {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.subscribe(subscriber)
    let subscription = try #require(subscriber.subscription)

    subscription.cancel()
    subscription.cancel()
    subscription.request(.max(1))
    subject.send(1)
    subject.send(completion: .finished)

    #expect(subscriber.events == [.subscription])
  }

  /// As in Combine: described as "PassthroughSubject", with the subject as parent and subject,
  /// the subscriber and the demand left; after a cancel, what was left of the demand.
  @Test func subscriptionReflectsAsCombinesDoes() throws {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(12))
    subject.subscribe(subscriber)
    subject.send(1)
    let subscription = try #require(subscriber.subscription)
    #expect(String(describing: subscription) == "PassthroughSubject")
    #expect(
      (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
        == "PassthroughSubject")
    let mirror = try #require((subscription as? any CustomReflectable)?.customMirror)
    let children = mirror.children.map { ($0.label ?? "", String(describing: $0.value)) }
    #expect(children.map(\.0) == ["parent", "downstream", "demand", "subject"])
    #expect(children[0].1.contains("PassthroughSubject<"))
    #expect(children[1].1.contains("TestSubscriber"))
    #expect(children[2].1 == "max(11)")
    #expect(children[3].1.contains("PassthroughSubject<"))
    subscriber.cancel()
    let ended = (subscription as? any CustomReflectable)?.customMirror.children.map { String(describing: $0.value) }
    #expect(ended == ["nil", "nil", "max(11)", "nil"])
  }

  @Test func relaysUpstreamPublisherValuesAndCompletion() {
    let relay = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    relay.subscribe(subscriber)

    let token = [1, 2, 3].publisher.subscribe(relay)

    #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)])
    token.cancel()
  }

  @Test func relaysUpstreamFailure() {
    let relay = PassthroughSubject<Int, Oops>()
    let subscriber = TestSubscriber<Int, Oops>()
    relay.subscribe(subscriber)

    let token = Fail<Int, Oops>(error: Oops()).subscribe(relay)

    #expect(subscriber.events == [.subscription, .completion(.failure(Oops()))])
    token.cancel()
  }

  @Test func cancellingTheRelayTokenStopsTheRelay() {
    let upstream = PassthroughSubject<Int, Never>()
    let relay = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    relay.subscribe(subscriber)
    let token = upstream.subscribe(relay)

    upstream.send(1)
    token.cancel()
    upstream.send(2)
    upstream.send(completion: .finished)
    relay.send(3)

    #expect(subscriber.events == [.subscription, .value(1), .value(3)])
    relay.send(completion: .finished)
  }

  @Test func aRelayCancelledBeforeTheSubjectRecordsItsSubscriptionLeavesNothingInTheSubject() {
    // The interleaving of two threads, forced: the relay has taken its subscription and is about
    // to hand it to the subject when its token is cancelled. The cancel asks the subject to forget
    // a subscription it has not recorded yet; the subject records it just after.
    let subject = PassthroughSubject<Int, Never>()
    let forwarding = CancelBeforeRecordingSubject(subject)
    let source = LateSubscriptionPublisher()
    let token = source.subscribe(forwarding)
    forwarding.beforeRecording = { token.cancel() }
    weak let link = source.giveSubscription()
    forwarding.beforeRecording = nil
    #expect(subject.core.state.withLock { $0.upstreams.isEmpty })
    #expect(link == nil)
  }

  @Test func relaysSubscribedAndCancelledOverAndOverDoNotPileUp() throws {
    let upstream = PassthroughSubject<Int, Never>()
    let relay = PassthroughSubject<Int, Never>()
    try withGrowthCheck(iterations: 20) { _ in
      let token = upstream.subscribe(relay)
      token.cancel()
    }
    let subscriber = TestSubscriber<Int, Never>()
    relay.subscribe(subscriber)
    let token = upstream.subscribe(relay)
    upstream.send(7)
    #expect(subscriber.values == [7])
    token.cancel()
    subscriber.cancel()
  }

  // As in Combine: the subject asks its upstreams for `.unlimited` once one of its subscribers
  // has asked for a value, and asks an upstream sent after that at once.
  @Test func requestsUnlimitedFromSentSubscriptionsOnceASubscriberAsks() {
    let subject = PassthroughSubject<Int, Never>()
    let first = SpySubscription()
    subject.send(subscription: first)
    #expect(first.requests == [])

    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    subject.subscribe(subscriber)
    #expect(first.requests == [])
    subscriber.request(.max(1))
    #expect(first.requests == [.unlimited])
    subscriber.request(.max(1))
    #expect(first.requests == [.unlimited])

    let second = SpySubscription()
    subject.send(subscription: second)
    #expect(second.requests == [.unlimited])
    #expect(first.cancelCount == 0 && second.cancelCount == 0)
    subscriber.cancel()
  }

  @Test func aSubscriberThatLeftStillCountsAsDemand() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.subscribe(subscriber)
    subscriber.cancel()
    let upstream = SpySubscription()
    subject.send(subscription: upstream)
    #expect(upstream.requests == [.unlimited])
  }

  @Test func cancelsUpstreamSubscriptionsWhenReleased() {
    let upstream = SpySubscription()
    do {
      let subject = PassthroughSubject<Int, Never>()
      subject.send(subscription: upstream)
      subject.send(subscription: upstream)
    }
    #expect(upstream.cancelCount == 2)
  }

  @Test func holdsSubscriberUntilCompletion() {
    let subject = PassthroughSubject<Int, Never>()
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

  /// The upstream subscriptions a subject lets go of at its completion are released after its
  /// lock (see `completeWithAnUpstreamThatUsesTheSubjectInItsDeinit`).
  @Test func upstreamSubscriptionMayUseTheSubjectInItsDeinit() {
    let (completedInDeinit, subscriber) = completeWithAnUpstreamThatUsesTheSubjectInItsDeinit(
      PassthroughSubject())
    #expect(completedInDeinit)
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  /// The number of values one subscriber gets for each initial demand (`nil`: none requested)
  /// and each list of demands returned from `receive(_:)`, over 20 values sent, as in Combine.
  /// Evidence (OpenCombine): PassthroughSubjectTests.swift `testRequestingDemand`
  /// (`expectedNumberOfInputsHistory`).
  @Test func passthroughSubjectDemandMatrixMatchesCombine() {
    let counts = subjectDemandMatrix(PassthroughSubject<Int, ParityFailure>.init) { subject, _, _ in
      for value in 0..<20 { subject.send(value) }
    }
    #expect(
      counts == [
        0, 0, 0, 0, 0, 1, 11, 2, 1, 20, 2, 12, 4, 5, 20, 10, 20, 12, 13, 20, 20, 20, 20, 20, 20,
      ])
  }

  /// A subscriber that subscribes itself again from inside `receive(subscription:)`, ten deep,
  /// then once more: every subscription gets each value; cancelling every other one leaves the
  /// rest getting values.
  /// Evidence (OpenCombine): PassthroughSubjectTests.swift `testMultipleSubscriptions` (11 subscriptions,
  /// eleven 0s, then five 1s after the even ones are cancelled).
  @Test func passthroughSubscriberSubscribingAgainFromInsideGetsEveryValueOnEachSubscription() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = ResubscribingSubscriber(subscribe: { subject.subscribe($0) })
    subject.subscribe(subscriber)
    #expect(subscriber.subscriptions.count == 10)
    subject.subscribe(subscriber)
    #expect(subscriber.subscriptions.count == 11)
    #expect(subscriber.values == [])

    subject.send(0)
    #expect(subscriber.values == Array(repeating: 0, count: 11))

    for (index, subscription) in subscriber.subscriptions.enumerated() where index.isMultiple(of: 2) {
      subscription.cancel()
    }
    subject.send(1)
    #expect(subscriber.values == Array(repeating: 0, count: 11) + Array(repeating: 1, count: 5))
    subject.send(completion: .finished)
  }
}

@Suite(.leakChecked, .serialized)
struct RelayStressTests {
  @Test func relaysCancelledAsTheirSubscriptionArrivesLeaveNothingInTheSubject() {
    let subject = PassthroughSubject<Int, Never>()
    let rounds = 30_000
    let sources = (0..<rounds).map { _ in LateSubscriptionPublisher() }
    let tokens = sources.map { $0.subscribe(subject) }
    let arrived = Atomic<Int>(0)
    runOnThreads(2) { thread in
      for round in 0..<rounds {
        // Both threads start each round together.
        arrived.wrappingAdd(1, ordering: .acquiringAndReleasing)
        while arrived.load(ordering: .acquiring) < 2 * (round + 1) {}
        if thread == 0 { sources[round].giveSubscription() } else { tokens[round].cancel() }
      }
    }
    #expect(subject.core.state.withLock { $0.upstreams.isEmpty })
  }

  /// Two relays into one subject finish on two threads, while one subscriber cancels from inside
  /// `receive` and another joins: the subject completes once, at the first relay's completion,
  /// and what came through each relay is, in order, a beginning of what it sent.
  @Test func twoRelaysFinishingOnTwoThreadsCompleteTheSubjectOnce() {
    for _ in 0..<500 {
      let subject = PassthroughSubject<Int, Never>()
      let first = PassthroughSubject<Int, Never>()
      let second = PassthroughSubject<Int, Never>()
      let stays = TestSubscriber<Int, Never>()
      subject.subscribe(stays)
      let leaves = StressSubscriber(cancelAt: 10)
      subject.subscribe(leaves)
      let relays = [first.subscribe(subject), second.subscribe(subject)]
      let joiner = TestSubscriber<Int, Never>()
      runOnThreads(3) { thread in
        switch thread {
        case 0:
          for index in 0..<100 { first.send(index) }
          first.send(completion: .finished)
        case 1:
          for index in 0..<100 { second.send(1_000 + index) }
          second.send(completion: .finished)
        default: subject.subscribe(joiner)
        }
      }
      #expect(stays.violations.isEmpty)
      #expect(stays.completion == .finished)
      #expect(joiner.violations.isEmpty)
      #expect(joiner.completion == .finished)
      #expect(leaves.count <= 10)
      #expect(leaves.overlaps == 0)
      #expect(!leaves.completed)
      let values = stays.values
      let fromFirst = values.filter { $0 < 1_000 }
      let fromSecond = values.filter { $0 >= 1_000 }.map { $0 - 1_000 }
      #expect(fromFirst == Array(0..<fromFirst.count))
      #expect(fromSecond == Array(0..<fromSecond.count))
      #expect(fromFirst.count == 100 || fromSecond.count == 100)
      withExtendedLifetime(relays) {}
    }
  }

  /// A relay's upstream finishes on one thread while the relay is cancelled on another and the
  /// subject is sent to directly on a third: the subscriber sees each sender's values in order
  /// and at most one completion.
  @Test func aRelayFinishingOnOneThreadWhileCancelledOnAnotherKeepsTheContract() {
    for _ in 0..<1_000 {
      let subject = PassthroughSubject<Int, Never>()
      let subscriber = TestSubscriber<Int, Never>()
      subject.subscribe(subscriber)
      let source = PassthroughSubject<Int, Never>()
      let token = source.subscribe(subject)
      runOnThreads(3) { thread in
        switch thread {
        case 0:
          for index in 0..<50 { source.send(index) }
          source.send(completion: .finished)
        case 1: token.cancel()
        default: for index in 100..<150 { subject.send(index) }
        }
      }
      let values = subscriber.values
      let relayed = values.filter { $0 < 100 }
      let direct = values.filter { $0 >= 100 }
      #expect(subscriber.violations.isEmpty)
      #expect(relayed == Array(0..<relayed.count))
      #expect(direct == Array(100..<100 + direct.count))
      // Unless the relay's completion got through, nothing stopped the direct sends.
      #expect(subscriber.completion == .finished || direct.count == 50)
      subscriber.cancel()
    }
  }
}

/// Hands its subscriber a subscription only when the test says so, so that the test can race
/// that moment against a cancel.
private final class LateSubscriptionPublisher: Publisher, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never

  final class Link: Subscription {
    func request(_ demand: Subscribers.Demand) {}
    func cancel() {}
  }

  private let subscriber = Locked<AnySubscriber<Int, Never>?>(nil)

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    self.subscriber.withLock { $0 = AnySubscriber(subscriber) }
  }

  /// Gives the subscriber its subscription, and forgets the subscriber.
  @discardableResult
  func giveSubscription() -> Link {
    let link = Link()
    let subscriber = self.subscriber.withLock { subscriber in
      defer { subscriber = nil }
      return subscriber
    }
    subscriber?.receive(subscription: link)
    return link
  }
}

/// A subject that forwards to a passthrough subject, and runs `beforeRecording` when it is given
/// an upstream subscription, before the passthrough subject records it.
private final class CancelBeforeRecordingSubject: Subject, UpstreamForgetting, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never
  let inner: PassthroughSubject<Int, Never>
  var beforeRecording: (() -> Void)?
  init(_ inner: PassthroughSubject<Int, Never>) { self.inner = inner }
  func send(_ value: Int) { inner.send(value) }
  func send(completion: Subscribers.Completion<Never>) { inner.send(completion: completion) }
  func send(subscription: any Subscription) {
    beforeRecording?()
    inner.send(subscription: subscription)
  }
  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    inner.receive(subscriber: subscriber)
  }
  func forgetUpstream(_ identifier: CombineIdentifier) { inner.forgetUpstream(identifier) }
}

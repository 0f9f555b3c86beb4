import ConduitTesting
import Dispatch
import Testing

@testable import Conduit

private struct PrefixUntilOutputTestError: Error, Equatable {}

@Suite(.leakChecked)
struct PrefixUntilOutputTests {
  @Test func republishesUntilTheOtherPublisherEmits() {
    let values = PassthroughSubject<Int, Never>()
    let stop = PassthroughSubject<Void, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    values.prefix(untilOutputFrom: stop).subscribe(subscriber)
    values.send(1)
    values.send(2)
    stop.send()
    values.send(3)
    stop.send()
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  /// The trigger's value ends the stream, cancelling upstream and the trigger. (Combine does not
  /// cancel the trigger, OpenCombine PrefixUntilOutputTests `testBasicBehavior`: the trigger
  /// would keep the finished subscription until it completes.)
  @Test func theTriggerCancelsUpstreamAndItself() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let trigger = HandDrivenUpstream<String, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
    #expect(trigger.link?.requests == [.max(1)])
    #expect(upstream.link?.requests == [.unlimited])
    upstream.send(1)
    #expect(trigger.send("stop") == .none)
    #expect(upstream.link?.isCancelled == true)
    #expect(trigger.link?.isCancelled == true)
    upstream.send(2)
    #expect(trigger.send("again") == .none)
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    #expect(trigger.link?.requests == [.max(1)])
  }

  /// Combine accepts `.none` here and passes it on (`testRequestZeroDemand`).
  @Test func requestingNoneIsAcceptedAndPassedOn() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.prefix(untilOutputFrom: PassthroughSubject<Void, Never>()).subscribe(subscriber)
    subscriber.subscription?.request(.none)
    #expect(upstream.events == [.requested(.none)])
    subscriber.cancel()
    upstream.detach()
  }

  /// An upstream completing before it sent its subscription ends the stream without a word to
  /// the subscriber, which was never subscribed, and cancels the trigger, as in Combine
  /// (`testPrefixUntilOutputReceiveCompletionBeforeSubscription`).
  @Test func anUpstreamCompletionBeforeItsSubscriptionEndsTheStreamSilently() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let trigger = HandDrivenUpstream<Void, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
    upstream.send(completion: .finished)
    #expect(trigger.link?.isCancelled == true)
    upstream.sendSubscription()
    #expect(upstream.events == [.cancelled])
    #expect(subscriber.events.isEmpty)
    upstream.detach()
  }

  /// The trigger firing before upstream's subscription finishes the stream at once: the
  /// subscriber gets its subscription and the completion (Combine sends the completion alone),
  /// and upstream's subscription is cancelled when it arrives
  /// (`testTerminatorEmitsValueBeforeUpstreamSendsSubscription`).
  @Test func aTriggerBeforeUpstreamsSubscriptionFinishesAtOnce() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let trigger = HandDrivenUpstream<Void, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
    #expect(subscriber.events.isEmpty)
    trigger.send(())
    #expect(subscriber.events == [.subscription, .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
    #expect(trigger.link?.isCancelled == true)
    upstream.sendSubscription()
    #expect(upstream.events == [.cancelled])
    #expect(subscriber.events == [.subscription, .completion(.finished)])
    upstream.detach()
  }

  /// A trigger that completed, even before its subscription, gets any subscription it sends
  /// afterwards cancelled, as in Combine.
  @Test func aTriggerSubscriptionAfterItsCompletionIsCancelled() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let trigger = HandDrivenUpstream<Void, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = TestSubscriber<Int, Never>()
    upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
    trigger.send(completion: .finished)
    trigger.sendSubscription()
    #expect(trigger.events == [.cancelled])
    upstream.send(1)
    #expect(subscriber.values == [1])
    subscriber.cancel()
    trigger.detach()
  }

  /// Combine gives this operator's subscriber and subscription no description or reflection
  /// (`testPrefixUntilOutputReflection`).
  @Test func hasNoDescriptionAsInCombine() throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let trigger = HandDrivenUpstream<Void, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>()
    upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
    let subscription = try #require(subscriber.subscription)
    #expect(!(subscription is any CustomStringConvertible))
    #expect(!(subscription is any CustomReflectable))
    #expect(!(subscription is any CustomPlaygroundDisplayConvertible))
    #expect(upstream.subscriberDescription?.contains("PrefixUntilOutputInner") == true)
    #expect(trigger.subscriberDescription?.contains("TriggerSubscriber") == true)
    subscriber.cancel()
    upstream.detach()
    trigger.detach()
  }

  @Test func subscribesToTheOtherPublisherFirst() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let trigger = HandDrivenUpstream<Void, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { _ in }
    upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
    #expect(trigger.subscriptionCount == 1)
    #expect(upstream.subscriptionCount == 1)
    subscriber.cancel()
  }

  @Test func aTriggerThatEmitsAtOnceFinishesTheStreamAtOnce() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.prefix(untilOutputFrom: Just(())).subscribe(subscriber)
    #expect(upstream.link?.isCancelled == true)
    upstream.send(1)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func theOtherPublisherEndingWithoutAValueChangesNothing() {
    let values = PassthroughSubject<Int, PrefixUntilOutputTestError>()
    let finishing = PassthroughSubject<Void, Never>()
    let failing = PassthroughSubject<Void, PrefixUntilOutputTestError>()
    let first = TestSubscriber<Int, PrefixUntilOutputTestError>()
    let second = TestSubscriber<Int, PrefixUntilOutputTestError>()
    values.prefix(untilOutputFrom: finishing).subscribe(first)
    values.prefix(untilOutputFrom: failing).subscribe(second)
    finishing.send(completion: .finished)
    failing.send(completion: .failure(PrefixUntilOutputTestError()))
    values.send(1)
    values.send(completion: .finished)
    #expect(first.events == [.subscription, .value(1), .completion(.finished)])
    #expect(second.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func upstreamCompletionPassesThroughAndCancelsTheTrigger() {
    let upstream = HandDrivenUpstream<Int, PrefixUntilOutputTestError>()
    let trigger = HandDrivenUpstream<Void, Never>()
    let subscriber = TestSubscriber<Int, PrefixUntilOutputTestError>()
    upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
    upstream.send(1)
    upstream.send(completion: .failure(PrefixUntilOutputTestError()))
    #expect(trigger.link?.isCancelled == true)
    trigger.send(())
    #expect(subscriber.events == [.subscription, .value(1), .completion(.failure(PrefixUntilOutputTestError()))])
  }

  @Test func passesDemandUpstreamAndNeverBeyondIt() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let trigger = PassthroughSubject<Void, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
    #expect(upstream.send(1) == .max(1))
    subscriber.request(.max(2))
    #expect(upstream.link?.requests == [.max(1), .max(2)])
    trigger.send()
    #expect(subscriber.violations.isEmpty)

    let bounded = TestSubscriber<Int, Never>(initialDemand: .max(2))
    (1...5).publisher.prefix(untilOutputFrom: trigger).subscribe(bounded)
    #expect(bounded.values == [1, 2])
    bounded.cancel()
    #expect(bounded.violations.isEmpty)
  }

  @Test func cancelReachesBothPublishers() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let trigger = HandDrivenUpstream<Void, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
    upstream.send(1)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    #expect(trigger.link?.isCancelled == true)
    upstream.send(2)
    trigger.send(())
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  @Test func aTriggerSentFromInsideAValueCompletesAfterIt() {
    let values = PassthroughSubject<Int, Never>()
    let stop = PassthroughSubject<Void, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { value in
      if value == 2 { stop.send() }
    }
    values.prefix(untilOutputFrom: stop).subscribe(subscriber)
    values.send(1)
    values.send(2)
    values.send(3)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelFromInsideAValueStopsEverything() {
    let values = PassthroughSubject<Int, Never>()
    let stop = PassthroughSubject<Void, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { _ in
      subscriber.cancel()
      stop.send()
    }
    values.prefix(untilOutputFrom: stop).subscribe(subscriber)
    values.send(1)
    values.send(2)
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  /// A cancel lets go of the subscriber after the operator's lock: a subscriber that cancels its
  /// subscription in its `deinit` stopped the process on the lock taken twice.
  @Test func subscriberMayCancelItsSubscriptionInItsDeinit() {
    let upstream = PassthroughSubject<Int, Never>()
    let trigger = PassthroughSubject<Void, Never>()
    let holder = DeinitCancellingSubscriber<Int, Never>.Holder()
    upstream.prefix(untilOutputFrom: trigger).subscribe(DeinitCancellingSubscriber<Int, Never>(holder: holder))
    holder.subscription?.cancel()
    #expect(holder.cancelledInDeinit)
    holder.subscription = nil
  }
}

@Suite(.leakChecked)
struct PrefixUntilOutputNestingTests {
  /// A synchronous upstream delivers a value from inside the request that the subscriber makes
  /// in `receive(subscription:)`, so that call and the value's nest. The other publisher then
  /// emits on another thread while `receive(subscription:)` still runs: the completion waits
  /// until the outermost call has returned instead of entering the subscriber on that thread.
  @Test func theCompletionWaitsForTheOutermostCallIntoTheSubscriber() {
    let stop = SendableSubject(PassthroughSubject<Void, Never>())
    let log = Locked<[String]>([])
    let subscriber = AnySubscriber<Int, Never>(
      receiveSubscription: { subscription in
        log.withLock { $0.append("subscription") }
        subscription.request(.max(1))
        // Still inside receive(subscription:): the other publisher emits on another thread,
        // and this thread waits until that thread is done.
        runOnThreads(1) { _ in stop.subject.send() }
        log.withLock { $0.append("subscription returns") }
      },
      receiveValue: { value in
        log.withLock { $0.append("value \(value)") }
        return .none
      },
      receiveCompletion: { _ in log.withLock { $0.append("completion") } })
    [1, 2, 3].publisher.prefix(untilOutputFrom: stop.subject).subscribe(subscriber)
    #expect(log.withLock { $0 } == ["subscription", "value 1", "subscription returns", "completion"])
  }
}

/// Hands a subject to another thread.
private struct SendableSubject: @unchecked Sendable {
  let subject: PassthroughSubject<Void, Never>
  init(_ subject: PassthroughSubject<Void, Never>) { self.subject = subject }
}

@Suite(.leakChecked)
struct PrefixUntilOutputStressTests {
  @Test func aTriggerOnAnotherThreadNeverOverlapsAValue() {
    for _ in 0..<200 {
      let values = PassthroughSubject<Int, Never>()
      let stop = PassthroughSubject<Void, Never>()
      let subscriber = TestSubscriber<Int, Never>()
      values.prefix(untilOutputFrom: stop).subscribe(subscriber)
      let group = DispatchGroup()
      DispatchQueue.global().async(group: group) {
        for value in 0..<200 { values.send(value) }
      }
      DispatchQueue.global().async(group: group) {
        stop.send()
      }
      group.wait()
      #expect(subscriber.completion == .finished)
      #expect(subscriber.values == Array(0..<subscriber.values.count))
      #expect(subscriber.violations.isEmpty)
    }
  }
}

import Conduit
import ConduitTesting
import Dispatch
import Testing

private struct DropUntilOutputTestError: Error, Equatable {}

@Suite(.leakChecked)
struct DropUntilOutputTests {
  @Test func dropsUntilTheOtherPublisherEmits() {
    let values = PassthroughSubject<Int, Never>()
    let start = PassthroughSubject<String, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    values.drop(untilOutputFrom: start).subscribe(subscriber)
    values.send(1)
    values.send(2)
    start.send("go")
    values.send(3)
    values.send(4)
    values.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(3), .value(4), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  /// As in Combine, the trigger is not cancelled after its value (OpenCombine
  /// DropUntilOutputTests `testDemand`, `testOtherFailsAfterTriggering`); it is cancelled when
  /// the stream ends. (Combine never cancels it, `testReusableOtherSubscriber`: the trigger would
  /// keep the subscription until it completes.)
  @Test func theTriggerIsAskedForOneValueAndCancelledWithTheStream() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let trigger = HandDrivenUpstream<String, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
    #expect(trigger.link?.requests == [.max(1)])
    #expect(trigger.send("go") == .none)
    #expect(trigger.link?.isCancelled == false)
    upstream.send(1)
    #expect(subscriber.values == [1])
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    #expect(trigger.link?.isCancelled == true)
    #expect(trigger.link?.requests == [.max(1)])
  }

  @Test func theFiredTriggerIsCancelledWhenUpstreamCompletes() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let trigger = HandDrivenUpstream<String, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
    trigger.send("go")
    upstream.send(completion: .finished)
    #expect(trigger.link?.isCancelled == true)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  /// A second subscription from the trigger is cancelled, after its value too.
  @Test func aSecondTriggerSubscriptionIsCancelled() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let trigger = HandDrivenUpstream<Void, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
    let early = SpySubscription()
    trigger.sendSubscription(early)
    #expect(early.events == [.cancelled])
    #expect(trigger.send(()) == .none)
    let late = SpySubscription()
    trigger.sendSubscription(late)
    #expect(late.events == [.cancelled])
    subscriber.cancel()
    #expect(trigger.events == [.requested(.max(1)), .cancelled])
    #expect(upstream.events == [.requested(.max(2)), .cancelled])
    upstream.detach()
    trigger.detach()
  }

  /// Combine accepts `.none` here and passes it on; what is requested before upstream's
  /// subscription is asked of it when it arrives. Evidence: OpenCombine DropUntilOutputTests
  /// `testLateSubscription`.
  @Test func requestingNoneIsAcceptedAndPassedOn() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let trigger = PassthroughSubject<Void, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
    subscriber.subscription?.request(.max(10))
    subscriber.subscription?.request(.max(4))
    subscriber.subscription?.request(.none)
    upstream.sendSubscription()
    subscriber.subscription?.request(.none)
    #expect(upstream.events == [.requested(.max(14)), .requested(.none)])
    subscriber.cancel()
    upstream.detach()
  }

  /// An upstream completing before it sent its subscription still completes the stream: the
  /// subscriber has had its subscription since the start (Combine does the same).
  @Test func anUpstreamCompletionBeforeItsSubscriptionCompletesTheStream() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let trigger = HandDrivenUpstream<Void, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
    #expect(trigger.link?.isCancelled == true)
    let late = SpySubscription()
    upstream.sendSubscription(late)
    #expect(late.events == [.cancelled])
    upstream.detach()
  }

  /// A trigger completing before it sent its subscription ends the stream, as in Combine.
  @Test func aTriggerCompletionBeforeItsSubscriptionEndsTheStream() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let trigger = HandDrivenUpstream<Void, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = TestSubscriber<Int, Never>()
    upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
    trigger.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
    #expect(upstream.link?.isCancelled == true)
    trigger.detach()
  }

  /// Before the trigger, every value counts against the demand requested, after a cancel too;
  /// one beyond it breaks the contract, and Combine stops there as well
  /// (`testCrashesWhenReceivesInputAfterCancel`, `testDropUntilOutputReceiveValueBeforeSubscription`).
  @Test func aValueBeyondTheDemandBeforeTheTriggerStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
      let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
      upstream.drop(untilOutputFrom: Empty<Void, Never>()).subscribe(subscriber)
      upstream.send(1)
      upstream.send(2)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("drop(untilOutputFrom:): upstream sent a value it was not asked for"))
  }

  /// The stream ended before upstream's subscription arrived, which is cancelled (Combine asks it
  /// for the demand requested instead, `testLateSubscription`); values it sends anyway, within
  /// that demand, are dropped.
  @Test func valuesWithinTheDemandAfterTheStreamEndedAreIgnored() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    upstream.drop(untilOutputFrom: Empty<Void, Never>()).subscribe(subscriber)
    #expect(upstream.events == [.cancelled])
    #expect(upstream.send(1) == .none)
    #expect(upstream.send(2) == .none)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
    upstream.detach()
  }

  /// The subscription and the subscriber given to both publishers describe themselves as
  /// Combine's do (OpenCombine `testDropUntilOutputReflection`).
  @Test func describesItselfAsCombineDoes() throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let trigger = HandDrivenUpstream<Void, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>()
    upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
    #expect(upstream.subscriberDescription == "DropUntilOutput")
    #expect(trigger.subscriberDescription == "DropUntilOutput")
    let subscription = try #require(subscriber.subscription)
    #expect((subscription as? any CustomStringConvertible)?.description == "DropUntilOutput")
    #expect((subscription as? any CustomReflectable)?.customMirror.children.isEmpty == true)
    #expect(
      (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "DropUntilOutput")
    subscriber.cancel()
    upstream.detach()
    trigger.detach()
  }

  @Test func subscribesDownstreamThenTheOtherPublisherThenUpstream() {
    var order: [String] = []
    let upstream = HandDrivenUpstream<Int, Never>()
    let trigger = HandDrivenUpstream<Void, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.handleEvents(receiveSubscription: { _ in order.append("upstream") })
      .drop(untilOutputFrom: trigger.handleEvents(receiveSubscription: { _ in order.append("other") }))
      .subscribe(subscriber)
    #expect(order == ["other", "upstream"])
    #expect(subscriber.subscriptionCount == 1)
    subscriber.cancel()
  }

  @Test func droppedValuesSpendTheDemandTheyAnswered() {
    // As in Combine: requests go straight upstream, and values dropped before the trigger are
    // not asked for again.
    let upstream = HandDrivenUpstream<Int, Never>()
    let trigger = PassthroughSubject<Void, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
    upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
    #expect(upstream.link?.requests == [.max(3)])
    #expect(upstream.send(1) == .none)
    trigger.send()
    #expect(upstream.send(2) == .none)
    #expect(upstream.link?.requests == [.max(3)])
    #expect(subscriber.values == [2])
    upstream.send(completion: .finished)
  }

  @Test func neverDeliversBeyondDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    (1...5).publisher.drop(untilOutputFrom: Just(())).subscribe(subscriber)
    #expect(subscriber.values == [1, 2])
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2, 3])
    subscriber.cancel()
    #expect(subscriber.violations.isEmpty)
  }

  @Test func theOtherPublisherFinishingFirstFinishesTheStream() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let trigger = PassthroughSubject<Void, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
    upstream.send(1)
    trigger.send(completion: .finished)
    #expect(upstream.link?.isCancelled == true)
    upstream.send(2)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func theOtherPublisherFailingFirstFailsTheStream() {
    let values = PassthroughSubject<Int, DropUntilOutputTestError>()
    let trigger = PassthroughSubject<Void, DropUntilOutputTestError>()
    let subscriber = TestSubscriber<Int, DropUntilOutputTestError>()
    values.drop(untilOutputFrom: trigger).subscribe(subscriber)
    trigger.send(completion: .failure(DropUntilOutputTestError()))
    values.send(1)
    #expect(subscriber.events == [.subscription, .completion(.failure(DropUntilOutputTestError()))])
  }

  @Test func theOtherPublisherEndingAfterItsValueChangesNothing() {
    let values = PassthroughSubject<Int, DropUntilOutputTestError>()
    let trigger = HandDrivenUpstream<Void, DropUntilOutputTestError>()
    let subscriber = TestSubscriber<Int, DropUntilOutputTestError>()
    values.drop(untilOutputFrom: trigger).subscribe(subscriber)
    trigger.send(())
    trigger.send(completion: .failure(DropUntilOutputTestError()))
    values.send(1)
    values.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func upstreamCompletionPassesThroughAndCancelsTheTrigger() {
    let upstream = HandDrivenUpstream<Int, DropUntilOutputTestError>()
    let trigger = HandDrivenUpstream<Void, DropUntilOutputTestError>()
    let subscriber = TestSubscriber<Int, DropUntilOutputTestError>()
    upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
    upstream.send(completion: .failure(DropUntilOutputTestError()))
    #expect(trigger.link?.isCancelled == true)
    #expect(subscriber.events == [.subscription, .completion(.failure(DropUntilOutputTestError()))])
  }

  @Test func cancelReachesBothPublishers() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let trigger = HandDrivenUpstream<Void, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    #expect(trigger.link?.isCancelled == true)
    trigger.send(())
    upstream.send(1)
    #expect(subscriber.events == [.subscription])
  }

  @Test func reentrantRequestFromInsideAValue() {
    let values = PassthroughSubject<Int, Never>()
    let start = PassthroughSubject<Void, Never>()
    // The dropped 1 spends one of the two.
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    subscriber.onValue { value in
      if value < 4 { subscriber.request(.max(1)) }
    }
    values.drop(untilOutputFrom: start).subscribe(subscriber)
    values.send(1)
    start.send()
    values.send(2)
    values.send(3)
    values.send(4)
    values.send(5)
    #expect(subscriber.values == [2, 3, 4])
    subscriber.cancel()
    #expect(subscriber.violations.isEmpty)
  }

  @Test func exposesItsPartsAndIsEquatable() {
    let dropped = Publishers.DropUntilOutput(upstream: Just(1), other: Just(2))
    #expect(dropped.upstream == Just(1))
    #expect(dropped.other == Just(2))
    #expect(dropped == Just(1).drop(untilOutputFrom: Just(2)))
  }
}

@Suite(.leakChecked)
struct DropUntilOutputStressTests {
  @Test func completionsRacingOnTwoThreadsDeliverOneCompletion() {
    for _ in 0..<200 {
      let values = PassthroughSubject<Int, Never>()
      let start = PassthroughSubject<Void, Never>()
      let subscriber = TestSubscriber<Int, Never>()
      values.drop(untilOutputFrom: start).subscribe(subscriber)
      let group = DispatchGroup()
      DispatchQueue.global().async(group: group) {
        for value in 0..<100 { values.send(value) }
        values.send(completion: .finished)
      }
      DispatchQueue.global().async(group: group) {
        start.send(completion: .finished)
      }
      group.wait()
      #expect(subscriber.values.isEmpty)
      #expect(subscriber.completion == .finished)
      #expect(subscriber.violations.isEmpty)
    }
  }

  @Test func cancelRacingValuesOnAnotherThread() {
    for _ in 0..<200 {
      let values = PassthroughSubject<Int, Never>()
      let subscriber = TestSubscriber<Int, Never>()
      values.drop(untilOutputFrom: Just(())).subscribe(subscriber)
      let group = DispatchGroup()
      DispatchQueue.global().async(group: group) {
        for value in 0..<200 { values.send(value) }
      }
      DispatchQueue.global().async(group: group) {
        subscriber.cancel()
      }
      group.wait()
      #expect(subscriber.values == Array(0..<subscriber.values.count))
      #expect(subscriber.violations.isEmpty)
    }
  }
}

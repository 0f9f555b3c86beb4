import ConduitTesting
import Dispatch
import Synchronization
import Testing

@testable import Conduit

private struct ConcatenateTestError: Error, Equatable {}

@Suite(.leakChecked)
struct ConcatenateTests {
  // `zip` subscribes its upstreams before its subscriber has asked for anything: a suffix
  // subscribed meanwhile, once the prefix finished, is asked for nothing until then, and for all
  // the subscriber asks after.
  @Test func aSuffixSubscribedWhileZipSubscribesItsUpstreamsGetsTheLaterDemand() {
    let appended = TestSubscriber<[Int], Never>()
    Empty<Int, Never>().append(1, 2, 3).zip((10...12).publisher).map { [$0, $1] }.subscribe(appended)
    #expect(
      appended.events == [.subscription, .value([1, 10]), .value([2, 11]), .value([3, 12]), .completion(.finished)])

    let prepended = TestSubscriber<[Int], Never>()
    (1...3).publisher.prepend(Empty()).zip((10...12).publisher).map { [$0, $1] }.subscribe(prepended)
    #expect(
      prepended.events == [.subscription, .value([1, 10]), .value([2, 11]), .value([3, 12]), .completion(.finished)])
  }

  @Test func publishesThePrefixThenTheSuffix() {
    let subscriber = TestSubscriber<Int, Never>()
    Publishers.Concatenate(prefix: [1, 2].publisher, suffix: [3, 4].publisher).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3), .value(4), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func subscribesToTheSuffixOnlyAfterThePrefixFinishes() {
    let prefix = HandDrivenUpstream<Int, Never>()
    let suffix = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    prefix.append(suffix).subscribe(subscriber)
    #expect(prefix.subscriptionCount == 1)
    #expect(suffix.subscriptionCount == 0)
    prefix.send(1)
    #expect(suffix.subscriptionCount == 0)
    prefix.send(completion: .finished)
    #expect(suffix.subscriptionCount == 1)
    #expect(suffix.link?.requests == [.unlimited])
    suffix.send(2)
    suffix.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func carriesUnusedDemandOverToTheSuffix() {
    let prefix = HandDrivenUpstream<Int, Never>()
    let suffix = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
    prefix.append(suffix).subscribe(subscriber)
    #expect(prefix.link?.requests == [.max(3)])
    prefix.send(1)
    prefix.send(2)
    prefix.send(completion: .finished)
    #expect(suffix.link?.requests == [.max(1)])
    suffix.send(3)
    subscriber.request(.max(2))
    #expect(suffix.link?.requests == [.max(1), .max(2)])
    suffix.send(completion: .finished)
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func demandReturnedFromValuesCarriesOverToo() {
    let prefix = HandDrivenUpstream<Int, Never>()
    let suffix = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(2))
    prefix.append(suffix).subscribe(subscriber)
    prefix.send(1)
    prefix.send(completion: .finished)
    #expect(suffix.link?.requests == [.max(2)])
    suffix.send(completion: .finished)
  }

  @Test func noDemandLeftMeansNoRequestToTheSuffix() {
    let prefix = HandDrivenUpstream<Int, Never>()
    let suffix = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    prefix.append(suffix).subscribe(subscriber)
    prefix.send(1)
    prefix.send(completion: .finished)
    #expect(suffix.subscriptionCount == 1)
    #expect(suffix.link?.requests == [])
    subscriber.request(.max(1))
    #expect(suffix.link?.requests == [.max(1)])
    subscriber.cancel()
    #expect(suffix.link?.isCancelled == true)
  }

  @Test func aFailingPrefixEndsTheStreamWithoutTheSuffix() {
    let prefix = HandDrivenUpstream<Int, ConcatenateTestError>()
    let suffix = HandDrivenUpstream<Int, ConcatenateTestError>()
    let subscriber = TestSubscriber<Int, ConcatenateTestError>()
    prefix.append(suffix).subscribe(subscriber)
    prefix.send(1)
    prefix.send(completion: .failure(ConcatenateTestError()))
    #expect(suffix.subscriptionCount == 0)
    #expect(subscriber.events == [.subscription, .value(1), .completion(.failure(ConcatenateTestError()))])
  }

  @Test func aFailingSuffixEndsTheStream() {
    let subscriber = TestSubscriber<Int, ConcatenateTestError>()
    Just(1).setFailureType(to: ConcatenateTestError.self)
      .append(Fail(error: ConcatenateTestError()))
      .subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .completion(.failure(ConcatenateTestError()))])
  }

  @Test func neverDeliversBeyondDemandAcrossTheJoin() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    [1, 2].publisher.eraseToAnyPublisher().append([3, 4].publisher.eraseToAnyPublisher()).subscribe(subscriber)
    #expect(subscriber.values == [1])
    subscriber.request(.max(2))
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == nil)
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3), .value(4), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelDuringThePrefixNeverSubscribesTheSuffix() {
    let prefix = HandDrivenUpstream<Int, Never>()
    let suffix = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    prefix.append(suffix).subscribe(subscriber)
    prefix.send(1)
    subscriber.cancel()
    #expect(prefix.link?.isCancelled == true)
    prefix.send(2)
    prefix.send(completion: .finished)
    #expect(suffix.subscriptionCount == 0)
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  @Test func cancelDuringTheSuffixCancelsIt() {
    let prefix = HandDrivenUpstream<Int, Never>()
    let suffix = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    prefix.append(suffix).subscribe(subscriber)
    prefix.send(completion: .finished)
    suffix.send(1)
    subscriber.cancel()
    #expect(suffix.link?.isCancelled == true)
    #expect(prefix.link?.isCancelled == false)
    suffix.send(2)
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  @Test func cancelFromInsideTheLastPrefixValue() {
    let prefix = HandDrivenUpstream<Int, Never>()
    let suffix = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { _ in subscriber.cancel() }
    prefix.append(suffix).subscribe(subscriber)
    prefix.send(1)
    prefix.send(completion: .finished)
    #expect(suffix.subscriptionCount == 0)
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  @Test func oneValueAtATimeAcrossLongSequencesDoesNotGrowTheStack() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (1...50_000).publisher.eraseToAnyPublisher()
      .append((50_001...100_000).publisher.eraseToAnyPublisher())
      .subscribe(subscriber)
    #expect(subscriber.values.count == 100_000)
    #expect(subscriber.values.last == 100_000)
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func prependAndAppendValuesSequencesAndPublishers() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.prepend(1, 2).prepend([-1, 0]).append(8, 9).append(stride(from: 10, to: 12, by: 1))
      .prepend(Just(-2)).append(Just(12))
      .subscribe(subscriber)
    subject.send(3)
    subject.send(completion: .finished)
    #expect(subscriber.values == [-2, -1, 0, 1, 2, 3, 8, 9, 10, 11, 12])
    #expect(subscriber.completion == .finished)
  }

  @Test func exposesItsPartsAndIsEquatable() {
    let concatenated = Publishers.Concatenate(prefix: Just(1), suffix: Just(2))
    #expect(concatenated.prefix == Just(1))
    #expect(concatenated.suffix == Just(2))
    #expect(concatenated == Just(1).append(Just(2)))
    #expect(concatenated != Just(2).append(Just(1)))
  }

  /// A cancel lets go of the subscriber after the operator's lock: a subscriber that cancels its
  /// subscription in its `deinit` stopped the process on the lock taken twice.
  @Test func subscriberMayCancelItsSubscriptionInItsDeinit() {
    let upstream = PassthroughSubject<Int, Never>()
    let holder = DeinitCancellingSubscriber<Int, Never>.Holder()
    upstream.append(Just(2)).subscribe(DeinitCancellingSubscriber<Int, Never>(holder: holder))
    holder.subscription?.cancel()
    #expect(holder.cancelledInDeinit)
    holder.subscription = nil
  }

  // MARK: As Combine (OpenCombine's ConcatenateTests.swift)

  // `testAppendBasicBehavior`, `testSecondCompletion`: what the prefix sends once it has finished
  // (a value, a second completion) is dropped, not taken for the suffix's.
  @Test func thePrefixIsNotHeardOnceItHasFinished() {
    let prefix = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let suffix = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10))
    prefix.append(suffix).subscribe(subscriber)
    #expect(prefix.send(1) == .none)
    prefix.send(completion: .finished)
    #expect(suffix.requests == [.max(9)])
    #expect(prefix.send(4000) == .none)
    prefix.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1)])
    #expect(suffix.send(5) == .none)
    suffix.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1), .value(5), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
    let late = SpySubscription()
    suffix.sendSubscription(late)
    #expect(late.cancelCount == 1)
  }

  // `testBackpressure`: any demand, `.none` too, is passed on to the publisher subscribed to; what
  // is asked while the suffix is being subscribed to is asked of it with the rest.
  @Test func aRequestForNothingIsPassedOn() {
    let prefix = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let suffix = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, Never>(initialDemand: .max(10), demandPerValue: .max(3))
    prefix.append(suffix).subscribe(subscriber)
    subscriber.subscription?.request(.none)
    #expect(prefix.requests == [.max(10), .none])
    #expect(prefix.send(3) == .max(3))
    prefix.send(completion: .finished)
    subscriber.subscription?.request(.max(7))
    suffix.sendSubscription()
    #expect(prefix.requests == [.max(10), .none])
    #expect(suffix.requests == [.max(19)])
    subscriber.subscription?.request(.unlimited)
    #expect(suffix.requests == [.max(19), .unlimited])
    suffix.send(completion: .finished)
    subscriber.subscription?.request(.max(42))
    #expect(suffix.requests == [.max(19), .unlimited])
    #expect(subscriber.history == ["subscription(Concatenate)", "value(3)", "finished"])
    subscriber.forget()
  }

  // `testCombineIdentifier`: the prefix and the suffix are subscribed by two subscribers of their
  // own, of different types, that share the subscription's identifier.
  @Test func bothSidesShareTheSubscriptionsIdentifier() throws {
    let prefix = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let suffix = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    prefix.append(suffix).subscribe(subscriber)
    let subscription = try #require(subscriber.subscription)
    let prefixSubscriber = try #require(prefix.subscriberObject as? any CustomCombineIdentifierConvertible)
    #expect(prefixSubscriber.combineIdentifier == subscription.combineIdentifier)
    #expect(suffix.subscriberObject == nil)
    prefix.send(completion: .finished)
    let suffixSubscriber = try #require(suffix.subscriberObject as? any CustomCombineIdentifierConvertible)
    #expect(suffixSubscriber.combineIdentifier == subscription.combineIdentifier)
    #expect(type(of: subscription) != type(of: prefixSubscriber))
    #expect(type(of: subscription) != type(of: suffixSubscriber))
    #expect(type(of: prefixSubscriber) != type(of: suffixSubscriber))
    subscriber.cancel()
  }

  // `testConcatenateReflection`: both sides and the subscription describe and reflect themselves
  // alike.
  @Test func reflectsAsCombineDoes() throws {
    let prefix = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let suffix = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    prefix.append(suffix).subscribe(subscriber)
    prefix.send(completion: .finished)
    let parts: [Any] = [
      try #require(prefix.subscriberObject), try #require(suffix.subscriberObject),
      try #require(subscriber.subscription),
    ]
    for part in parts {
      #expect((part as? any CustomStringConvertible)?.description == "Concatenate")
      #expect((part as? any CustomReflectable)?.customMirror.children.isEmpty == true)
      #expect((part as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Concatenate")
    }
    subscriber.cancel()
  }

  /// The subscriber is handed the `Concatenate` subscription when the prefix hands over its
  /// subscription, not before the prefix is subscribed; anything the prefix sends before that
  /// is ignored.
  /// Evidence (OpenCombine): ConcatenateTests.swift `testAppendReceiveValueBeforeSubscription`
  /// (`.history([], demand: .none)`), `testAppendReceiveCompletionBeforeSubscription`
  /// (`.history([])`), `testSubscribesToUpstreamThenSendsSubscriptionDownstream` (the
  /// subscriber has `.subscription("Concatenate")` once the prefix has handed over its own).
  @Test func concatenateSubscribesDownstreamWhenThePrefixSubscribes() {
    let prefix = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, Never>(initialDemand: .max(2))
    prefix.append(1, 2, 3).subscribe(subscriber)
    #expect(subscriber.history == [])
    #expect(prefix.send(12) == .none)
    prefix.send(completion: .finished)
    #expect(subscriber.history == [])

    prefix.sendSubscription()
    #expect(subscriber.history == ["subscription(Concatenate)"])
    #expect(subscriber.subscription.map { "\($0)" } == "Concatenate")
    #expect(prefix.events == [.requested(.max(2))])
    #expect(prefix.send(5) == .none)
    prefix.send(completion: .finished)
    #expect(subscriber.history == ["subscription(Concatenate)", "value(5)", "value(1)"])
    subscriber.subscription?.cancel()
    prefix.detach()
  }

  /// With a prefix that finishes at once, the subscriber has its subscription before the
  /// suffix (the operator's upstream here) hands over one.
  /// Evidence (OpenCombine): ConcatenateTests.swift `testPrependReceiveValueBeforeSubscription`
  /// (`.history([.subscription("Concatenate")], demand: .none)`).
  @Test func prependingAnEmptyPublisherSubscribesDownstreamBeforeTheSuffix() {
    let suffix = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, Never>(initialDemand: .none)
    suffix.prepend(Empty()).subscribe(subscriber)
    #expect(subscriber.history == ["subscription(Concatenate)"])
    #expect(subscriber.subscription.map { "\($0)" } == "Concatenate")
    #expect(suffix.send(12) == .none)
    #expect(subscriber.history == ["subscription(Concatenate)"])
    subscriber.subscription?.cancel()
    suffix.detach()
  }

  /// A value beyond the demand, sent from inside the subscriber's `receive(_:)`, is not passed
  /// on. Evidence (OpenCombine): ConcatenateTests.swift `testRecursivelyReceiveValue` (demand 3, each value
  /// sends the next from inside `receive`: history `[1, 2, 3]`, every send answered `.none`).
  @Test func concatenateDropsAValueBeyondDemand() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
    var answers: [Subscribers.Demand] = []
    var remaining = 10
    subscriber.onValue { value in
      guard remaining > 0 else { return }
      remaining -= 1
      answers.append(upstream.send(value + 1))
    }
    upstream.append().subscribe(subscriber)
    #expect(upstream.send(1) == .none)
    #expect(subscriber.values == [1, 2, 3])
    #expect(answers == [.none, .none, .none])
    subscriber.cancel()
    upstream.detach()
  }

  /// Demand the subscriber adds while the suffix is being subscribed (before it has handed over
  /// its subscription) is asked of the suffix along with what was left; after the suffix has
  /// finished, requests go nowhere.
  /// Evidence (OpenCombine): ConcatenateTests.swift `testBackpressure` (`request(.max(7))` from the suffix's
  /// `willSubscribe`: suffix history `[.requested(.max(19))]` for 10 requested, 1 delivered,
  /// 3 returned; then `[.max(19), .unlimited]`, unchanged by `request(.max(42))` after
  /// `.finished`).
  @Test func concatenateCarriesDemandAddedWhileTheSuffixSubscribes() {
    let prefix = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let suffix = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10), demandPerValue: .max(3))
    let lateSuffix = Deferred { () -> HandDrivenUpstream<Int, Never> in
      subscriber.request(.max(7))
      return suffix
    }
    prefix.append(lateSuffix).subscribe(subscriber)
    #expect(prefix.send(3) == .max(3))
    prefix.send(completion: .finished)
    #expect(prefix.events == [.requested(.max(10))])
    #expect(suffix.events == [.requested(.max(19))])
    subscriber.request(.unlimited)
    #expect(suffix.events == [.requested(.max(19)), .requested(.unlimited)])
    suffix.send(completion: .finished)
    subscriber.request(.max(42))
    #expect(suffix.events == [.requested(.max(19)), .requested(.unlimited)])
    #expect(subscriber.events == [.subscription, .value(3), .completion(.finished)])
    prefix.detach()
    suffix.detach()
  }

  /// After the suffix has finished, a further subscription is cancelled and a further value is
  /// answered with `.none`. Evidence (OpenCombine): ConcatenateTests.swift `testAppendBasicBehavior`
  /// (`publisher2.send(7) == .none`; `subscription3.history == [.cancelled]`).
  @Test func concatenateIgnoresTheSuffixAfterItFinished() {
    let prefix = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let suffix = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10), demandPerValue: .max(1))
    prefix.append(suffix).subscribe(subscriber)
    #expect(prefix.send(1) == .max(1))
    prefix.send(completion: .finished)
    #expect(suffix.events == [.requested(.max(10))])
    #expect(suffix.send(5) == .max(1))
    suffix.send(completion: .finished)
    #expect(suffix.send(7) == .none)
    let late = SpySubscription()
    suffix.sendSubscription(late)
    #expect(late.events == [.cancelled])
    #expect(subscriber.events == [.subscription, .value(1), .value(5), .completion(.finished)])
    prefix.detach()
    suffix.detach()
  }

  /// A failure sent again from inside the subscriber's `receive(completion:)` is not delivered
  /// a second time. Evidence (OpenCombine): ConcatenateTests.swift `testRecursivelyReceiveFailure` (history
  /// `[.subscription("Concatenate"), .completion(.failure(.oops))]`).
  @Test func concatenateDeliversAReenteredFailureOnce() {
    let upstream = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
    let subscriber = RecordingSubscriber<Int, ParityFailure>(initialDemand: .none)
    var remaining = 10
    subscriber.onCompletion = { _ in
      guard remaining > 0 else { return }
      remaining -= 1
      upstream.send(completion: .failure(.oops))
    }
    upstream.append().subscribe(subscriber)
    upstream.send(completion: .failure(.oops))
    #expect(subscriber.history == ["subscription(Concatenate)", "failure(oops)"])
    upstream.detach()
  }

  @Test func concatenateCancelledOnSubscribeNeverSubscribesTheSuffix() {
    let prefix = HandDrivenUpstream<Int, Never>()
    let suffix = HandDrivenUpstream<Int, Never>()
    let cancelling = RequestThenCancelSubscriber<Int, Never>(requestFirst: .max(1))
    Publishers.Concatenate(prefix: prefix, suffix: suffix).subscribe(cancelling)
    #expect(prefix.requests == [.max(1)])
    #expect(prefix.cancelCount == 1)
    prefix.send(completion: .finished)
    #expect(suffix.requests.isEmpty && suffix.cancelCount == 0)
    #expect(cancelling.events.isEmpty)
  }

  @Test func concatenateCarriesUnmetDemandToTheSuffix() {
    let prefix = HandDrivenUpstream<Int, Never>()
    let suffix = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
    Publishers.Concatenate(prefix: prefix, suffix: suffix).subscribe(subscriber)
    prefix.send(1)
    prefix.send(completion: .finished)
    #expect(suffix.requests == [.max(2)])
    suffix.send(2)
    suffix.send(3)
    suffix.send(4)  // beyond demand: dropped
    suffix.send(completion: .finished)
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }
}

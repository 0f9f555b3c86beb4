import Conduit
import ConduitTesting
import Testing

private struct ReplaceEmptyTestError: Error, Equatable {}

@Suite(.leakChecked)
struct ReplaceEmptyTests {
  @Test func replacesAnEmptyStream() {
    let subscriber = TestSubscriber<Int, Never>()
    Empty<Int, Never>().replaceEmpty(with: 42).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(42), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func leavesAStreamWithValuesAlone() {
    let subscriber = TestSubscriber<Int, Never>()
    [1, 2].publisher.eraseToAnyPublisher().replaceEmpty(with: 42).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func aFailureIsNotReplaced() {
    let upstream = HandDrivenUpstream<Int, ReplaceEmptyTestError>()
    let subscriber = TestSubscriber<Int, ReplaceEmptyTestError>()
    upstream.replaceEmpty(with: 42).subscribe(subscriber)
    upstream.send(completion: .failure(ReplaceEmptyTestError()))
    #expect(subscriber.events == [.subscription, .completion(.failure(ReplaceEmptyTestError()))])
  }

  @Test func waitsForDemandBeforeDeliveringTheReplacement() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.replaceEmpty(with: 42).subscribe(subscriber)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(42), .completion(.finished)])
    subscriber.request(.max(1))
    #expect(subscriber.events.count == 3)
    #expect(subscriber.violations.isEmpty)
  }

  // As in Combine (ReplaceEmptyTests.testDemand): once the subscriber has its subscription,
  // upstream is asked for everything, after what the subscriber asked for from inside
  // `receive(subscription:)`; the subscriber's later requests go up too.
  @Test func asksUpstreamForEverythingAndPassesDemandOn() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(2))
    upstream.replaceEmpty(with: 42).subscribe(subscriber)
    #expect(upstream.link?.requests == [.max(1), .unlimited])
    #expect(upstream.send(1) == .max(2))
    subscriber.request(.max(3))
    #expect(upstream.link?.requests == [.max(1), .unlimited, .max(3)])
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
  }

  // Unlike Combine, which passes them on at once: having asked upstream for everything, it
  // holds the values the subscriber has not asked for, in order, and the completion behind them.
  @Test func holdsValuesBeyondTheDemandUntilTheSubscriberAsks() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    (1...3).publisher.eraseToAnyPublisher().replaceEmpty(with: 0).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1)])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .value(2)])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aFailureWaitsBehindTheValuesHeld() {
    let upstream = HandDrivenUpstream<Int, ReplaceEmptyTestError>(conduct: .careless)
    let subscriber = TestSubscriber<Int, ReplaceEmptyTestError>(initialDemand: .none)
    upstream.replaceEmpty(with: 0).subscribe(subscriber)
    #expect(upstream.send(1) == .none)
    #expect(upstream.send(2) == .none)
    upstream.send(completion: .failure(ReplaceEmptyTestError()))
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1)])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.failure(ReplaceEmptyTestError()))])
  }

  // The values held go out from the subscriber's request, and one that comes meanwhile waits its
  // turn behind them.
  @Test func aValueFromInsideADeliveryWaitsBehindTheValuesHeld() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    subscriber.onValue { value in
      if value == 1 { _ = upstream.send(3) }
    }
    upstream.replaceEmpty(with: 0).subscribe(subscriber)
    _ = upstream.send(1)
    _ = upstream.send(2)
    subscriber.request(.unlimited)
    #expect(subscriber.values == [1, 2, 3])
    upstream.send(completion: .finished)
    #expect(subscriber.completion == .finished)
  }

  // Found by differential fuzzing: under `zip`, which subscribes its upstreams before its
  // subscriber has asked for anything, `retry` got the values that `replaceEmpty` passed on
  // beyond the demand and stopped the process.
  @Test func retryBelowAReplaceEmptyGetsNoValueItDidNotAskFor() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    (0..<3).publisher.replaceEmpty(with: 7).retry(1).subscribe(subscriber)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(2))
    #expect(subscriber.values == [0, 1])
    subscriber.request(.max(2))
    #expect(subscriber.events == [.subscription, .value(0), .value(1), .value(2), .completion(.finished)])
  }

  @Test func aCancelFromInsideReceiveSubscriptionAsksUpstreamForNothing() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = AnySubscriber<Int, Never>(
      receiveSubscription: { $0.cancel() }, receiveValue: { _ in .none }, receiveCompletion: { _ in })
    upstream.replaceEmpty(with: 0).subscribe(subscriber)
    #expect(upstream.requests.isEmpty)
    #expect(upstream.cancelCount == 1)
  }

  // As in Combine (ReplaceEmptyTests.testReplaceEmptyCancelBeforeSubscription): a cancel before
  // upstream's subscription changes nothing; the subscription arriving later is asked for
  // everything.
  @Test func aCancelBeforeTheSubscriptionChangesNothing() throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = TestSubscriber<Int, Never>()
    upstream.replaceEmpty(with: 7).subscribe(subscriber)

    try #require(upstream.subscriberAsSubscription).cancel()
    upstream.sendSubscription()
    #expect(upstream.requests == [.unlimited, .unlimited])
    #expect(upstream.cancelCount == 0)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(7), .completion(.finished)])
  }

  // As in Combine: a request before upstream's subscription counts for the replacement.
  @Test func aRequestBeforeTheSubscriptionCountsForTheReplacement() throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.replaceEmpty(with: 7).subscribe(subscriber)

    try #require(upstream.subscriberAsSubscription).request(.max(1))
    upstream.sendSubscription()
    #expect(upstream.requests == [.unlimited])
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(7), .completion(.finished)])
  }

  // ReplaceEmptyTests.testReplaceEmptyReflection.
  @Test func describesItselfAsCombineDoes() throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    upstream.replaceEmpty(with: 0).subscribe(TestSubscriber<Int, Never>())
    let inner = try #require(upstream.subscriberAsSubscription)

    #expect(String(describing: inner) == "ReplaceEmpty")
    #expect((inner as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "ReplaceEmpty")
    let mirror = try #require((inner as? any CustomReflectable)?.customMirror)
    #expect(mirror.children.isEmpty)
    #expect(!(inner is any CustomDebugStringConvertible))
  }

  @Test func cancelReachesUpstreamAndStopsEverything() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.replaceEmpty(with: 42).subscribe(subscriber)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])
  }

  @Test func cancelWhileTheReplacementWaitsForDemand() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.replaceEmpty(with: 42).subscribe(subscriber)
    let subscription = subscriber.subscription
    upstream.send(completion: .finished)
    subscriber.cancel()
    subscription?.request(.max(1))
    #expect(subscriber.events == [.subscription])
  }

  @Test func exposesItsPartsAndIsEquatable() {
    let replace = Publishers.ReplaceEmpty(upstream: Empty<Int, Never>(), output: 1)
    #expect(replace.output == 1)
    #expect(replace == Publishers.ReplaceEmpty(upstream: Empty<Int, Never>(), output: 1))
    #expect(replace != Publishers.ReplaceEmpty(upstream: Empty<Int, Never>(), output: 2))
  }
}

@Suite(.leakChecked)
struct ReplaceEmptyStressTests {
  @Test func cancelRacingValuesStopsDelivery() {
    expectCancelRacingValuesStopsDelivery { subject, subscriber in subject.replaceEmpty(with: -1).subscribe(subscriber)
    }
  }

  @Test func requestAndCancelFromInsideReceiveStopAtTheCancel() {
    expectRequestAndCancelFromInsideReceiveStopsAtTheCancel { subject, subscriber in
      subject.replaceEmpty(with: -1).subscribe(subscriber)
    }
  }
}

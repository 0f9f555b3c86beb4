import Conduit
import ConduitTesting
import Testing

private struct PrefixWhileTestError: Error, Equatable {}

@Suite(.leakChecked)
struct PrefixWhileTests {
  @Test func republishesWhileThePredicateHolds() {
    let subscriber = TestSubscriber<Int, Never>()
    [1, 2, 5, 1].publisher.eraseToAnyPublisher().prefix(while: { $0 < 3 }).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func theFirstRejectedValueCancelsUpstreamAndFinishes() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.prefix(while: { $0 < 3 }).subscribe(subscriber)
    #expect(upstream.send(1) == .none)
    upstream.send(3)
    #expect(upstream.link?.isCancelled == true)
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func stopsAskingThePredicateAfterTheEnd() {
    var calls: [Int] = []
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.prefix(while: {
      calls.append($0); return $0 < 3
    }).subscribe(subscriber)
    upstream.send(1)
    upstream.send(4)
    upstream.send(2)
    #expect(calls == [1, 4])
  }

  @Test func passesUpstreamCompletionThrough() {
    let finishing = TestSubscriber<Int, Never>()
    [1, 2].publisher.eraseToAnyPublisher().prefix(while: { _ in true }).subscribe(finishing)
    #expect(finishing.events == [.subscription, .value(1), .value(2), .completion(.finished)])

    let upstream = HandDrivenUpstream<Int, PrefixWhileTestError>()
    let failing = TestSubscriber<Int, PrefixWhileTestError>()
    upstream.prefix(while: { _ in true }).subscribe(failing)
    upstream.send(1)
    upstream.send(completion: .failure(PrefixWhileTestError()))
    #expect(failing.events == [.subscription, .value(1), .completion(.failure(PrefixWhileTestError()))])
  }

  @Test func neverDeliversBeyondDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    (1...10).publisher.eraseToAnyPublisher().prefix(while: { $0 < 4 }).subscribe(subscriber)
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion == nil)
    subscriber.request(.max(5))
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func passesDemandStraightUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: .max(1))
    upstream.prefix(while: { _ in true }).subscribe(subscriber)
    #expect(upstream.send(1) == .max(1))
    subscriber.request(.max(3))
    #expect(upstream.link?.requests == [.max(2), .max(3)])
    subscriber.cancel()
  }

  @Test func cancelReachesUpstreamAndStopsValues() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.prefix(while: { _ in true }).subscribe(subscriber)
    upstream.send(1)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    upstream.send(2)
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  @Test func oneValueAtATimeDoesNotGrowTheStack() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (1...100_000).publisher.eraseToAnyPublisher().prefix(while: { $0 <= 60_000 }).subscribe(subscriber)
    #expect(subscriber.values.count == 60_000)
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func exposesItsParts() {
    let prefixWhile = Publishers.PrefixWhile(upstream: Just(1), predicate: { $0 > 0 })
    #expect(prefixWhile.upstream == Just(1))
    #expect(prefixWhile.predicate(1))
  }

  // MARK: Its own subscription, as Combine's

  @Test func theSubscriberGetsTheOperatorsOwnSubscription() {
    expectOwnSubscription(named: "PrefixWhile", mirrorLabels: ["downstream"]) { $0.prefix { _ in true } }
  }

  @Test func afterTheStreamEndsRequestsAndCancelsStayHere() {
    expectEndedStreamPassesNothingUpstream(after: [.cancelled], { $0.prefix { $0 < 1 } }) {
      $0.send(1)
    }
    expectEndedStreamPassesNothingUpstream(after: [], { $0.prefix { _ in true } }) {
      $0.send(completion: .finished)
    }
  }

  @Test func cancelReachesUpstreamOnceAndEndsTheStream() {
    expectCancelEndsTheStream(named: "PrefixWhile", sending: 1) { $0.prefix { _ in true } }
  }

  @Test func whatComesBeforeTheSubscriptionIsHandledAsInCombine() {
    expectEarlyEvents(.cancelEnds, named: "PrefixWhile") { $0.prefix { _ in true } }
  }

  @Test func aValueBeforeTheSubscriptionStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless, sendsSubscription: false)
      upstream.prefix { _ in true }.subscribe(TestSubscriber<Int, ParityError>(initialDemand: .none))
      upstream.send(1)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Subscriber.receive(_:) before receive(subscription:)"))
  }

  @Test func requestingNoneStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless)
      let subscriber = TestSubscriber<Int, ParityError>(initialDemand: .none)
      upstream.prefix { _ in true }.subscribe(subscriber)
      subscriber.subscription?.request(.none)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Subscription.request(.none)"))
  }
}

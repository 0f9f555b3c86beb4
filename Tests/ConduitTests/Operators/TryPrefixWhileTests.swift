import Conduit
import ConduitTesting
import Testing

private enum TryPrefixWhileTestError: Error, Equatable {
  case upstream
  case predicate
}

@Suite(.leakChecked)
struct TryPrefixWhileTests {
  @Test func republishesWhileThePredicateHolds() {
    let subscriber = TestSubscriber<Int, any Error>()
    [1, 2, 5, 1].publisher.eraseToAnyPublisher().tryPrefix(while: { $0 < 3 }).subscribe(subscriber)
    #expect(subscriber.values == [1, 2])
    #expect(isFinished(subscriber))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func theFirstRejectedValueCancelsUpstreamAndFinishes() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryPrefix(while: { $0 < 3 }).subscribe(subscriber)
    upstream.send(1)
    upstream.send(3)
    #expect(upstream.link?.isCancelled == true)
    #expect(subscriber.values == [1])
    #expect(isFinished(subscriber))
    upstream.send(2)
    #expect(subscriber.values == [1])
  }

  @Test func aThrownErrorFailsTheStreamAndCancelsUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryPrefix(while: { value in
      if value < 0 { throw TryPrefixWhileTestError.predicate }
      return true
    }).subscribe(subscriber)
    upstream.send(1)
    upstream.send(-1)
    #expect(upstream.link?.isCancelled == true)
    #expect(subscriber.values == [1])
    #expect(failure(of: subscriber, as: TryPrefixWhileTestError.self) == .predicate)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(subscriber.events.count == 3)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func forwardsUpstreamFailureAsAnyError() {
    let upstream = HandDrivenUpstream<Int, TryPrefixWhileTestError>()
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryPrefix(while: { _ in true }).subscribe(subscriber)
    upstream.send(1)
    upstream.send(completion: .failure(.upstream))
    #expect(subscriber.values == [1])
    #expect(failure(of: subscriber, as: TryPrefixWhileTestError.self) == .upstream)
  }

  @Test func neverDeliversBeyondDemand() {
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(1))
    (1...10).publisher.eraseToAnyPublisher().tryPrefix(while: { $0 < 3 }).subscribe(subscriber)
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == nil)
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2])
    subscriber.request(.max(1))
    #expect(isFinished(subscriber))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelReachesUpstreamAndStopsValues() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryPrefix(while: { _ in true }).subscribe(subscriber)
    upstream.send(1)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    upstream.send(2)
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == nil)
  }

  @Test func throwFromInsideAOneAtATimeSequence() {
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(1), demandPerValue: .max(1))
    (1...100_000).publisher.eraseToAnyPublisher()
      .tryPrefix(while: { value in
        if value > 50_000 { throw TryPrefixWhileTestError.predicate }
        return true
      })
      .subscribe(subscriber)
    #expect(subscriber.values.count == 50_000)
    #expect(failure(of: subscriber, as: TryPrefixWhileTestError.self) == .predicate)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func exposesItsParts() throws {
    let tryPrefixWhile = Publishers.TryPrefixWhile(upstream: Just(1), predicate: { $0 > 0 })
    #expect(tryPrefixWhile.upstream == Just(1))
    #expect(try tryPrefixWhile.predicate(1))
  }

  // MARK: Its own subscription, as Combine's

  @Test func theSubscriberGetsTheOperatorsOwnSubscription() {
    expectOwnSubscription(named: "TryPrefixWhile", mirrorLabels: ["downstream"]) { $0.tryPrefix { _ in true } }
  }

  @Test func afterTheStreamEndsRequestsAndCancelsStayHere() {
    expectEndedStreamPassesNothingUpstream(
      after: [.cancelled], { $0.tryPrefix { _ in throw TryPrefixWhileTestError.predicate } }
    ) {
      $0.send(1)
    }
    expectEndedStreamPassesNothingUpstream(after: [.cancelled], { $0.tryPrefix { $0 < 1 } }) {
      $0.send(1)
    }
    expectEndedStreamPassesNothingUpstream(after: [], { $0.tryPrefix { _ in true } }) {
      $0.send(completion: .finished)
    }
  }

  @Test func cancelReachesUpstreamOnceAndEndsTheStream() {
    expectCancelEndsTheStream(named: "TryPrefixWhile", sending: 1) { $0.tryPrefix { _ in true } }
  }

  @Test func whatComesBeforeTheSubscriptionIsHandledAsInCombine() {
    expectEarlyEvents(.cancelEnds, named: "TryPrefixWhile") { $0.tryPrefix { _ in true } }
  }

  @Test func aValueBeforeTheSubscriptionStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless, sendsSubscription: false)
      upstream.tryPrefix { _ in true }.subscribe(TestSubscriber<Int, any Error>(initialDemand: .none))
      upstream.send(1)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Subscriber.receive(_:) before receive(subscription:)"))
  }
}

import Conduit
import ConduitTesting
import Testing

private enum TryDropWhileTestError: Error, Equatable {
  case upstream
  case predicate
}

@Suite(.leakChecked)
struct TryDropWhileTests {
  @Test func dropsUntilThePredicateFails() {
    let subscriber = TestSubscriber<Int, any Error>()
    [1, 2, 5, 1].publisher.eraseToAnyPublisher().tryDrop(while: { $0 < 3 }).subscribe(subscriber)
    #expect(subscriber.values == [5, 1])
    #expect(subscriber.completion.map(isFinished) == true)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aThrownErrorFailsTheStreamAndCancelsUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryDrop(while: { value in
      if value < 0 { throw TryDropWhileTestError.predicate }
      return true
    }).subscribe(subscriber)
    upstream.send(1)
    upstream.send(-1)
    #expect(upstream.link?.isCancelled == true)
    #expect(subscriber.values.isEmpty)
    #expect(failure(of: subscriber, as: TryDropWhileTestError.self) == .predicate)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(subscriber.events.count == 2)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func stopsAskingThePredicateOnceAValuePasses() {
    var calls: [Int] = []
    let subscriber = TestSubscriber<Int, any Error>()
    [1, 5, -1, 2].publisher.eraseToAnyPublisher()
      .tryDrop(while: { value in
        calls.append(value)
        if value < 0 { throw TryDropWhileTestError.predicate }
        return value < 3
      })
      .subscribe(subscriber)
    #expect(calls == [1, 5])
    #expect(subscriber.values == [5, -1, 2])
    #expect(subscriber.completion.map(isFinished) == true)
  }

  @Test func forwardsUpstreamFailureAsAnyError() {
    let upstream = HandDrivenUpstream<Int, TryDropWhileTestError>()
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryDrop(while: { $0 < 3 }).subscribe(subscriber)
    upstream.send(3)
    upstream.send(completion: .failure(.upstream))
    #expect(subscriber.values == [3])
    #expect(failure(of: subscriber, as: TryDropWhileTestError.self) == .upstream)
  }

  @Test func replacesEachDroppedValueWithDemandUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(1))
    upstream.tryDrop(while: { $0 < 3 }).subscribe(subscriber)
    #expect(upstream.link?.requests == [.max(1)])
    #expect(upstream.send(1) == .max(1))
    #expect(upstream.send(3) == .none)
    #expect(subscriber.values == [3])
    subscriber.request(.max(1))
    #expect(upstream.link?.requests == [.max(1), .max(1)])
    upstream.send(completion: .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelReachesUpstreamAndStopsValues() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryDrop(while: { $0 < 2 }).subscribe(subscriber)
    upstream.send(2)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    upstream.send(3)
    #expect(subscriber.values == [2])
    #expect(subscriber.completion == nil)
  }

  @Test func throwingOnTheFirstValueOfASequence() {
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(1), demandPerValue: .max(1))
    (1...1_000).publisher.eraseToAnyPublisher()
      .tryDrop(while: { _ in throw TryDropWhileTestError.predicate })
      .subscribe(subscriber)
    #expect(subscriber.values.isEmpty)
    #expect(failure(of: subscriber, as: TryDropWhileTestError.self) == .predicate)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func exposesItsParts() throws {
    let tryDropWhile = Publishers.TryDropWhile(upstream: Just(1), predicate: { $0 > 0 })
    #expect(tryDropWhile.upstream == Just(1))
    #expect(try tryDropWhile.predicate(1))
  }

  // MARK: Its own subscription, as Combine's

  @Test func theSubscriberGetsTheOperatorsOwnSubscription() {
    expectOwnSubscription(named: "TryDropWhile", mirrorLabels: []) { $0.tryDrop { _ in false } }
  }

  @Test func afterTheStreamEndsRequestsAndCancelsStayHere() {
    expectEndedStreamPassesNothingUpstream(
      after: [.cancelled], { $0.tryDrop { _ in throw TryDropWhileTestError.predicate } }
    ) {
      $0.send(1)
    }
    expectEndedStreamPassesNothingUpstream(after: [], { $0.tryDrop { _ in false } }) {
      $0.send(completion: .finished)
    }
  }

  @Test func cancelReachesUpstreamOnceAndEndsTheStream() {
    expectCancelEndsTheStream(named: "TryDropWhile", sending: 1) { $0.tryDrop { _ in false } }
  }

  @Test func whatComesBeforeTheSubscriptionIsHandledAsInCombine() {
    expectEarlyEvents(.ignored, named: "TryDropWhile") { $0.tryDrop { _ in false } }
  }

  @Test func aValueBeforeTheSubscriptionIsIgnored() {
    let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, any Error>(demandPerValue: .max(3))
    var calls = 0
    upstream
      .tryDrop { _ in
        calls += 1
        return false
      }
      .subscribe(subscriber)
    #expect(upstream.send(1) == .none)
    #expect(calls == 0)
    #expect(subscriber.history.isEmpty)
    subscriber.forget()
    upstream.detach()
  }

  @Test func requestingNoneStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless)
      let subscriber = RecordingSubscriber<Int, any Error>()
      upstream.tryDrop { _ in false }.subscribe(subscriber)
      subscriber.subscription?.request(.none)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Subscription.request(.none)"))
  }
}

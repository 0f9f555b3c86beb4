import Conduit
import ConduitTesting
import Testing

private struct DropWhileTestError: Error, Equatable {}

@Suite(.leakChecked)
struct DropWhileTests {
  @Test func dropsUntilThePredicateFails() {
    let subscriber = TestSubscriber<Int, Never>()
    [1, 2, 5, 1, 2].publisher.eraseToAnyPublisher().drop(while: { $0 < 3 }).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(5), .value(1), .value(2), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func stopsAskingThePredicateOnceAValuePasses() {
    var calls: [Int] = []
    let subscriber = TestSubscriber<Int, Never>()
    [1, 2, 5, 1, 2].publisher.eraseToAnyPublisher()
      .drop(while: {
        calls.append($0); return $0 < 3
      })
      .subscribe(subscriber)
    #expect(calls == [1, 2, 5])
  }

  @Test func dropsEverythingWhenThePredicateAlwaysHolds() {
    let subscriber = TestSubscriber<Int, Never>()
    [1, 2].publisher.eraseToAnyPublisher().drop(while: { _ in true }).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func forwardsFailure() {
    let upstream = HandDrivenUpstream<Int, DropWhileTestError>()
    let subscriber = TestSubscriber<Int, DropWhileTestError>()
    upstream.drop(while: { $0 < 3 }).subscribe(subscriber)
    upstream.send(1)
    upstream.send(3)
    upstream.send(completion: .failure(DropWhileTestError()))
    #expect(subscriber.events == [.subscription, .value(3), .completion(.failure(DropWhileTestError()))])
  }

  @Test func replacesEachDroppedValueWithDemandUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.drop(while: { $0 < 3 }).subscribe(subscriber)
    #expect(upstream.link?.requests == [.max(1)])
    #expect(upstream.send(1) == .max(1))
    #expect(upstream.send(2) == .max(1))
    #expect(upstream.send(3) == .none)
    #expect(subscriber.values == [3])
    upstream.send(completion: .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func neverDeliversBeyondDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    (1...10).publisher.eraseToAnyPublisher().drop(while: { $0 < 4 }).subscribe(subscriber)
    #expect(subscriber.values == [4])
    subscriber.request(.max(2))
    #expect(subscriber.values == [4, 5, 6])
    subscriber.cancel()
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelReachesUpstreamAndStopsValues() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.drop(while: { $0 < 2 }).subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    upstream.send(3)
    #expect(subscriber.events == [.subscription, .value(2)])
  }

  @Test func cancelFromInsideTheFirstPassingValue() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { _ in subscriber.cancel() }
    subject.drop(while: { $0 < 2 }).subscribe(subscriber)
    subject.send(1)
    subject.send(2)
    subject.send(3)
    #expect(subscriber.values == [2])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func oneValueAtATimeDoesNotGrowTheStack() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (1...100_000).publisher.eraseToAnyPublisher().drop(while: { $0 <= 99_990 }).subscribe(subscriber)
    #expect(subscriber.values == Array(99_991...100_000))
    #expect(subscriber.completion == .finished)
  }

  @Test func exposesItsParts() {
    let dropWhile = Publishers.DropWhile(upstream: Just(1), predicate: { $0 > 0 })
    #expect(dropWhile.upstream == Just(1))
    #expect(dropWhile.predicate(1))
    #expect(!dropWhile.predicate(0))
  }

  // MARK: Its own subscription, as Combine's

  @Test func theSubscriberGetsTheOperatorsOwnSubscription() {
    expectOwnSubscription(named: "DropWhile", mirrorLabels: []) { $0.drop { _ in false } }
  }

  @Test func afterTheStreamEndsRequestsAndCancelsStayHere() {
    expectEndedStreamPassesNothingUpstream(after: [], { $0.drop { _ in false } }) {
      $0.send(completion: .finished)
    }
  }

  @Test func cancelReachesUpstreamOnceAndEndsTheStream() {
    expectCancelEndsTheStream(named: "DropWhile", sending: 1) { $0.drop { _ in false } }
  }

  @Test func whatComesBeforeTheSubscriptionIsHandledAsInCombine() {
    expectEarlyEvents(.ignored, named: "DropWhile") { $0.drop { _ in false } }
  }

  @Test func aValueBeforeTheSubscriptionIsIgnored() {
    let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, ParityError>(demandPerValue: .max(3))
    var calls = 0
    upstream
      .drop { _ in
        calls += 1
        return false
      }
      .subscribe(subscriber)
    #expect(upstream.send(1) == .none)
    #expect(calls == 0)
    #expect(subscriber.history.isEmpty)
    upstream.sendSubscription()
    #expect(upstream.send(2) == .max(3))
    #expect(subscriber.history == ["subscription(DropWhile)", "value(2)"])
    subscriber.forget()
    upstream.detach()
  }

  @Test func requestingNoneStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless)
      let subscriber = RecordingSubscriber<Int, ParityError>()
      upstream.drop { _ in false }.subscribe(subscriber)
      subscriber.subscription?.request(.none)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Subscription.request(.none)"))
  }

  @Test func aCancelFreesASubscriberThatKeepsItsSubscription() {
    expectCancelFreesASubscriberThatKeepsItsSubscription { subject, captured in
      subject.drop { _ in withExtendedLifetime(captured) { false } }
    }
  }
}

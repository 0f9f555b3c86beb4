import Conduit
import ConduitTesting
import Testing

private struct TryFilterTestError: Error, Equatable {
  var code = 0
}

@Suite(.leakChecked)
struct TryFilterTests {
  @Test func republishesMatchingValues() {
    let subscriber = TestSubscriber<Int, any Error>()
    (1...6).publisher.eraseToAnyPublisher().tryFilter { $0.isMultiple(of: 3) }.subscribe(subscriber)
    #expect(subscriber.values == [3, 6])
    #expect(isFinished(subscriber))
  }

  @Test func upstreamFailureBecomesAnyError() {
    let subject = PassthroughSubject<Int, TryFilterTestError>()
    let subscriber = TestSubscriber<Int, any Error>()
    subject.tryFilter { _ in true }.subscribe(subscriber)
    subject.send(1)
    subject.send(completion: .failure(TryFilterTestError(code: 5)))
    #expect(subscriber.values == [1])
    #expect(failure(of: subscriber, as: TryFilterTestError.self) == TryFilterTestError(code: 5))
  }

  @Test func thrownErrorCancelsUpstreamAndFailsDownstream() {
    let upstream = HandDrivenUpstream<Int, Never>()
    upstream.conduct = .ignoresCancel
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryFilter { value -> Bool in
      if value < 0 { throw TryFilterTestError(code: value) }
      return true
    }
    .subscribe(subscriber)
    upstream.send(1)
    upstream.send(-1)
    #expect(upstream.cancelCount == 1)
    upstream.send(2)
    #expect(subscriber.values == [1])
    #expect(failure(of: subscriber, as: TryFilterTestError.self) == TryFilterTestError(code: -1))
    upstream.send(completion: .finished)
    #expect(failure(of: subscriber, as: TryFilterTestError.self) == TryFilterTestError(code: -1))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func droppedValueIsReplacedByUpstreamDemand() {
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(2))
    [1, 2, 3, 4, 5, 6].publisher.eraseToAnyPublisher().tryFilter { $0.isMultiple(of: 2) }.subscribe(subscriber)
    #expect(subscriber.values == [2, 4])
    #expect(subscriber.completion == nil)
    subscriber.request(.max(1))
    #expect(subscriber.values == [2, 4, 6])
    #expect(isFinished(subscriber))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelGoesStraightUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(3))
    upstream.tryFilter { _ in true }.subscribe(subscriber)
    #expect(upstream.requests == [.max(3)])
    subscriber.cancel()
    #expect(upstream.cancelCount == 1)
  }

  @Test func filterAndTryFilterFuseIntoOneTryFilter() {
    let subject = PassthroughSubject<Int, Never>()
    let base = subject.tryFilter { $0 > 1 }
    let filtered = base.filter { value -> Bool in
      if value == 5 { throw TryFilterTestError(code: 5) }
      return value.isMultiple(of: 2)
    }
    let tried = base.tryFilter { $0 < 4 }
    #expect(type(of: filtered) == Publishers.TryFilter<PassthroughSubject<Int, Never>>.self)
    #expect(type(of: tried) == Publishers.TryFilter<PassthroughSubject<Int, Never>>.self)
    let first = TestSubscriber<Int, any Error>()
    let second = TestSubscriber<Int, any Error>()
    filtered.subscribe(first)
    tried.subscribe(second)
    for value in 1...6 { subject.send(value) }
    subject.send(completion: .finished)
    #expect(first.values == [2, 4])
    #expect(failure(of: first, as: TryFilterTestError.self) == TryFilterTestError(code: 5))
    #expect(second.values == [2, 3])
    #expect(isFinished(second))
  }

  // MARK: Its own subscription, as Combine's

  @Test func theSubscriberGetsTheOperatorsOwnSubscription() {
    expectOwnSubscription(named: "TryFilter", mirrorLabels: ["downstream"]) { $0.tryFilter { _ in true } }
  }

  @Test func afterAThrowOrACompletionRequestsAndCancelsStayHere() {
    expectEndedStreamPassesNothingUpstream(after: [.cancelled], { $0.tryFilter { _ in throw TryFilterTestError() } }) {
      $0.send(1)
    }
    expectEndedStreamPassesNothingUpstream(after: [], { $0.tryFilter { _ in true } }) {
      $0.send(completion: .finished)
    }
  }

  @Test func cancelReachesUpstreamOnceAndEndsTheStream() {
    expectCancelEndsTheStream(named: "TryFilter", sending: 1) { $0.tryFilter { _ in true } }
  }

  @Test func aCancelBeforeTheSubscriptionCancelsItWhenItComes() {
    expectEarlyEvents(.cancelEnds, named: "TryFilter") { $0.tryFilter { _ in true } }
  }

  @Test func aValueBeforeTheSubscriptionStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless, sendsSubscription: false)
      upstream.tryFilter { _ in true }.subscribe(TestSubscriber<Int, any Error>(initialDemand: .none))
      upstream.send(1)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Subscriber.receive(_:) before receive(subscription:)"))
  }

  @Test func aCompletionBeforeTheSubscriptionStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless, sendsSubscription: false)
      upstream.tryFilter { _ in true }.subscribe(TestSubscriber<Int, any Error>(initialDemand: .none))
      upstream.send(completion: .finished)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Subscriber.receive(completion:) before receive(subscription:)"))
  }

  @Test func aRequestBeforeTheSubscriptionStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless, sendsSubscription: false)
      upstream.tryFilter { _ in true }.subscribe(TestSubscriber<Int, any Error>(initialDemand: .none))
      upstream.subscriberAsSubscription?.request(.max(1))
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Subscription.request(_:) before the subscriber received the subscription"))
  }

  @Test func requestingNoneStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless)
      let subscriber = TestSubscriber<Int, any Error>(initialDemand: .none)
      upstream.tryFilter { _ in true }.subscribe(subscriber)
      subscriber.subscription?.request(.none)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Subscription.request(.none)"))
  }

  @Test func aCancelFreesASubscriberThatKeepsItsSubscription() {
    expectCancelFreesASubscriberThatKeepsItsSubscription { subject, captured in
      subject.tryFilter { _ in withExtendedLifetime(captured) { true } }
    }
  }
}

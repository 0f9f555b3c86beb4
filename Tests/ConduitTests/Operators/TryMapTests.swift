import Conduit
import ConduitTesting
import Testing

private struct TryMapTestError: Error, Equatable {
  var code = 0
}

@Suite(.leakChecked)
struct TryMapTests {
  @Test func transformsEveryValue() {
    let subscriber = TestSubscriber<Int, any Error>()
    [1, 2, 3].publisher.eraseToAnyPublisher().tryMap { $0 * 10 }.subscribe(subscriber)
    #expect(subscriber.values == [10, 20, 30])
    guard case .finished = subscriber.completion else {
      Issue.record("expected finished, got \(String(describing: subscriber.completion))")
      return
    }
    #expect(subscriber.violations.isEmpty)
  }

  @Test func upstreamFailureBecomesAnyError() {
    let subject = PassthroughSubject<Int, TryMapTestError>()
    let subscriber = TestSubscriber<Int, any Error>()
    subject.tryMap { $0 }.subscribe(subscriber)
    subject.send(1)
    subject.send(completion: .failure(TryMapTestError(code: 7)))
    #expect(subscriber.values == [1])
    #expect(failure(of: subscriber, as: TryMapTestError.self) == TryMapTestError(code: 7))
  }

  @Test func thrownErrorCancelsUpstreamAndFailsDownstream() {
    let upstream = HandDrivenUpstream<Int, Never>()
    upstream.conduct = .ignoresCancel
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryMap { value -> Int in
      if value == 2 { throw TryMapTestError(code: 2) }
      return value
    }
    .subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    #expect(upstream.cancelCount == 1)
    #expect(subscriber.values == [1])
    #expect(failure(of: subscriber, as: TryMapTestError.self) == TryMapTestError(code: 2))
    // Nothing more reaches downstream, even from an upstream that keeps sending.
    #expect(upstream.send(3) == .none)
    upstream.send(completion: .finished)
    #expect(subscriber.values == [1])
    #expect(failure(of: subscriber, as: TryMapTestError.self) == TryMapTestError(code: 2))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func thrownErrorFromSequenceStopsDelivery() {
    var seen: [Int] = []
    let subscriber = TestSubscriber<Int, any Error>()
    (1...100).publisher.eraseToAnyPublisher()
      .tryMap { value -> Int in
        seen.append(value)
        if value == 3 { throw TryMapTestError(code: 3) }
        return value
      }
      .subscribe(subscriber)
    #expect(seen == [1, 2, 3])
    #expect(subscriber.values == [1, 2])
    #expect(failure(of: subscriber, as: TryMapTestError.self) == TryMapTestError(code: 3))
  }

  @Test func passesDemandThrough() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(2))
    upstream.tryMap { $0 }.subscribe(subscriber)
    subscriber.request(.max(3))
    #expect(upstream.requests == [.max(2), .max(3)])
    upstream.send(completion: .finished)
  }

  @Test func demandFromSequence() {
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(1))
    [1, 2, 3].publisher.eraseToAnyPublisher().tryMap { $0 + 1 }.subscribe(subscriber)
    #expect(subscriber.values == [2])
    subscriber.request(.max(2))
    #expect(subscriber.values == [2, 3, 4])
    #expect(subscriber.completion != nil)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelGoesStraightUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryMap { $0 }.subscribe(subscriber)
    upstream.send(1)
    subscriber.cancel()
    #expect(upstream.cancelCount == 1)
    upstream.send(2)
    #expect(subscriber.values == [1])
  }

  @Test func mapTryMapFusesIntoOneTryMap() {
    let subject = PassthroughSubject<Int, Never>()
    let fused = subject.map { $0 + 1 }.tryMap { value -> Int in
      if value > 5 { throw TryMapTestError() }
      return value * 10
    }
    #expect(type(of: fused) == Publishers.TryMap<PassthroughSubject<Int, Never>, Int>.self)
    let subscriber = TestSubscriber<Int, any Error>()
    fused.subscribe(subscriber)
    subject.send(1)
    subject.send(9)
    #expect(subscriber.values == [20])
    #expect(failure(of: subscriber, as: TryMapTestError.self) == TryMapTestError())
  }

  @Test func tryMapMapAndTryMapTryMapFuse() {
    let subject = PassthroughSubject<Int, Never>()
    let mapped = subject.tryMap { $0 + 1 }.map { "\($0)" }
    #expect(type(of: mapped) == Publishers.TryMap<PassthroughSubject<Int, Never>, String>.self)
    let twice = subject.tryMap { $0 + 1 }.tryMap { value -> Int in
      if value == 3 { throw TryMapTestError(code: 3) }
      return value * 2
    }
    #expect(type(of: twice) == Publishers.TryMap<PassthroughSubject<Int, Never>, Int>.self)
    let strings = TestSubscriber<String, any Error>()
    let ints = TestSubscriber<Int, any Error>()
    mapped.subscribe(strings)
    twice.subscribe(ints)
    subject.send(1)
    subject.send(2)
    subject.send(completion: .finished)
    #expect(strings.values == ["2", "3"])
    #expect(ints.values == [4])
    #expect(failure(of: ints, as: TryMapTestError.self) == TryMapTestError(code: 3))
  }

  @Test func firstClosureThrowingInAFusionStopsTheSecond() {
    var secondCalls = 0
    let subscriber = TestSubscriber<Int, any Error>()
    [1, 2].publisher.eraseToAnyPublisher()
      .tryMap { value -> Int in
        if value == 2 { throw TryMapTestError(code: 9) }
        return value
      }
      .map { value -> Int in
        secondCalls += 1
        return value
      }
      .subscribe(subscriber)
    #expect(secondCalls == 1)
    #expect(failure(of: subscriber, as: TryMapTestError.self) == TryMapTestError(code: 9))
  }

  // MARK: Its own subscription, as Combine's

  @Test func theSubscriberGetsTheOperatorsOwnSubscription() {
    expectOwnSubscription(named: "TryMap", mirrorLabels: []) { $0.tryMap { $0 } }
  }

  @Test func afterTheStreamEndsRequestsAndCancelsStayHere() {
    expectEndedStreamPassesNothingUpstream(after: [.cancelled], { $0.tryMap { _ -> Int in throw TryMapTestError() } }) {
      $0.send(1)
    }
    expectEndedStreamPassesNothingUpstream(after: [], { $0.tryMap { $0 } }) { $0.send(completion: .finished) }
  }

  @Test func cancelReachesUpstreamOnceAndEndsTheStream() {
    expectCancelEndsTheStream(named: "TryMap", sending: 1) { $0.tryMap { $0 } }
  }

  @Test func whatComesBeforeTheSubscriptionIsHandledAsInCombine() {
    expectEarlyEvents(.ignored, named: "TryMap") { $0.tryMap { $0 } }
  }

  @Test func aValueBeforeTheSubscriptionIsTransformedAndPassedOn() {
    let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, any Error>(demandPerValue: .max(4))
    upstream.tryMap { $0 * 10 }.subscribe(subscriber)
    #expect(upstream.send(2) == .max(4))
    #expect(subscriber.history == ["value(20)"])
    subscriber.forget()
    upstream.detach()
  }

  @Test func aThrowBeforeTheSubscriptionFailsTheStreamAndCancelsTheSubscriptionWhenItComes() {
    let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, any Error>()
    upstream.tryMap { _ -> Int in throw TryMapTestError(code: 4) }.subscribe(subscriber)
    #expect(upstream.send(1) == .none)
    upstream.sendSubscription()
    #expect(subscriber.history == ["failure(TryMapTestError(code: 4))"])
    #expect(upstream.events == [.cancelled])
    subscriber.forget()
    upstream.detach()
  }

  @Test func aSecondSubscriptionIsCancelledAndTheFirstStays() {
    let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless)
    let subscriber = RecordingSubscriber<Int, any Error>(initialDemand: .max(1))
    upstream.tryMap { _ -> Int in throw TryMapTestError() }.subscribe(subscriber)
    let second = SpySubscription()
    upstream.sendSubscription(second)
    #expect(second.events == [.cancelled])
    #expect(upstream.events == [.requested(.max(1))])
    upstream.send(0)
    #expect(upstream.events == [.requested(.max(1)), .cancelled])
    #expect(subscriber.history == ["subscription(TryMap)", "failure(TryMapTestError(code: 0))"])
    subscriber.forget()
    upstream.detach()
  }

  @Test func aCancelFromInsideUpstreamsCancelIsNotPassedOnAgain() {
    let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless)
    let subscriber = RecordingSubscriber<Int, any Error>()
    upstream.tryMap { $0 }.subscribe(subscriber)
    var nested = 0
    upstream.onCancel = {
      nested += 1
      if nested < 5 { subscriber.subscription?.cancel() }
    }
    subscriber.subscription?.cancel()
    #expect(upstream.events == [.cancelled])
    subscriber.forget()
    upstream.detach()
  }

  @Test func aRequestFromInsideUpstreamsCancelAtAThrowIsNotPassedOn() {
    let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless)
    let subscriber = RecordingSubscriber<Int, any Error>(initialDemand: .unlimited)
    upstream.tryMap { _ -> Int in throw TryMapTestError() }.subscribe(subscriber)
    upstream.onCancel = { subscriber.subscription?.request(.max(42)) }
    upstream.send(1)
    #expect(upstream.events == [.requested(.unlimited), .cancelled])
    subscriber.forget()
    upstream.detach()
  }

  @Test func aCancelFreesASubscriberThatKeepsItsSubscription() {
    expectCancelFreesASubscriberThatKeepsItsSubscription { subject, captured in
      subject.tryMap { value in withExtendedLifetime(captured) { value } }
    }
  }

  /// tryMap throwing: the stream fails with the thrown error, upstream is cancelled, the value
  /// answers `.none` and nothing more reaches the subscriber. (Matches.)
  /// Evidence (OpenCombine): Tests/OpenCombineTests/PublisherTests/FilterTests.swift
  /// `testTryFilterCompletesWithErrorWhenThrown` (history `[.requested(.unlimited), .cancelled]`);
  /// Sources/OpenCombine/Publishers/Publishers.Map.swift (TryMap's Inner).
  @Test func tryMapThrowFailsAndCancelsUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .unlimited)
    upstream
      .tryMap { value -> Int in
        if value == 5 { throw ParityError() }
        return value
      }
      .subscribe(subscriber)
    #expect(upstream.send(1) == .none)
    #expect(upstream.send(5) == .none)
    #expect(upstream.send(6) == .none)
    #expect(upstream.events == [.requested(.unlimited), .cancelled])
    #expect(subscriber.values == [1])
    #expect(failure(of: subscriber) is ParityError)
    upstream.detach()
  }
}

/// tryMap's subscription takes no lock: cancels and requests from other threads race values.
@Suite(.leakChecked)
struct TryMapStressTests {
  @Test func cancelRacingValuesStopsDelivery() {
    expectCancelRacingValuesStopsDelivery { subject, subscriber in
      subject.setFailureType(to: (any Error).self).tryMap { $0 }.assertNoFailure().subscribe(subscriber)
    }
  }

  @Test func requestAndCancelFromInsideReceiveStopAtTheCancel() {
    expectRequestAndCancelFromInsideReceiveStopsAtTheCancel { subject, subscriber in
      subject.setFailureType(to: (any Error).self).tryMap { $0 }.assertNoFailure().subscribe(subscriber)
    }
  }

  @Test func requestsFromOtherThreadsRaceValues() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .none)
    subject.tryMap { $0 }.subscribe(subscriber)
    runOnThreads(4) { thread in
      if thread < 2 {
        for index in 0..<2_000 { subject.send(index) }
      } else {
        for _ in 0..<1_000 { subscriber.request(.max(1)) }
      }
    }
    // The subject drops what comes without demand; what did come was asked for.
    #expect(subscriber.values.count <= 2_000)
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }
}

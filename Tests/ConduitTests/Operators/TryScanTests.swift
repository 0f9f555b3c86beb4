import Conduit
import ConduitTesting
import Testing

private struct TryScanTestError: Error, Equatable {
  var code = 0
}

@Suite(.leakChecked)
struct TryScanTests {
  @Test func publishesEachRunningResult() {
    let subscriber = TestSubscriber<Int, any Error>()
    let scan: Publishers.TryScan<AnyPublisher<Int, Never>, Int> = (1...4).publisher.eraseToAnyPublisher().tryScan(0, +)
    scan.subscribe(subscriber)
    #expect(subscriber.values == [1, 3, 6, 10])
    #expect(isFinished(subscriber))
  }

  @Test func upstreamFailureBecomesAnyError() {
    let subject = PassthroughSubject<Int, TryScanTestError>()
    let subscriber = TestSubscriber<Int, any Error>()
    subject.tryScan(0, +).subscribe(subscriber)
    subject.send(2)
    subject.send(completion: .failure(TryScanTestError(code: 8)))
    #expect(subscriber.values == [2])
    #expect(failure(of: subscriber, as: TryScanTestError.self) == TryScanTestError(code: 8))
  }

  @Test func thrownErrorCancelsUpstreamAndFailsDownstream() {
    let upstream = HandDrivenUpstream<Int, Never>()
    upstream.conduct = .ignoresCancel
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryScan(10) { total, divisor -> Int in
      if divisor == 0 { throw TryScanTestError(code: total) }
      return total / divisor
    }
    .subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    upstream.send(0)
    #expect(upstream.cancelCount == 1)
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(subscriber.values == [10, 5])
    #expect(failure(of: subscriber, as: TryScanTestError.self) == TryScanTestError(code: 5))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func passesDemandThrough() {
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(2))
    (1...4).publisher.eraseToAnyPublisher().tryScan(0, +).subscribe(subscriber)
    #expect(subscriber.values == [1, 3])
    subscriber.request(.max(2))
    #expect(subscriber.values == [1, 3, 6, 10])
    #expect(isFinished(subscriber))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelGoesStraightUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryScan(0, +).subscribe(subscriber)
    upstream.send(1)
    subscriber.cancel()
    #expect(upstream.cancelCount == 1)
    upstream.send(2)
    #expect(subscriber.values == [1])
  }

  @Test func reentrantSendKeepsOrderAndState() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, any Error>()
    subscriber.onValue { total in
      if total == 1 { subject.send(10) }
    }
    subject.tryScan(0, +).subscribe(subscriber)
    subject.send(1)
    subject.send(100)
    subject.send(completion: .finished)
    #expect(subscriber.values == [1, 11, 111])
    #expect(subscriber.violations.isEmpty)
  }

  // MARK: Its own subscription, as Combine's

  @Test func theSubscriberGetsTheOperatorsOwnSubscription() {
    expectOwnSubscription(named: "TryScan", mirrorLabels: ["downstream", "status", "result"]) {
      $0.tryScan(0) { $0 + $1 }
    }
  }

  @Test func afterTheStreamEndsRequestsAndCancelsStayHere() {
    expectEndedStreamPassesNothingUpstream(after: [.cancelled], { $0.tryScan(0) { _, _ in throw TryScanTestError() } })
    {
      $0.send(1)
    }
    expectEndedStreamPassesNothingUpstream(after: [], { $0.tryScan(0) { $0 + $1 } }) {
      $0.send(completion: .finished)
    }
  }

  @Test func cancelReachesUpstreamOnceAndEndsTheStream() {
    expectCancelEndsTheStream(named: "TryScan", sending: 1) { $0.tryScan(0) { $0 + $1 } }
  }

  @Test func whatComesBeforeTheSubscriptionIsHandledAsInCombine() {
    expectEarlyEvents(.ignored, named: "TryScan") { $0.tryScan(0) { $0 + $1 } }
  }

  @Test func aValueBeforeTheSubscriptionIsScannedAndPassedOn() {
    let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, any Error>(demandPerValue: .max(4))
    upstream.tryScan(10) { $0 + $1 }.subscribe(subscriber)
    #expect(upstream.send(1) == .max(4))
    #expect(subscriber.history == ["value(11)"])
    subscriber.forget()
    upstream.detach()
  }

  @Test func aThrowBeforeTheSubscriptionIsIgnored() {
    // As in Combine: the value is dropped and the stream goes on once the subscription comes.
    let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, any Error>(initialDemand: .max(1))
    upstream
      .tryScan(0) { result, value in
        if value < 0 { throw TryScanTestError() }
        return result + value
      }
      .subscribe(subscriber)
    #expect(upstream.send(-1) == .none)
    upstream.sendSubscription()
    #expect(upstream.send(5) == .none)
    #expect(upstream.events == [.requested(.max(1))])
    #expect(subscriber.history == ["subscription(TryScan)", "value(5)"])
    subscriber.forget()
    upstream.detach()
  }
}

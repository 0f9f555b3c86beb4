import Conduit
import ConduitTesting
import Testing

private struct TryCompactMapTestError: Error, Equatable {
  var code = 0
}

@Suite(.leakChecked)
struct TryCompactMapTests {
  @Test func publishesNonNilResults() {
    let subscriber = TestSubscriber<Int, any Error>()
    ["1", "x", "3"].publisher.eraseToAnyPublisher().tryCompactMap { Int($0) }.subscribe(subscriber)
    #expect(subscriber.values == [1, 3])
    #expect(isFinished(subscriber))
  }

  @Test func upstreamFailureBecomesAnyError() {
    let subject = PassthroughSubject<String, TryCompactMapTestError>()
    let subscriber = TestSubscriber<Int, any Error>()
    subject.tryCompactMap { Int($0) }.subscribe(subscriber)
    subject.send(completion: .failure(TryCompactMapTestError(code: 4)))
    #expect(failure(of: subscriber, as: TryCompactMapTestError.self) == TryCompactMapTestError(code: 4))
  }

  @Test func thrownErrorCancelsUpstreamAndFailsDownstream() {
    let upstream = HandDrivenUpstream<String, Never>()
    upstream.conduct = .ignoresCancel
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryCompactMap { text -> Int? in
      if text.isEmpty { throw TryCompactMapTestError(code: 1) }
      return Int(text)
    }
    .subscribe(subscriber)
    upstream.send("1")
    upstream.send("")
    #expect(upstream.cancelCount == 1)
    upstream.send("2")
    #expect(subscriber.values == [1])
    #expect(failure(of: subscriber, as: TryCompactMapTestError.self) == TryCompactMapTestError(code: 1))
    upstream.send(completion: .finished)
    #expect(failure(of: subscriber, as: TryCompactMapTestError.self) == TryCompactMapTestError(code: 1))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func droppedValueIsReplacedByUpstreamDemand() {
    let upstream = HandDrivenUpstream<String, Never>()
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(2))
    upstream.tryCompactMap { Int($0) }.subscribe(subscriber)
    #expect(upstream.send("x") == .max(1))
    #expect(upstream.send("1") == .none)
    #expect(upstream.requests == [.max(2)])
    upstream.send(completion: .finished)
    #expect(isFinished(subscriber))
  }

  @Test func demandFromSequence() {
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(2))
    ["1", "a", "2", "3"].publisher.eraseToAnyPublisher().tryCompactMap { Int($0) }.subscribe(subscriber)
    #expect(subscriber.values == [1, 2])
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2, 3])
    #expect(isFinished(subscriber))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelGoesStraightUpstream() {
    let upstream = HandDrivenUpstream<String, Never>()
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryCompactMap { Int($0) }.subscribe(subscriber)
    subscriber.cancel()
    #expect(upstream.cancelCount == 1)
    upstream.send("1")
    #expect(subscriber.values.isEmpty)
  }

  @Test func compactMapFusesIntoOneTryCompactMap() {
    let subject = PassthroughSubject<String, Never>()
    let fused = subject.tryCompactMap { Int($0) }.compactMap { value -> Int? in
      if value == 0 { throw TryCompactMapTestError(code: 0) }
      return value > 1 ? value : nil
    }
    #expect(type(of: fused) == Publishers.TryCompactMap<PassthroughSubject<String, Never>, Int>.self)
    let subscriber = TestSubscriber<Int, any Error>()
    fused.subscribe(subscriber)
    for text in ["x", "1", "2", "0", "5"] { subject.send(text) }
    #expect(subscriber.values == [2])
    #expect(failure(of: subscriber, as: TryCompactMapTestError.self) == TryCompactMapTestError(code: 0))
  }

  // MARK: Its own subscription, as Combine's

  @Test func theSubscriberGetsTheOperatorsOwnSubscription() {
    expectOwnSubscription(named: "TryCompactMap", mirrorLabels: ["downstream"]) { $0.tryCompactMap { $0 } }
  }

  @Test func afterTheStreamEndsRequestsAndCancelsStayHere() {
    expectEndedStreamPassesNothingUpstream(
      after: [.cancelled], { $0.tryCompactMap { _ -> Int? in throw TryCompactMapTestError() } }
    ) {
      $0.send(1)
    }
    expectEndedStreamPassesNothingUpstream(after: [], { $0.tryCompactMap { $0 } }) {
      $0.send(completion: .finished)
    }
  }

  @Test func cancelReachesUpstreamOnceAndEndsTheStream() {
    expectCancelEndsTheStream(named: "TryCompactMap", sending: 1) { $0.tryCompactMap { $0 } }
  }

  @Test func whatComesBeforeTheSubscriptionIsHandledAsInCombine() {
    expectEarlyEvents(.cancelEnds, named: "TryCompactMap") { $0.tryCompactMap { $0 } }
  }

  @Test func aValueBeforeTheSubscriptionStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless, sendsSubscription: false)
      upstream.tryCompactMap { $0 }.subscribe(RecordingSubscriber<Int, any Error>())
      upstream.send(1)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Subscriber.receive(_:) before receive(subscription:)"))
  }

  /// tryCompactMap throwing: the values before it answer the subscriber's demand, the throwing
  /// one `.none`; upstream is cancelled once; the closure is not called again and nothing more
  /// reaches the subscriber.
  /// Evidence (OpenCombine): CompactMapTests.swift `testTryCompactMapFailureBecauseOfThrow` (`send("throw")
  /// == .none`, `send("9") == .none`, `[.requested(.max(3)), .cancelled]`, counter 3),
  /// `testTryCompactMapReflection` (description "TryCompactMap").
  @Test func tryCompactMapThrowEndsTheStream() {
    var calls = 0
    let upstream = HandDrivenUpstream<String, ParityFailure>(conduct: .careless)
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: .max(3), demandPerValue: .max(10))
    upstream
      .tryCompactMap { text -> Int? in
        calls += 1
        if text == "throw" { throw ParityFailure.oops }
        return Int(text)
      }
      .subscribe(recorder)
    #expect(upstream.subscriberDescription == "TryCompactMap")
    #expect(upstream.send("2") == .max(10))
    #expect(upstream.send("3") == .max(10))
    #expect(upstream.events == [.requested(.max(3))])
    #expect(upstream.send("throw") == .none)
    #expect(upstream.send("9") == .none)
    #expect(upstream.events == [.requested(.max(3)), .cancelled])
    upstream.send(completion: .finished)
    upstream.send(completion: .failure(.oops))
    #expect(recorder.history.dropFirst() == ["value(2)", "value(3)", "failure(oops)"])
    #expect(calls == 3)
    release(upstream, recorder)
  }

  /// tryCompactMap after upstream completed ignores a second completion and later values.
  /// Evidence (OpenCombine): CompactMapTests.swift `testTryCompactMapUpstreamFinishesImmediately`,
  /// `testTryCompactMapUpstreamFinishesWithError` (FilterTests.swift's generic tests: history
  /// keeps one completion, `send(73) == .none`, subscription history `[.requested(.max(3))]`).
  @Test func tryCompactMapIgnoresEverythingAfterTheCompletion() {
    for first in [Subscribers.Completion<ParityFailure>.finished, .failure(.oops)] {
      let upstream = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
      let recorder = RecordingSubscriber<Int, any Error>(initialDemand: .max(3), demandPerValue: .max(10))
      upstream.tryCompactMap { $0 }.subscribe(recorder)
      upstream.send(completion: first)
      upstream.send(completion: .failure(.oops))
      #expect(upstream.send(73) == .none)
      upstream.send(completion: .finished)
      #expect(recorder.history.count == 2)
      #expect(upstream.events == [.requested(.max(3))])
      release(upstream, recorder)
    }
  }

  /// As Combine's tryCompactMap (FilterProducer), it is the subscriber's subscription: once the
  /// closure has thrown, the subscriber's requests and cancels stop there; after a cancel, a
  /// value upstream still sends answers `.none` and is not passed on.
  /// Evidence (OpenCombine): CompactMapTests.swift `testTryCompactMapFailureBecauseOfThrow`
  /// (`.subscription("TryCompactMap")`; after `request(.max(1000))` and `cancel()`, the
  /// subscription history stays `[.requested(.max(3)), .cancelled]`), `testTryCompactMapDemand`
  /// (FilterTests.swift `testDemand`: after the cancel, `send("8") == .none`).
  @Test func afterAThrowAndACancelNothingMoreReachesUpstreamOrTheSubscriber() {
    let upstream = HandDrivenUpstream<String, ParityFailure>(conduct: .careless)
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: .max(3), demandPerValue: .max(10))
    upstream
      .tryCompactMap { text -> Int? in
        if text == "throw" { throw ParityFailure.oops }
        return Int(text)
      }
      .subscribe(recorder)
    #expect(recorder.history == ["subscription(TryCompactMap)"])
    #expect(upstream.send("throw") == .none)
    recorder.subscription?.request(.max(1000))
    recorder.subscription?.cancel()
    #expect(upstream.events == [.requested(.max(3)), .cancelled])
    release(upstream, recorder)

    let cancelled = HandDrivenUpstream<String, ParityFailure>(conduct: .careless)
    let cancelledRecorder = RecordingSubscriber<Int, any Error>(initialDemand: .max(5), demandPerValue: .max(80))
    cancelled.tryCompactMap { Int($0) }.subscribe(cancelledRecorder)
    cancelledRecorder.subscription?.cancel()
    #expect(cancelled.send("8") == .none)
    #expect(cancelledRecorder.history == ["subscription(TryCompactMap)"])
    release(cancelled, cancelledRecorder)
  }
}

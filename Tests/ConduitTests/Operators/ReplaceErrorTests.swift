import ConduitTesting
import Dispatch
import Synchronization
import Testing

@testable import Conduit

private struct ReplaceErrorTestError: Error, Equatable {}

@Suite(.leakChecked)
struct ReplaceErrorTests {
  @Test func republishesValuesAndFinished() {
    let subject = PassthroughSubject<Int, ReplaceErrorTestError>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.replaceError(with: 0).subscribe(subscriber)
    subject.send(1)
    subject.send(2)
    subject.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func failureWithDemandSendsTheReplacementThenFinishes() {
    let subject = PassthroughSubject<Int, ReplaceErrorTestError>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.replaceError(with: -1).subscribe(subscriber)
    subject.send(1)
    subject.send(completion: .failure(ReplaceErrorTestError()))
    #expect(subscriber.events == [.subscription, .value(1), .value(-1), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func failWithImmediateFailure() {
    let subscriber = TestSubscriber<Int, Never>()
    Fail<Int, ReplaceErrorTestError>(error: ReplaceErrorTestError()).replaceError(with: 7).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(7), .completion(.finished)])
  }

  @Test func failureWithoutDemandHoldsTheReplacementUntilRequested() {
    let upstream = HandDrivenUpstream<Int, ReplaceErrorTestError>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.replaceError(with: 9).subscribe(subscriber)
    upstream.send(completion: .failure(ReplaceErrorTestError()))
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(9), .completion(.finished)])
    #expect(upstream.requests.isEmpty)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func spentDemandHoldsTheReplacement() {
    let upstream = HandDrivenUpstream<Int, ReplaceErrorTestError>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    upstream.replaceError(with: 0).subscribe(subscriber)
    #expect(upstream.requests == [.max(2)])
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .failure(ReplaceErrorTestError()))
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion == nil)
    subscriber.request(.max(3))
    #expect(subscriber.values == [1, 2, 0])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func demandReturnedFromReceiveCounts() {
    let upstream = HandDrivenUpstream<Int, ReplaceErrorTestError>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    upstream.replaceError(with: 0).subscribe(subscriber)
    #expect(upstream.send(1) == .max(1))
    #expect(upstream.send(2) == .max(1))
    upstream.send(completion: .failure(ReplaceErrorTestError()))
    #expect(subscriber.values == [1, 2, 0])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func requestsGoUpstream() {
    let upstream = HandDrivenUpstream<Int, ReplaceErrorTestError>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.replaceError(with: 0).subscribe(subscriber)
    subscriber.request(.max(2))
    subscriber.request(.unlimited)
    #expect(upstream.requests == [.max(1), .max(2), .unlimited])
    upstream.send(completion: .finished)
    #expect(subscriber.completion == .finished)
  }

  @Test func sequenceDeliversOnDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    [1, 2, 3].publisher.setFailureType(to: ReplaceErrorTestError.self).eraseToAnyPublisher()
      .replaceError(with: 0)
      .subscribe(subscriber)
    #expect(subscriber.values == [1])
    subscriber.request(.max(2))
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelCancelsUpstreamAndStopsEverything() {
    let upstream = HandDrivenUpstream<Int, ReplaceErrorTestError>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.replaceError(with: 0).subscribe(subscriber)
    upstream.send(1)
    subscriber.cancel()
    #expect(upstream.cancelCount == 1)
    upstream.send(2)
    upstream.send(completion: .failure(ReplaceErrorTestError()))
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  @Test func cancelWhileHoldingTheReplacementDropsIt() {
    let upstream = HandDrivenUpstream<Int, ReplaceErrorTestError>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.replaceError(with: 0).subscribe(subscriber)
    let subscription = subscriber.subscription
    upstream.send(completion: .failure(ReplaceErrorTestError()))
    subscriber.cancel()
    subscription?.request(.max(1))
    #expect(subscriber.events == [.subscription])
    #expect(upstream.cancelCount == 0)
  }

  @Test func cancelIsIdempotent() {
    let upstream = HandDrivenUpstream<Int, ReplaceErrorTestError>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.replaceError(with: 0).subscribe(subscriber)
    let subscription = subscriber.subscription
    subscription?.cancel()
    subscription?.cancel()
    #expect(upstream.cancelCount == 1)
  }

  @Test func reentrantRequestFromReceive() {
    let subject = PassthroughSubject<Int, ReplaceErrorTestError>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subscriber.onValue { value in
      if value == 1 { subscriber.request(.max(1)) }
    }
    subject.replaceError(with: 0).subscribe(subscriber)
    subject.send(1)
    subject.send(completion: .failure(ReplaceErrorTestError()))
    #expect(subscriber.values == [1, 0])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func isEquatableWhenUpstreamAndOutputAre() {
    let just = Just(1)
    let replaced: Publishers.ReplaceError<Just<Int>> = Publishers.ReplaceError(upstream: just, output: 0)
    #expect(replaced == Publishers.ReplaceError(upstream: just, output: 0))
    #expect(Publishers.ReplaceError(upstream: just, output: 0) != Publishers.ReplaceError(upstream: just, output: 1))
    #expect(Publishers.ReplaceError(upstream: just, output: 0).output == 0)
  }

  /// replaceError hands the subscriber its subscription when the upstream's arrives; what the
  /// subscriber asks for then goes upstream. A value before that is answered with `.none` and
  /// not passed on.
  /// Evidence (OpenCombine): ReplaceErrorTests.swift `testLateSubscription` (history `[]` before upstream
  /// sends one, then `[.subscription("ReplaceError")]`, and `subscription.history ==
  /// [.requested(.max(10))]`), `testReplaceErrorReceiveValueBeforeSubscription` (history `[]`,
  /// demand `.none`).
  @Test func replaceErrorSubscribesDownstreamWhenUpstreamAnswers() {
    let upstream = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless, sendsSubscription: false)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(10), demandPerValue: .none)
    upstream.replaceError(with: 1).subscribe(recorder)
    #expect(upstream.subscriberDescription == "ReplaceError")
    #expect(recorder.history.isEmpty)

    #expect(upstream.send(0) == .none)
    #expect(recorder.history.isEmpty)

    let late = SpySubscription()
    upstream.sendSubscription(late)
    #expect(recorder.history == ["subscription(ReplaceError)"])
    #expect(late.events == [.requested(.max(10))])
    #expect(upstream.send(2) == .none)
    #expect(recorder.history == ["subscription(ReplaceError)", "value(2)"])
    release(upstream, recorder)
  }

  /// A completion that comes before the upstream's subscription is not passed on.
  /// Evidence (OpenCombine): ReplaceErrorTests.swift `testReplaceErrorCompletionBeforeSubscription` (history
  /// `[]`).
  @Test func replaceErrorIgnoresACompletionBeforeTheSubscription() {
    let upstream = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless, sendsSubscription: false)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .none, demandPerValue: .none)
    upstream.replaceError(with: 1).subscribe(recorder)
    upstream.send(completion: .finished)
    #expect(recorder.history.isEmpty)
    release(upstream, recorder)
  }

  /// A synchronous upstream still works.
  @Test func replaceErrorOverSynchronousPublishers() {
    let values = TestSubscriber<Int, Never>()
    [1, 2].publisher.setFailureType(to: ParityFailure.self).replaceError(with: 0).subscribe(values)
    #expect(values.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(values.violations.isEmpty)

    let failed = TestSubscriber<Int, Never>(initialDemand: .none)
    Fail<Int, ParityFailure>(error: .oops).replaceError(with: 7).subscribe(failed)
    #expect(failed.events == [.subscription])
    failed.request(.max(1))
    #expect(failed.events == [.subscription, .value(7), .completion(.finished)])

    let empty = TestSubscriber<Int, Never>(initialDemand: .none)
    Empty<Int, ParityFailure>().replaceError(with: 7).subscribe(empty)
    #expect(empty.events == [.subscription, .completion(.finished)])
    #expect(empty.violations.isEmpty)
  }

  /// An upstream that fails while the subscriber has no demand and then finishes: the finish is
  /// ignored, and the replacement goes out when the subscriber asks.
  /// Evidence (OpenCombine): ReplaceErrorTests.swift `testSendingErrorWithNoDemandThenFinish` (history
  /// `[.subscription("ReplaceError")]`, then `.value(42), .completion(.finished)` after
  /// `request(.max(1))`).
  @Test func replaceErrorFailureWithoutDemandThenFinished() {
    let upstream = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .none, demandPerValue: .none)
    upstream.replaceError(with: 42).subscribe(recorder)
    upstream.send(completion: .failure(.oops))
    upstream.send(completion: .finished)
    #expect(recorder.history == ["subscription(ReplaceError)"])
    recorder.subscription?.request(.max(1))
    #expect(recorder.history == ["subscription(ReplaceError)", "value(42)", "finished"])
    release(upstream, recorder)
  }

  /// Once ended, replaceError ignores everything: values answer `.none`, a second completion is
  /// dropped, a second subscription is cancelled (before and after a cancel), and requests and
  /// cancels after a cancel do not reach upstream.
  /// Evidence (OpenCombine): ReplaceErrorTests.swift `testFailingBeforeDemanding` (`send(-1) == .none` after
  /// the replacement), `testReceiveCompletionTwice`, `testReceiveSubscriptionTwice`,
  /// `testCancelAlreadyCancelled` (`[.requested(.unlimited), .cancelled]`).
  @Test func replaceErrorIgnoresEverythingOnceEnded() {
    let upstream = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .none, demandPerValue: .max(1))
    upstream.replaceError(with: 42).subscribe(recorder)
    upstream.send(completion: .failure(.oops))
    #expect(recorder.history == ["subscription(ReplaceError)"])
    recorder.subscription?.request(.unlimited)
    #expect(upstream.send(-1) == .none)
    upstream.send(completion: .finished)
    #expect(recorder.history == ["subscription(ReplaceError)", "value(42)", "finished"])
    release(upstream, recorder)

    let twice = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
    let twiceRecorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .none)
    twice.replaceError(with: 42).subscribe(twiceRecorder)
    twice.send(completion: .finished)
    twice.send(completion: .finished)
    twice.send(completion: .failure(.oops))
    #expect(twice.send(-1) == .none)
    #expect(twiceRecorder.history == ["subscription(ReplaceError)", "finished"])
    release(twice, twiceRecorder)

    let cancelled = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
    let cancelledRecorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .none)
    cancelled.replaceError(with: 42).subscribe(cancelledRecorder)
    let second = SpySubscription()
    cancelled.sendSubscription(second)
    #expect(second.events == [.cancelled])
    cancelledRecorder.subscription?.cancel()
    cancelledRecorder.subscription?.cancel()
    cancelledRecorder.subscription?.request(.unlimited)
    cancelledRecorder.subscription?.cancel()
    #expect(cancelled.events == [.requested(.max(1)), .cancelled])
    cancelled.sendSubscription(second)
    #expect(second.events == [.cancelled, .cancelled])
    release(cancelled, cancelledRecorder)
  }

  @Test func replaceErrorCancelledOnSubscribeCancelsUpstream() {
    let upstream = HandDrivenUpstream<Int, Boom>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Publishers.ReplaceError(upstream: Empty<Int, Boom>(completeImmediately: false), output: 0)
      .subscribe(subscriber)
    subscriber.cancel()
    #expect(subscriber.violations.isEmpty)
    // Cancel from inside receive(subscription:), which comes once upstream's subscription has
    // arrived, as in Combine: the request made first goes upstream, then the cancel.
    let cancelling = RequestThenCancelSubscriber<Int, Never>(requestFirst: .max(2))
    Publishers.ReplaceError(upstream: upstream, output: 9).subscribe(cancelling)
    #expect(upstream.cancelCount == 1)
    #expect(upstream.requests == [.max(2)])
    upstream.send(1)
    upstream.send(completion: .failure(Boom()))
    #expect(cancelling.events.isEmpty)
  }

  @Test func replaceErrorDemandAskedOnSubscribeIsForwarded() {
    let upstream = HandDrivenUpstream<Int, Boom>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    Publishers.ReplaceError(upstream: upstream, output: 9).subscribe(subscriber)
    #expect(upstream.requests == [.max(2)])
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .failure(Boom()))
    // No demand left: the replacement waits for a request.
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion == nil)
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2, 9])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }
}

/// Requests, values, the failure and cancellation arriving on several threads at once.
@Suite(.leakChecked)
struct ReplaceErrorStressTests {
  @Test func concurrentRequestsNeverExceedDemandAndTheReplacementComesOnce() {
    for _ in 0..<200 {
      let subject = PassthroughSubject<Int, ReplaceErrorTestError>()
      let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
      subject.replaceError(with: -1).subscribe(subscriber)
      DispatchQueue.concurrentPerform(iterations: 4) { index in
        if index == 0 {
          for value in 0..<50 { subject.send(value) }
          subject.send(completion: .failure(ReplaceErrorTestError()))
        } else {
          for _ in 0..<10 { subscriber.request(.max(1)) }
        }
      }
      if subscriber.completion == nil { subscriber.request(.max(1)) }
      let values = subscriber.values
      #expect(subscriber.completion == .finished)
      #expect(values.last == -1)
      #expect(values.filter { $0 == -1 }.count == 1)
      #expect(values.count <= 31)
      #expect(values.dropLast() == values.dropLast().sorted()[...])
      #expect(subscriber.violations.isEmpty)
    }
  }

  @Test func cancelRacingTheFailureAndRequests() {
    for _ in 0..<200 {
      let subject = PassthroughSubject<Int, ReplaceErrorTestError>()
      let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
      subject.replaceError(with: -1).subscribe(subscriber)
      DispatchQueue.concurrentPerform(iterations: 3) { index in
        switch index {
        case 0:
          for value in 0..<20 { subject.send(value) }
          subject.send(completion: .failure(ReplaceErrorTestError()))
        case 1:
          for _ in 0..<10 { subscriber.request(.max(1)) }
        default:
          subscriber.cancel()
        }
      }
      #expect(subscriber.values.filter { $0 == -1 }.count <= 1)
      #expect(subscriber.violations.isEmpty)
    }
  }
}

@Suite(.leakChecked)
struct ReplaceErrorCancelStressTests {
  @Test func cancelRacingValuesStopsDelivery() {
    expectCancelRacingValuesStopsDelivery { subject, subscriber in
      subject.setFailureType(to: ReplaceErrorTestError.self).replaceError(with: -1).subscribe(subscriber)
    }
  }

  @Test func requestAndCancelFromInsideReceiveStopAtTheCancel() {
    expectRequestAndCancelFromInsideReceiveStopsAtTheCancel { subject, subscriber in
      subject.setFailureType(to: ReplaceErrorTestError.self).replaceError(with: -1).subscribe(subscriber)
    }
  }
}

// MARK: As Combine (OpenCombine's ReplaceErrorTests.swift)

extension ReplaceErrorTests {
  // `testLateSubscription`: the subscriber gets its subscription when the upstream hands over
  // its own, and what it asks for then goes upstream.
  @Test func theSubscriberIsSubscribedWhenTheUpstreamSubscriptionArrives() {
    let upstream = HandDrivenUpstream<Int, ReplaceErrorTestError>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, Never>(initialDemand: .max(10))
    upstream.replaceError(with: 1).subscribe(subscriber)
    #expect(subscriber.history.isEmpty)
    upstream.sendSubscription()
    #expect(subscriber.history == ["subscription(ReplaceError)"])
    #expect(upstream.requests == [.max(10)])
    subscriber.forget()
  }

  // `testReplaceErrorReceiveValueBeforeSubscription`, `testReplaceErrorCompletionBeforeSubscription`,
  // `testReplaceErrorCancelBeforeSubscription`: what comes before the subscription is ignored,
  // a cancel too.
  @Test func whatComesBeforeTheSubscriptionIsIgnored() throws {
    let upstream = HandDrivenUpstream<Int, ReplaceErrorTestError>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, Never>()
    upstream.replaceError(with: 1).subscribe(subscriber)
    #expect(upstream.send(0) == .none)
    upstream.send(completion: .failure(ReplaceErrorTestError()))
    upstream.send(completion: .finished)
    try #require(upstream.subscriberAsSubscription).cancel()
    #expect(subscriber.history.isEmpty)
    upstream.sendSubscription()
    #expect(upstream.cancelCount == 0)
    #expect(subscriber.history == ["subscription(ReplaceError)"])
    subscriber.subscription?.cancel()
    #expect(upstream.cancelCount == 1)
    subscriber.forget()
  }

  // `testSendingErrorWithNoDemandThenFinish`: a finish after a failure held for want of demand is
  // ignored; the replacement still goes out when asked for.
  @Test func aFinishAfterAHeldFailureIsIgnored() {
    let upstream = HandDrivenUpstream<Int, ReplaceErrorTestError>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.replaceError(with: 42).subscribe(subscriber)
    upstream.send(completion: .failure(ReplaceErrorTestError()))
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(42), .completion(.finished)])
  }

  // `testCrashOnReceiveValueWithZeroPendingDemand`.
  @Test func aValueBeyondTheDemandStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, ReplaceErrorTestError>(conduct: .careless)
      upstream.replaceError(with: 0).subscribe(TestSubscriber<Int, Never>(initialDemand: .none))
      upstream.send(1)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("replaceError: the upstream sent a value the subscriber had not requested"))
  }

  // `testReplaceErrorReflection`.
  @Test func reflectsAsCombineDoes() throws {
    let upstream = HandDrivenUpstream<Int, ReplaceErrorTestError>(conduct: .careless, sendsSubscription: false)
    upstream.replaceError(with: 0).subscribe(TestSubscriber<Int, Never>())
    let inner = try #require(upstream.subscriberObject)
    #expect((inner as? any CustomStringConvertible)?.description == "ReplaceError")
    #expect((inner as? any CustomReflectable)?.customMirror.children.isEmpty == true)
    #expect((inner as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "ReplaceError")
    upstream.sendSubscription()
    upstream.send(completion: .finished)
  }
}

private struct Boom: Error, Equatable {}

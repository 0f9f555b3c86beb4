import Conduit
import ConduitTesting
import Testing

// Operator behaviour pinned against Combine's, review 4: mapError, setFailureType, replaceError,
// replaceNil, assertNoFailure, ignoreOutput, compactMap, tryCompactMap, scan, the key-path
// maps, collect(), collect(_:), Deferred, encode, decode, breakpoint and breakpointOnError.
//
// OpenCombine's tests were run against Combine (`OPENCOMBINE_COMPATIBILITY_TEST`), so their
// expected histories are the oracle; each test names the file (in the OpenCombine/OpenCombine
// repository, under Tests/OpenCombineTests/PublisherTests) and the test it follows. Several use
// an upstream that misbehaves on purpose (a value before its subscription, a second completion,
// values after a cancel), as OpenCombine's `CustomPublisher` does: what an operator does then
// shows whether it keeps state of its own.

private enum ReviewError: Error {
  case oops
}

private struct WrappedError: Error, CustomStringConvertible {
  let original: any Error
  var description: String { "wrapped(\(original))" }
}

@Suite(.leakChecked)
struct CombineParityReview4Tests {
  // MARK: - mapError, setFailureType

  /// mapError keeps no state: it hands the upstream subscription down, returns the subscriber's
  /// demand, passes a value that comes before the subscription, converts every failure (a second
  /// one too), and lets requests and cancels after a cancel reach upstream.
  /// Evidence: MapErrorTests.swift `testEmpty` (the subscriber is described as "MapError"),
  /// `testError` (two converted failures), `testDemandSend`,
  /// `testMapErrorReceiveValueBeforeSubscription` (`.value(0)`, demand `.max(42)`),
  /// `testCancelAlreadyCancelled` (`[.requested(.unlimited), .cancelled, .requested(.unlimited),
  /// .cancelled]`).
  @Test func mapErrorPassesEverythingThrough() {
    let upstream = RecordingUpstream<Int, ReviewError>(sendsSubscription: false)
    let recorder = RecordingSubscriber<Int, WrappedError>(initialDemand: .unlimited, demandPerValue: .max(42))
    upstream.mapError { WrappedError(original: $0) }.subscribe(recorder)
    #expect(upstream.subscriberDescription == "MapError")

    #expect(upstream.send(0) == .max(42))
    upstream.sendSubscription(upstream)
    #expect(upstream.send(1) == .max(42))
    upstream.send(completion: .failure(.oops))
    upstream.send(completion: .failure(.oops))
    #expect(
      recorder.history == [
        "value(0)", "subscription(RecordingUpstream)", "value(1)", "failure(wrapped(oops))", "failure(wrapped(oops))",
      ])

    recorder.subscription?.cancel()
    recorder.subscription?.request(.unlimited)
    recorder.subscription?.cancel()
    #expect(upstream.events == [.requested(.unlimited), .cancelled, .requested(.unlimited), .cancelled])
    release(upstream, recorder)
  }

  /// setFailureType forwards like mapError; applied twice it is one operator.
  /// Evidence: SetFailureTypeTests.swift `testEmpty` (two `setFailureType` make one subscriber
  /// described as "SetFailureType"), `testDemandSend`, `testCancelAlreadyCancelled`,
  /// `testSetFailureTypeCompletionBeforeSubscription` (`.completion(.finished)`).
  @Test func setFailureTypePassesEverythingThrough() {
    let upstream = RecordingUpstream<Int, Never>(sendsSubscription: false)
    let recorder = RecordingSubscriber<Int, ReviewError>(initialDemand: .unlimited, demandPerValue: .max(4))
    upstream.setFailureType(to: Never.self).setFailureType(to: ReviewError.self).subscribe(recorder)
    #expect(upstream.subscriberDescription == "SetFailureType")

    upstream.send(completion: .finished)
    upstream.sendSubscription(upstream)
    #expect(upstream.send(0) == .max(4))
    #expect(recorder.history == ["finished", "subscription(RecordingUpstream)", "value(0)"])

    recorder.subscription?.cancel()
    recorder.subscription?.request(.unlimited)
    recorder.subscription?.cancel()
    #expect(upstream.events == [.requested(.unlimited), .cancelled, .requested(.unlimited), .cancelled])
    release(upstream, recorder)
  }

  // MARK: - replaceError

  /// replaceError hands the subscriber its subscription when the upstream's arrives; what the
  /// subscriber asks for then goes upstream. A value before that is answered with `.none` and
  /// not passed on.
  /// Evidence: ReplaceErrorTests.swift `testLateSubscription` (history `[]` before upstream
  /// sends one, then `[.subscription("ReplaceError")]`, and `subscription.history ==
  /// [.requested(.max(10))]`), `testReplaceErrorReceiveValueBeforeSubscription` (history `[]`,
  /// demand `.none`).
  @Test func replaceErrorSubscribesDownstreamWhenUpstreamAnswers() {
    let upstream = RecordingUpstream<Int, ReviewError>(sendsSubscription: false)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(10), demandPerValue: .none)
    upstream.replaceError(with: 1).subscribe(recorder)
    #expect(upstream.subscriberDescription == "ReplaceError")
    #expect(recorder.history.isEmpty)

    #expect(upstream.send(0) == .none)
    #expect(recorder.history.isEmpty)

    let late = RecordingSubscription()
    upstream.sendSubscription(late)
    #expect(recorder.history == ["subscription(ReplaceError)"])
    #expect(late.events == [.requested(.max(10))])
    #expect(upstream.send(2) == .none)
    #expect(recorder.history == ["subscription(ReplaceError)", "value(2)"])
    release(upstream, recorder)
  }

  /// A completion that comes before the upstream's subscription is not passed on.
  /// Evidence: ReplaceErrorTests.swift `testReplaceErrorCompletionBeforeSubscription` (history
  /// `[]`).
  @Test func replaceErrorIgnoresACompletionBeforeTheSubscription() {
    let upstream = RecordingUpstream<Int, ReviewError>(sendsSubscription: false)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .none, demandPerValue: .none)
    upstream.replaceError(with: 1).subscribe(recorder)
    upstream.send(completion: .finished)
    #expect(recorder.history.isEmpty)
    release(upstream, recorder)
  }

  /// A synchronous upstream still works.
  @Test func replaceErrorOverSynchronousPublishers() {
    let values = TestSubscriber<Int, Never>()
    [1, 2].publisher.setFailureType(to: ReviewError.self).replaceError(with: 0).subscribe(values)
    #expect(values.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(values.violations.isEmpty)

    let failed = TestSubscriber<Int, Never>(initialDemand: .none)
    Fail<Int, ReviewError>(error: .oops).replaceError(with: 7).subscribe(failed)
    #expect(failed.events == [.subscription])
    failed.request(.max(1))
    #expect(failed.events == [.subscription, .value(7), .completion(.finished)])

    let empty = TestSubscriber<Int, Never>(initialDemand: .none)
    Empty<Int, ReviewError>().replaceError(with: 7).subscribe(empty)
    #expect(empty.events == [.subscription, .completion(.finished)])
    #expect(empty.violations.isEmpty)
  }

  /// An upstream that fails while the subscriber has no demand and then finishes: the finish is
  /// ignored, and the replacement goes out when the subscriber asks.
  /// Evidence: ReplaceErrorTests.swift `testSendingErrorWithNoDemandThenFinish` (history
  /// `[.subscription("ReplaceError")]`, then `.value(42), .completion(.finished)` after
  /// `request(.max(1))`).
  @Test func replaceErrorFailureWithoutDemandThenFinished() {
    let upstream = RecordingUpstream<Int, ReviewError>()
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
  /// Evidence: ReplaceErrorTests.swift `testFailingBeforeDemanding` (`send(-1) == .none` after
  /// the replacement), `testReceiveCompletionTwice`, `testReceiveSubscriptionTwice`,
  /// `testCancelAlreadyCancelled` (`[.requested(.unlimited), .cancelled]`).
  @Test func replaceErrorIgnoresEverythingOnceEnded() {
    let upstream = RecordingUpstream<Int, ReviewError>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .none, demandPerValue: .max(1))
    upstream.replaceError(with: 42).subscribe(recorder)
    upstream.send(completion: .failure(.oops))
    #expect(recorder.history == ["subscription(ReplaceError)"])
    recorder.subscription?.request(.unlimited)
    #expect(upstream.send(-1) == .none)
    upstream.send(completion: .finished)
    #expect(recorder.history == ["subscription(ReplaceError)", "value(42)", "finished"])
    release(upstream, recorder)

    let twice = RecordingUpstream<Int, ReviewError>()
    let twiceRecorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .none)
    twice.replaceError(with: 42).subscribe(twiceRecorder)
    twice.send(completion: .finished)
    twice.send(completion: .finished)
    twice.send(completion: .failure(.oops))
    #expect(twice.send(-1) == .none)
    #expect(twiceRecorder.history == ["subscription(ReplaceError)", "finished"])
    release(twice, twiceRecorder)

    let cancelled = RecordingUpstream<Int, ReviewError>()
    let cancelledRecorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .none)
    cancelled.replaceError(with: 42).subscribe(cancelledRecorder)
    let second = RecordingSubscription()
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

  // MARK: - replaceNil, assertNoFailure, breakpoint

  /// replaceNil is a map: described as "Map", a value before the subscription passes.
  /// Evidence: ReplaceNilTests.swift `testReplaceNilReflection` (description "Map"),
  /// `testReplaceNilReceiveValueBeforeSubscription`, `testReplaceNilCompletionBeforeSubscription`.
  @Test func replaceNilIsAMap() {
    let upstream = RecordingUpstream<Int?, Never>(sendsSubscription: false)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .unlimited, demandPerValue: .max(42))
    upstream.replaceNil(with: 1).subscribe(recorder)
    #expect(upstream.subscriberDescription == "Map")
    #expect(upstream.send(nil) == .max(42))
    #expect(upstream.send(5) == .max(42))
    upstream.send(completion: .finished)
    #expect(recorder.history == ["value(1)", "value(5)", "finished"])
    release(upstream, recorder)
  }

  /// assertNoFailure forwards everything, a second finish and a second subscription included;
  /// the subscriber's requests and cancels go to the subscription it was given.
  /// Evidence: AssertNoFailureTests.swift `testPassThroughInput` (history ends with
  /// `.completion(.finished), .completion(.finished), .subscription, .subscription`;
  /// `subscription2.history == [.requested(.max(42)), .cancelled, .cancelled]`),
  /// `testAssertNoFailureReflection` (description "AssertNoFailure").
  @Test func assertNoFailurePassesEverythingThrough() {
    let upstream = RecordingUpstream<Int, ReviewError>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .none, demandPerValue: .max(2))
    upstream.assertNoFailure().subscribe(recorder)
    #expect(upstream.subscriberDescription == "AssertNoFailure")
    #expect(upstream.send(1) == .max(2))
    upstream.send(completion: .finished)
    upstream.send(completion: .finished)
    let second = RecordingSubscription()
    upstream.sendSubscription(second)
    recorder.subscription?.request(.max(42))
    recorder.subscription?.cancel()
    recorder.subscription?.cancel()
    #expect(
      recorder.history == [
        "subscription(RecordingUpstream)", "value(1)", "finished", "finished", "subscription(RecordingSubscription)",
      ])
    #expect(upstream.events.isEmpty)
    #expect(second.events == [.requested(.max(42)), .cancelled, .cancelled])
    release(upstream, recorder)
  }

  /// breakpoint asks its closures about every event (repeated ones too) and passes everything
  /// through; breakpointOnError stops only for a failure.
  /// Evidence: BreakpointTests.swift `testReceiveSubscription` (counter 2 after two
  /// subscriptions), `testReceiveValue`, `testBreakpointOnError` (`receiveCompletion?(.finished)
  /// == false`, `receiveCompletion?(.failure(.oops)) == true`), `testCancelAlreadyCancelled`,
  /// `testBreakpointReflection` (description "Breakpoint").
  @Test func breakpointAsksAboutEveryEventAndPassesItOn() {
    var asked: [String] = []
    let upstream = RecordingUpstream<Int, ReviewError>()
    let recorder = RecordingSubscriber<Int, ReviewError>(initialDemand: .none, demandPerValue: .max(1))
    upstream
      .breakpoint(
        receiveSubscription: { _ in
          asked.append("subscription")
          return false
        },
        receiveOutput: { value in
          asked.append("value(\(value))")
          return value < 0
        },
        receiveCompletion: { _ in
          asked.append("completion")
          return false
        }
      )
      .subscribe(recorder)
    #expect(upstream.subscriberDescription == "Breakpoint")
    #expect(upstream.send(12) == .max(1))
    upstream.send(completion: .finished)
    upstream.send(completion: .failure(.oops))
    #expect(upstream.send(21) == .max(1))
    upstream.sendSubscription(RecordingSubscription())
    #expect(asked == ["subscription", "value(12)", "completion", "completion", "value(21)", "subscription"])
    #expect(
      recorder.history == [
        "subscription(RecordingUpstream)", "value(12)", "finished", "failure(oops)", "value(21)",
        "subscription(RecordingSubscription)",
      ])
    release(upstream, recorder)

    let onError = RecordingUpstream<Int, ReviewError>().breakpointOnError()
    #expect(onError.receiveSubscription == nil)
    #expect(onError.receiveOutput == nil)
    #expect(onError.receiveCompletion?(.finished) == false)
    #expect(onError.receiveCompletion?(.failure(.oops)) == true)

    let plain = RecordingUpstream<Int, ReviewError>()
    let plainRecorder = RecordingSubscriber<Int, ReviewError>(initialDemand: .unlimited, demandPerValue: .none)
    plain.breakpointOnError().subscribe(plainRecorder)
    plainRecorder.subscription?.request(.max(14))
    plainRecorder.subscription?.cancel()
    plainRecorder.subscription?.request(.max(100))
    plainRecorder.subscription?.cancel()
    #expect(
      plain.events == [.requested(.unlimited), .requested(.max(14)), .cancelled, .requested(.max(100)), .cancelled])
    release(plain, plainRecorder)
  }

  // MARK: - ignoreOutput

  // ignoreOutput's parity tests live in Operators/IgnoreOutputTests.swift.

  // MARK: - compactMap, tryCompactMap

  /// compactMap keeps no state: a dropped value answers `.max(1)`, a kept one the subscriber's
  /// demand, and what upstream sends after completing still goes through; cancels and requests
  /// go straight up, a second cancel too.
  /// Evidence: CompactMapTests.swift `testCompactMapBasicBehavior` (`send("a") == .max(1)`;
  /// after `.finished` and `.failure`, `send("42") == .max(4)` and `.value(42)` is recorded;
  /// counter 8), `testCompactMapCancelAlreadyCancelled`, `testCompactMapReflection`.
  @Test func compactMapKeepsNoState() {
    var calls = 0
    let upstream = RecordingUpstream<String, ReviewError>()
    let recorder = RecordingSubscriber<Int, ReviewError>(initialDemand: .max(2), demandPerValue: .max(4))
    upstream
      .compactMap { text -> Int? in
        calls += 1
        return Int(text)
      }
      .subscribe(recorder)
    #expect(upstream.subscriberDescription == "CompactMap")
    #expect(upstream.events == [.requested(.max(2))])
    #expect(upstream.send("1") == .max(4))
    #expect(upstream.send("a") == .max(1))
    #expect(upstream.send("12.4") == .max(1))
    upstream.send(completion: .finished)
    upstream.send(completion: .failure(.oops))
    #expect(upstream.send("42") == .max(4))
    #expect(
      recorder.history == ["subscription(RecordingUpstream)", "value(1)", "finished", "failure(oops)", "value(42)"])
    #expect(calls == 4)

    recorder.subscription?.cancel()
    recorder.subscription?.request(.unlimited)
    recorder.subscription?.cancel()
    #expect(upstream.events == [.requested(.max(2)), .cancelled, .requested(.unlimited), .cancelled])
    release(upstream, recorder)
  }

  /// tryCompactMap throwing: the values before it answer the subscriber's demand, the throwing
  /// one `.none`; upstream is cancelled once; the closure is not called again and nothing more
  /// reaches the subscriber.
  /// Evidence: CompactMapTests.swift `testTryCompactMapFailureBecauseOfThrow` (`send("throw")
  /// == .none`, `send("9") == .none`, `[.requested(.max(3)), .cancelled]`, counter 3),
  /// `testTryCompactMapReflection` (description "TryCompactMap").
  @Test func tryCompactMapThrowEndsTheStream() {
    var calls = 0
    let upstream = RecordingUpstream<String, ReviewError>()
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: .max(3), demandPerValue: .max(10))
    upstream
      .tryCompactMap { text -> Int? in
        calls += 1
        if text == "throw" { throw ReviewError.oops }
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
  /// Evidence: CompactMapTests.swift `testTryCompactMapUpstreamFinishesImmediately`,
  /// `testTryCompactMapUpstreamFinishesWithError` (FilterTests.swift's generic tests: history
  /// keeps one completion, `send(73) == .none`, subscription history `[.requested(.max(3))]`).
  @Test func tryCompactMapIgnoresEverythingAfterTheCompletion() {
    for first in [Subscribers.Completion<ReviewError>.finished, .failure(.oops)] {
      let upstream = RecordingUpstream<Int, ReviewError>()
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

  // MARK: - scan

  /// scan keeps only its running result: a value before the subscription, values after a
  /// cancel and repeated completions all go through.
  /// Evidence: ScanTests.swift `testScanCancel` (after the cancel, `.value(2)` and four
  /// completions are recorded), `testScanError` (two failures), `testDemandSend`,
  /// `testScanReceiveValueBeforeSubscription` (`.value(0)`, demand `.max(42)`), `testScanEmpty`
  /// (described as "Scan").
  @Test func scanForwardsWhateverUpstreamSends() {
    let upstream = RecordingUpstream<Int, ReviewError>(sendsSubscription: false)
    let recorder = RecordingSubscriber<Int, ReviewError>(initialDemand: .unlimited, demandPerValue: .max(42))
    upstream.scan(0) { $0 + $1 * 2 }.subscribe(recorder)
    #expect(upstream.subscriberDescription == "Scan")
    #expect(upstream.send(0) == .max(42))
    upstream.sendSubscription(upstream)
    recorder.subscription?.cancel()
    #expect(upstream.send(1) == .max(42))
    upstream.send(completion: .finished)
    upstream.send(completion: .failure(.oops))
    upstream.send(completion: .failure(.oops))
    #expect(
      recorder.history == [
        "value(0)", "subscription(RecordingUpstream)", "value(2)", "finished", "failure(oops)", "failure(oops)",
      ])
    #expect(upstream.events == [.requested(.unlimited), .cancelled])
    release(upstream, recorder)
  }

  // MARK: - map(keyPath)

  /// The key-path maps describe themselves as Combine's do and keep no state.
  /// Evidence: MapKeyPathTests.swift `testMapKeyPathReflection` ("ValueForKey", "ValueForKeys"),
  /// `testMapKeyPathReceiveValueBeforeSubscription`, `testMapKeyPathReceiveCompletionBeforeSubscription`.
  @Test func keyPathMapsDescribeThemselvesAndKeepNoState() {
    let one = RecordingUpstream<Int, Never>(sendsSubscription: false)
    let oneRecorder = RecordingSubscriber<Int, Never>(initialDemand: .unlimited, demandPerValue: .max(42))
    one.map(\.doubled).subscribe(oneRecorder)
    #expect(one.subscriberDescription == "ValueForKey")
    #expect(one.send(3) == .max(42))
    one.send(completion: .finished)
    #expect(oneRecorder.history == ["value(6)", "finished"])
    release(one, oneRecorder)

    let two = RecordingUpstream<Int, Never>(sendsSubscription: false)
    let twoRecorder = RecordingSubscriber<(Int, Int), Never>(initialDemand: .unlimited, demandPerValue: .max(42))
    two.map(\.doubled, \.tripled).subscribe(twoRecorder)
    #expect(two.subscriberDescription == "ValueForKeys")
    #expect(two.send(1) == .max(42))
    #expect(twoRecorder.history == ["value((2, 3))"])
    release(two, twoRecorder)

    let three = RecordingUpstream<Int, Never>(sendsSubscription: false)
    let threeRecorder = RecordingSubscriber<(Int, Int, Int), Never>(initialDemand: .unlimited, demandPerValue: .max(42))
    three.map(\.doubled, \.tripled, \.quadrupled).subscribe(threeRecorder)
    #expect(three.subscriberDescription == "ValueForKeys")
    #expect(three.send(1) == .max(42))
    #expect(threeRecorder.history == ["value((2, 3, 4))"])
    release(three, threeRecorder)
  }

  // MARK: - collect(), collect(_:)

  /// collect() is its own subscription: the subscriber's requests stay there, one cancel goes
  /// up, nothing after it; after a failure, everything from upstream is ignored.
  /// Evidence: CollectTests.swift `testCancelAlreadyCancelled` (ReduceTests.swift's generic test:
  /// `[.requested(.unlimited), .cancelled]`), `testUpstreamFinishesWithError` (one failure,
  /// `send(73) == .none`), `testCollectReflection` (description "Collect").
  @Test func collectOwnsItsSubscription() {
    let upstream = RecordingUpstream<Int, ReviewError>()
    let recorder = RecordingSubscriber<[Int], ReviewError>(initialDemand: .none, demandPerValue: .none)
    upstream.collect().subscribe(recorder)
    #expect(upstream.subscriberDescription == "Collect")
    #expect(recorder.history == ["subscription(Collect)"])
    recorder.subscription?.cancel()
    recorder.subscription?.request(.unlimited)
    recorder.subscription?.cancel()
    #expect(upstream.events == [.requested(.unlimited), .cancelled])
    release(upstream, recorder)

    let failing = RecordingUpstream<Int, ReviewError>()
    let failingRecorder = RecordingSubscriber<[Int], ReviewError>(initialDemand: .max(3), demandPerValue: .max(1))
    failing.collect().subscribe(failingRecorder)
    failing.send(completion: .failure(.oops))
    failing.send(completion: .failure(.oops))
    #expect(failing.send(73) == .none)
    failing.send(completion: .finished)
    #expect(failingRecorder.history == ["subscription(Collect)", "failure(oops)"])
    #expect(failing.events == [.requested(.unlimited)])
    release(failing, failingRecorder)
  }

  /// collect(4): a request for 2 arrays asks upstream for 8 values; a value that fills the
  /// buffer answers the subscriber's demand times 4, the others `.none`; the rest goes out
  /// on finish.
  /// Evidence: CollectByCountTests.swift `testBasicBehavior` (`[.requested(.max(8))]`,
  /// `send(4) == .max(12)`, `.value([9, 10])` before `.completion(.finished)`).
  @Test func collectByCountCountsDemandInArrays() {
    let upstream = RecordingUpstream<Int, ReviewError>()
    let recorder = RecordingSubscriber<[Int], ReviewError>(initialDemand: .max(2), demandPerValue: .max(3))
    upstream.collect(4).subscribe(recorder)
    #expect(upstream.subscriberDescription == "CollectByCount")
    #expect(upstream.events == [.requested(.max(8))])
    for value in 1...3 { #expect(upstream.send(value) == .none) }
    #expect(upstream.send(4) == .max(12))
    for value in 5...7 { #expect(upstream.send(value) == .none) }
    #expect(upstream.send(8) == .max(12))
    #expect(upstream.send(9) == .none)
    #expect(upstream.send(10) == .none)
    upstream.send(completion: .finished)
    #expect(
      recorder.history == [
        "subscription(CollectByCount)", "value([1, 2, 3, 4])", "value([5, 6, 7, 8])", "value([9, 10])", "finished",
      ])
    #expect(upstream.events == [.requested(.max(8))])
    release(upstream, recorder)
  }

  /// collect(4) failing drops the partial buffer; later values answer `.none`; after a cancel a
  /// new subscription is cancelled and further requests and cancels stay put.
  /// Evidence: CollectByCountTests.swift `testFailureWithNonEmptyBuffer`,
  /// `testCancelAlreadyCancelled` (`subscription2.history == [.cancelled]`, upstream
  /// `[.requested(.unlimited), .cancelled]`).
  @Test func collectByCountFailureAndCancel() {
    let upstream = RecordingUpstream<Int, ReviewError>()
    let recorder = RecordingSubscriber<[Int], ReviewError>(initialDemand: .unlimited, demandPerValue: .max(3))
    upstream.collect(4).subscribe(recorder)
    #expect(upstream.send(1) == .none)
    #expect(upstream.send(2) == .none)
    upstream.send(completion: .failure(.oops))
    #expect(upstream.send(5) == .none)
    recorder.subscription?.request(.max(2))
    #expect(recorder.history == ["subscription(CollectByCount)", "failure(oops)"])
    #expect(upstream.events == [.requested(.unlimited)])
    release(upstream, recorder)

    let cancelled = RecordingUpstream<Int, ReviewError>()
    let cancelledRecorder = RecordingSubscriber<[Int], ReviewError>(initialDemand: .unlimited, demandPerValue: .max(3))
    cancelled.collect(4).subscribe(cancelledRecorder)
    cancelledRecorder.subscription?.cancel()
    let second = RecordingSubscription()
    cancelled.sendSubscription(second)
    #expect(second.events == [.cancelled])
    cancelledRecorder.subscription?.request(.max(2))
    cancelledRecorder.subscription?.cancel()
    #expect(cancelled.events == [.requested(.unlimited), .cancelled])
    release(cancelled, cancelledRecorder)
  }

  // MARK: - encode, decode

  /// An encoding error cancels upstream before the subscriber hears the failure; later values
  /// answer `.none` and the encoder is not called again.
  /// Evidence: EncodeTests.swift `testEncodingFailure` (the generic `testCodingFailure`:
  /// in `onFailure`, subscription history `[.requested(.unlimited), .cancelled]`; `send(2) ==
  /// .none`; history `[.subscription, .completion(.failure(.oops))]`), `testEncodeReflection`.
  @Test func encodeFailureCancelsUpstreamFirst() {
    let encoder = CountingEncoder(failing: true)
    expectCodingFailureCancelsUpstreamFirst(named: "Encode", calls: { encoder.calls }) { upstream, recorder in
      upstream.encode(encoder: encoder).subscribe(recorder)
    }
  }

  /// The same for a decoding error.
  /// Evidence: EncodeTests.swift `testDecodingFailure`, `testDecodeReflection` ("Decode").
  @Test func decodeFailureCancelsUpstreamFirst() {
    let decoder = CountingDecoder(failing: true)
    expectCodingFailureCancelsUpstreamFirst(named: "Decode", calls: { decoder.calls }) { upstream, recorder in
      upstream.decode(type: Int.self, decoder: decoder).subscribe(recorder)
    }
  }

  /// Shared by the encode and decode failure tests: `attach` subscribes `recorder` to `upstream`
  /// through the failing coder, which `calls` counts the uses of.
  private func expectCodingFailureCancelsUpstreamFirst(
    named name: String, calls: () -> Int,
    attach: (RecordingUpstream<Int, ReviewError>, RecordingSubscriber<Int, any Error>) -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let upstream = RecordingUpstream<Int, ReviewError>()
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: .unlimited, demandPerValue: .none)
    var eventsAtFailure: [SubscriptionEvent]?
    recorder.onCompletion = { _ in eventsAtFailure = upstream.events }
    attach(upstream, recorder)
    #expect(upstream.subscriberDescription == name, sourceLocation: sourceLocation)
    #expect(upstream.send(1) == .none, sourceLocation: sourceLocation)
    #expect(upstream.send(2) == .none, sourceLocation: sourceLocation)
    #expect(eventsAtFailure == [.requested(.unlimited), .cancelled], sourceLocation: sourceLocation)
    #expect(recorder.history.dropFirst() == ["failure(oops)"], sourceLocation: sourceLocation)
    #expect(calls() == 1, sourceLocation: sourceLocation)
    release(upstream, recorder)
  }

  /// encode passes a value and a completion that come before the subscription; after a finish,
  /// values answer `.none` and nothing more goes downstream.
  /// Evidence: EncodeTests.swift `testEncodeReceiveValueBeforeSubscription` (`.value(1)`,
  /// demand `.max(42)`), `testEncodeReceiveCompletionBeforeSubscription`, `testEncodingSuccess`
  /// (after `.finished`, `send(testValue) == .none`), `testDecodingSuccess`.
  @Test func encodeAndDecodeAroundTheSubscriptionAndTheFinish() {
    let early = RecordingUpstream<Int, ReviewError>(sendsSubscription: false)
    let earlyRecorder = RecordingSubscriber<Int, any Error>(initialDemand: .unlimited, demandPerValue: .max(42))
    early.encode(encoder: CountingEncoder(failing: false)).subscribe(earlyRecorder)
    #expect(early.send(0) == .max(42))
    #expect(earlyRecorder.history == ["value(1)"])
    release(early, earlyRecorder)

    let finishing = RecordingUpstream<Int, ReviewError>(sendsSubscription: false)
    let finishingRecorder = RecordingSubscriber<Int, any Error>(initialDemand: .unlimited, demandPerValue: .max(42))
    finishing.encode(encoder: CountingEncoder(failing: false)).subscribe(finishingRecorder)
    finishing.send(completion: .finished)
    #expect(finishingRecorder.history == ["finished"])
    release(finishing, finishingRecorder)

    let decoded = RecordingUpstream<Int, ReviewError>()
    let decodedRecorder = RecordingSubscriber<Int, any Error>(initialDemand: .unlimited, demandPerValue: .none)
    decoded.decode(type: Int.self, decoder: CountingDecoder(failing: false)).subscribe(decodedRecorder)
    #expect(decoded.send(1) == .none)
    decoded.send(completion: .finished)
    #expect(decoded.send(3) == .none)
    #expect(decodedRecorder.history == ["subscription(Decode)", "value(1)", "finished"])
    release(decoded, decodedRecorder)
  }

  // MARK: - Deferred

  /// Deferred makes its publisher when subscribed to, once per subscriber, and the subscriber
  /// gets that publisher's own subscription.
  /// Evidence: DeferredTests.swift `testDeferredCreatedAfterSubscription` (count 0, then 1, 2;
  /// history `[.subscription("CustomSubscription")]`).
  @Test func deferredSubscribesTheMadePublisherDirectly() {
    var made = 0
    let upstream = RecordingUpstream<Int, ReviewError>()
    let deferred = Deferred { () -> RecordingUpstream<Int, ReviewError> in
      made += 1
      return upstream
    }
    #expect(made == 0)
    let recorder = RecordingSubscriber<Int, ReviewError>(initialDemand: .none, demandPerValue: .none)
    deferred.subscribe(recorder)
    #expect(made == 1)
    #expect(recorder.history == ["subscription(RecordingUpstream)"])
    #expect(upstream.subscriberDescription == "RecordingSubscriber")
    deferred.subscribe(recorder)
    #expect(made == 2)
    release(upstream, recorder)
  }
}

#if CONDUIT_REVIEW_DIFFERENCES
  // MARK: - Differences from Combine, left as they are
  //
  // Each test below passes against Combine's recorded behaviour and fails against Conduit. They
  // are kept out of the suite: see the report of review 4 for why each is left alone.

  @Suite(.leakChecked)
  struct CombineParityReview4DifferenceTests {
    /// Combine's tryCompactMap (FilterProducer) is the subscriber's subscription: once the
    /// closure has thrown, the subscriber's requests and cancels stop there; after a cancel, a
    /// value upstream still sends answers `.none` and is not passed on.
    /// Evidence: CompactMapTests.swift `testTryCompactMapFailureBecauseOfThrow`
    /// (`.subscription("TryCompactMap")`; after `request(.max(1000))` and `cancel()`, the
    /// subscription history stays `[.requested(.max(3)), .cancelled]`), `testTryCompactMapDemand`
    /// (FilterTests.swift `testDemand`: after the cancel, `send("8") == .none`).
    @Test func tryCompactMapOwnsItsSubscription() {
      let upstream = RecordingUpstream<String, ReviewError>()
      let recorder = RecordingSubscriber<Int, any Error>(initialDemand: .max(3), demandPerValue: .max(10))
      upstream
        .tryCompactMap { text -> Int? in
          if text == "throw" { throw ReviewError.oops }
          return Int(text)
        }
        .subscribe(recorder)
      #expect(recorder.history == ["subscription(TryCompactMap)"])
      #expect(upstream.send("throw") == .none)
      recorder.subscription?.request(.max(1000))
      recorder.subscription?.cancel()
      #expect(upstream.events == [.requested(.max(3)), .cancelled])
      release(upstream, recorder)

      let cancelled = RecordingUpstream<String, ReviewError>()
      let cancelledRecorder = RecordingSubscriber<Int, any Error>(initialDemand: .max(5), demandPerValue: .max(80))
      cancelled.tryCompactMap { Int($0) }.subscribe(cancelledRecorder)
      cancelledRecorder.subscription?.cancel()
      #expect(cancelled.send("8") == .none)
      #expect(cancelledRecorder.history == ["subscription(TryCompactMap)"])
      release(cancelled, cancelledRecorder)
    }

    /// Combine's encode and decode are the subscriber's subscription too: a request made while
    /// upstream is being cancelled for an encoding error stays there, a cancel made from inside
    /// upstream's cancel does not reach upstream again, and after a cancel a value answers
    /// `.none`.
    /// Evidence: EncodeTests.swift `testCodingFailure` (`request(.max(42))` in `onCancel`;
    /// subscription history `[.requested(.unlimited), .cancelled]`),
    /// `testCancelsSubscriptionThenReleasesIt` (`recursionDepth == 1`), `testDemand` (after the
    /// cancel, `send(42) == .none`).
    @Test func encodeOwnsItsSubscription() {
      let upstream = RecordingUpstream<Int, ReviewError>()
      let recorder = RecordingSubscriber<Int, any Error>(initialDemand: .unlimited, demandPerValue: .none)
      upstream.onCancel = { recorder.subscription?.request(.max(42)) }
      upstream.encode(encoder: CountingEncoder(failing: true)).subscribe(recorder)
      #expect(recorder.history == ["subscription(Encode)"])
      _ = upstream.send(1)
      #expect(upstream.events == [.requested(.unlimited), .cancelled])
      upstream.onCancel = nil
      release(upstream, recorder)

      let recursive = RecordingUpstream<Int, ReviewError>()
      let recursiveRecorder = RecordingSubscriber<Int, any Error>(initialDemand: .none, demandPerValue: .none)
      var depth = 0
      recursive.onCancel = {
        guard depth < 5 else { return }
        depth += 1
        recursiveRecorder.subscription?.cancel()
      }
      recursive.encode(encoder: CountingEncoder(failing: false)).subscribe(recursiveRecorder)
      recursiveRecorder.subscription?.cancel()
      #expect(depth == 1)
      recursive.onCancel = nil
      release(recursive, recursiveRecorder)

      let cancelled = RecordingUpstream<Int, ReviewError>()
      let cancelledRecorder = RecordingSubscriber<Int, any Error>(initialDemand: .max(37), demandPerValue: .max(2))
      cancelled.encode(encoder: CountingEncoder(failing: false)).subscribe(cancelledRecorder)
      #expect(cancelled.send(37) == .max(2))
      cancelledRecorder.subscription?.cancel()
      #expect(cancelled.send(42) == .none)
      release(cancelled, cancelledRecorder)
    }

    /// Combine's collect() (ReduceProducer) sends its result at once, without demand, when
    /// upstream finishes having sent nothing.
    /// Evidence: CollectTests.swift `testtestUpstreamFinishesImmediately` (ReduceTests.swift
    /// `testUpstreamFinishesImmediately`, initial demand `nil`, "Downstream should receive the
    /// result nonetheless": `[.subscription("Collect"), .value([]), .completion(.finished)]`).
    @Test func collectOfNothingPublishesWithoutDemand() {
      let upstream = RecordingUpstream<Int, ReviewError>()
      let recorder = RecordingSubscriber<[Int], ReviewError>(initialDemand: .none, demandPerValue: .none)
      upstream.collect().subscribe(recorder)
      upstream.send(completion: .finished)
      #expect(recorder.history == ["subscription(Collect)", "value([])", "finished"])
      release(upstream, recorder)
    }

    /// Combine's collect(_:) passes a finish that comes after a cancel, a second completion, and
    /// a completion that comes before its subscription.
    /// Evidence: CollectByCountTests.swift `testCancelThenFinish` (`[.subscription,
    /// .completion(.finished)]` after the cancel), `testFinishWithEmptyBuffer` (two
    /// `.completion(.finished)`), `testCollectByCountReceiveCompletionBeforeSubscription`
    /// (`[.completion(.finished)]`).
    @Test func collectByCountPassesCompletionsItShouldNot() {
      let cancelled = RecordingUpstream<Int, ReviewError>()
      let cancelledRecorder = RecordingSubscriber<[Int], ReviewError>(
        initialDemand: .unlimited, demandPerValue: .max(3))
      cancelled.collect(4).subscribe(cancelledRecorder)
      _ = cancelled.send(1)
      cancelledRecorder.subscription?.cancel()
      cancelled.send(completion: .finished)
      #expect(cancelledRecorder.history == ["subscription(CollectByCount)", "finished"])
      release(cancelled, cancelledRecorder)

      let twice = RecordingUpstream<Int, ReviewError>()
      let twiceRecorder = RecordingSubscriber<[Int], ReviewError>(initialDemand: .unlimited, demandPerValue: .max(3))
      twice.collect(1).subscribe(twiceRecorder)
      twice.send(completion: .finished)
      twice.send(completion: .finished)
      #expect(twiceRecorder.history == ["subscription(CollectByCount)", "finished", "finished"])
      release(twice, twiceRecorder)

      let early = RecordingUpstream<Int, ReviewError>(sendsSubscription: false)
      let earlyRecorder = RecordingSubscriber<[Int], ReviewError>(initialDemand: .none, demandPerValue: .none)
      early.collect(19).subscribe(earlyRecorder)
      early.send(completion: .finished)
      #expect(earlyRecorder.history == ["finished"])
      release(early, earlyRecorder)
    }
  }
#endif

// MARK: - Helpers

extension Int {
  fileprivate var doubled: Int { self * 2 }
  fileprivate var tripled: Int { self * 3 }
  fileprivate var quadrupled: Int { self * 4 }
}

/// Breaks the cycles a test's pipeline makes through the hand-driven upstream and the recorder.
private func release<Output, Failure, Input, Downstream>(
  _ upstream: RecordingUpstream<Output, Failure>, _ recorder: RecordingSubscriber<Input, Downstream>
) {
  upstream.detach()
  recorder.forget()
}

/// Encodes each value as the number of values encoded so far (1, 2, …), or throws.
private final class CountingEncoder: TopLevelEncoder, @unchecked Sendable {
  private(set) var calls = 0
  private let failing: Bool

  init(failing: Bool) { self.failing = failing }

  func encode<T: Encodable>(_ value: T) throws -> Int {
    calls += 1
    if failing { throw ReviewError.oops }
    return calls
  }
}

/// Decodes an `Int` as itself, or throws.
private final class CountingDecoder: TopLevelDecoder, @unchecked Sendable {
  private(set) var calls = 0
  private let failing: Bool

  init(failing: Bool) { self.failing = failing }

  func decode<T: Decodable>(_ type: T.Type, from input: Int) throws -> T {
    calls += 1
    if failing { throw ReviewError.oops }
    guard let value = input as? T else { throw ReviewError.oops }
    return value
  }
}

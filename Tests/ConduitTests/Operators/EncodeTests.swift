import Conduit
import ConduitTesting
import Testing

private enum EncodeTestError: Error, Equatable {
  case upstream
  case negative
}

/// Encodes a value as its description; refuses negative integers.
private struct DescriptionEncoder: TopLevelEncoder {
  func encode<T: Encodable>(_ value: T) throws -> String {
    if let number = value as? Int, number < 0 { throw EncodeTestError.negative }
    return String(describing: value)
  }
}

@Suite(.leakChecked)
struct EncodeTests {
  @Test func encodesEveryValue() {
    let subscriber = TestSubscriber<String, any Error>()
    [1, 22, 333].publisher.encode(encoder: DescriptionEncoder()).subscribe(subscriber)
    #expect(subscriber.values == ["1", "22", "333"])
    #expect(isFinished(subscriber))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func anEncodingErrorFailsTheStreamAndCancelsUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<String, any Error>()
    upstream.encode(encoder: DescriptionEncoder()).subscribe(subscriber)
    upstream.send(1)
    upstream.send(-1)
    #expect(upstream.link?.isCancelled == true)
    #expect(subscriber.values == ["1"])
    #expect(failure(of: subscriber, as: EncodeTestError.self) == .negative)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(subscriber.values == ["1"])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func forwardsUpstreamFailureAsAnyError() {
    let upstream = HandDrivenUpstream<Int, EncodeTestError>()
    let subscriber = TestSubscriber<String, any Error>()
    upstream.encode(encoder: DescriptionEncoder()).subscribe(subscriber)
    upstream.send(7)
    upstream.send(completion: .failure(.upstream))
    #expect(subscriber.values == ["7"])
    #expect(failure(of: subscriber, as: EncodeTestError.self) == .upstream)
  }

  @Test func passesDemandThrough() {
    let subscriber = TestSubscriber<String, any Error>(initialDemand: .max(1))
    [1, 2, 3].publisher.encode(encoder: DescriptionEncoder()).subscribe(subscriber)
    #expect(subscriber.values == ["1"])
    subscriber.request(.max(2))
    #expect(subscriber.values == ["1", "2", "3"])
    #expect(isFinished(subscriber))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelReachesUpstreamAndStopsValues() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<String, any Error>()
    upstream.encode(encoder: DescriptionEncoder()).subscribe(subscriber)
    upstream.send(1)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    upstream.send(2)
    #expect(subscriber.values == ["1"])
    #expect(subscriber.completion == nil)
  }

  @Test func exposesUpstream() {
    let encode = Publishers.Encode(upstream: Just(1), encoder: DescriptionEncoder())
    #expect(encode.upstream == Just(1))
  }

  // MARK: Its own subscription, as Combine's

  @Test func theSubscriberGetsTheOperatorsOwnSubscription() {
    expectOwnSubscription(
      named: "Encode", mirrorLabels: ["downstream", "finished", "upstreamSubscription"], input: Int.self
    ) {
      $0.encode(encoder: DescriptionEncoder())
    }
  }

  @Test func afterTheStreamEndsRequestsAndCancelsStayHere() {
    expectEndedStreamPassesNothingUpstream(
      input: Int.self, after: [.cancelled], { $0.encode(encoder: DescriptionEncoder()) }
    ) {
      $0.send(-1)
    }
    expectEndedStreamPassesNothingUpstream(input: Int.self, after: [], { $0.encode(encoder: DescriptionEncoder()) }) {
      $0.send(completion: .finished)
    }
  }

  @Test func cancelReachesUpstreamOnceAndEndsTheStream() {
    expectCancelEndsTheStream(named: "Encode", sending: 1) { $0.encode(encoder: DescriptionEncoder()) }
  }

  @Test func whatComesBeforeTheSubscriptionIsHandledAsInCombine() {
    expectEarlyEvents(.completionPassedOn, named: "Encode", input: Int.self) {
      $0.encode(encoder: DescriptionEncoder())
    }
  }

  /// An encoding error cancels upstream before the subscriber hears the failure; later values
  /// answer `.none` and the encoder is not called again.
  /// Evidence (OpenCombine): EncodeTests.swift `testEncodingFailure` (the generic `testCodingFailure`:
  /// in `onFailure`, subscription history `[.requested(.unlimited), .cancelled]`; `send(2) ==
  /// .none`; history `[.subscription, .completion(.failure(.oops))]`), `testEncodeReflection`.
  @Test func encodeFailureCancelsUpstreamFirst() {
    let encoder = CountingEncoder(failing: true)
    expectCodingFailureCancelsUpstreamFirst(named: "Encode", calls: { encoder.calls }) { upstream, recorder in
      upstream.encode(encoder: encoder).subscribe(recorder)
    }
  }

  /// encode passes a value and a completion that come before the subscription; after a finish,
  /// values answer `.none` and nothing more goes downstream.
  /// Evidence (OpenCombine): EncodeTests.swift `testEncodeReceiveValueBeforeSubscription` (`.value(1)`,
  /// demand `.max(42)`), `testEncodeReceiveCompletionBeforeSubscription`, `testEncodingSuccess`
  /// (after `.finished`, `send(testValue) == .none`), `testDecodingSuccess`.
  @Test func encodeAndDecodeAroundTheSubscriptionAndTheFinish() {
    let early = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless, sendsSubscription: false)
    let earlyRecorder = RecordingSubscriber<Int, any Error>(initialDemand: .unlimited, demandPerValue: .max(42))
    early.encode(encoder: CountingEncoder(failing: false)).subscribe(earlyRecorder)
    #expect(early.send(0) == .max(42))
    #expect(earlyRecorder.history == ["value(1)"])
    release(early, earlyRecorder)

    let finishing = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless, sendsSubscription: false)
    let finishingRecorder = RecordingSubscriber<Int, any Error>(initialDemand: .unlimited, demandPerValue: .max(42))
    finishing.encode(encoder: CountingEncoder(failing: false)).subscribe(finishingRecorder)
    finishing.send(completion: .finished)
    #expect(finishingRecorder.history == ["finished"])
    release(finishing, finishingRecorder)

    let decoded = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
    let decodedRecorder = RecordingSubscriber<Int, any Error>(initialDemand: .unlimited, demandPerValue: .none)
    decoded.decode(type: Int.self, decoder: CountingDecoder(failing: false)).subscribe(decodedRecorder)
    #expect(decoded.send(1) == .none)
    decoded.send(completion: .finished)
    #expect(decoded.send(3) == .none)
    #expect(decodedRecorder.history == ["subscription(Decode)", "value(1)", "finished"])
    release(decoded, decodedRecorder)
  }

  /// As Combine's encode, it is the subscriber's subscription: a request made while
  /// upstream is being cancelled for an encoding error stays there, a cancel made from inside
  /// upstream's cancel does not reach upstream again, and after a cancel a value answers
  /// `.none`.
  /// Evidence (OpenCombine): EncodeTests.swift `testCodingFailure` (`request(.max(42))` in `onCancel`;
  /// subscription history `[.requested(.unlimited), .cancelled]`),
  /// `testCancelsSubscriptionThenReleasesIt` (`recursionDepth == 1`), `testDemand` (after the
  /// cancel, `send(42) == .none`).
  @Test func requestsAndCancelsAroundTheEndStayHere() {
    let upstream = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: .unlimited, demandPerValue: .none)
    upstream.onCancel = { recorder.subscription?.request(.max(42)) }
    upstream.encode(encoder: CountingEncoder(failing: true)).subscribe(recorder)
    #expect(recorder.history == ["subscription(Encode)"])
    _ = upstream.send(1)
    #expect(upstream.events == [.requested(.unlimited), .cancelled])
    upstream.onCancel = nil
    release(upstream, recorder)

    let recursive = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
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

    let cancelled = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
    let cancelledRecorder = RecordingSubscriber<Int, any Error>(initialDemand: .max(37), demandPerValue: .max(2))
    cancelled.encode(encoder: CountingEncoder(failing: false)).subscribe(cancelledRecorder)
    #expect(cancelled.send(37) == .max(2))
    cancelledRecorder.subscription?.cancel()
    #expect(cancelled.send(42) == .none)
    release(cancelled, cancelledRecorder)
  }
}

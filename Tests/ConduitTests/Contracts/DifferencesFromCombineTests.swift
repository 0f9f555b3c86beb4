import Conduit
import ConduitTesting
import Testing

// The deliberate differences from Combine (Documentation/DifferencesFromCombine.md), as tests
// that pass against Combine's recorded behaviour and fail against Conduit. They are compiled only
// with `-Xswiftc -DCONDUIT_REVIEW_DIFFERENCES`, where they fail; each says why Conduit differs.

#if CONDUIT_REVIEW_DIFFERENCES
  @Suite(.leakChecked)
  struct DifferencesFromCombineTests {
    /// Combine's tryCompactMap (FilterProducer) is the subscriber's subscription: once the
    /// closure has thrown, the subscriber's requests and cancels stop there; after a cancel, a
    /// value upstream still sends answers `.none` and is not passed on.
    /// Evidence (OpenCombine): CompactMapTests.swift `testTryCompactMapFailureBecauseOfThrow`
    /// (`.subscription("TryCompactMap")`; after `request(.max(1000))` and `cancel()`, the
    /// subscription history stays `[.requested(.max(3)), .cancelled]`), `testTryCompactMapDemand`
    /// (FilterTests.swift `testDemand`: after the cancel, `send("8") == .none`).
    @Test func tryCompactMapOwnsItsSubscription() {
      let upstream = RecordingUpstream<String, ParityFailure>()
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

      let cancelled = RecordingUpstream<String, ParityFailure>()
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
    /// Evidence (OpenCombine): EncodeTests.swift `testCodingFailure` (`request(.max(42))` in `onCancel`;
    /// subscription history `[.requested(.unlimited), .cancelled]`),
    /// `testCancelsSubscriptionThenReleasesIt` (`recursionDepth == 1`), `testDemand` (after the
    /// cancel, `send(42) == .none`).
    @Test func encodeOwnsItsSubscription() {
      let upstream = RecordingUpstream<Int, ParityFailure>()
      let recorder = RecordingSubscriber<Int, any Error>(initialDemand: .unlimited, demandPerValue: .none)
      upstream.onCancel = { recorder.subscription?.request(.max(42)) }
      upstream.encode(encoder: CountingEncoder(failing: true)).subscribe(recorder)
      #expect(recorder.history == ["subscription(Encode)"])
      _ = upstream.send(1)
      #expect(upstream.events == [.requested(.unlimited), .cancelled])
      upstream.onCancel = nil
      release(upstream, recorder)

      let recursive = RecordingUpstream<Int, ParityFailure>()
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

      let cancelled = RecordingUpstream<Int, ParityFailure>()
      let cancelledRecorder = RecordingSubscriber<Int, any Error>(initialDemand: .max(37), demandPerValue: .max(2))
      cancelled.encode(encoder: CountingEncoder(failing: false)).subscribe(cancelledRecorder)
      #expect(cancelled.send(37) == .max(2))
      cancelledRecorder.subscription?.cancel()
      #expect(cancelled.send(42) == .none)
      release(cancelled, cancelledRecorder)
    }

    /// Combine's collect() (ReduceProducer) sends its result at once, without demand, when
    /// upstream finishes having sent nothing.
    /// Evidence (OpenCombine): CollectTests.swift `testtestUpstreamFinishesImmediately` (ReduceTests.swift
    /// `testUpstreamFinishesImmediately`, initial demand `nil`, "Downstream should receive the
    /// result nonetheless": `[.subscription("Collect"), .value([]), .completion(.finished)]`).
    @Test func collectOfNothingPublishesWithoutDemand() {
      let upstream = RecordingUpstream<Int, ParityFailure>()
      let recorder = RecordingSubscriber<[Int], ParityFailure>(initialDemand: .none, demandPerValue: .none)
      upstream.collect().subscribe(recorder)
      upstream.send(completion: .finished)
      #expect(recorder.history == ["subscription(Collect)", "value([])", "finished"])
      release(upstream, recorder)
    }

    /// Combine's collect(_:) passes a finish that comes after a cancel, a second completion, and
    /// a completion that comes before its subscription.
    /// Evidence (OpenCombine): CollectByCountTests.swift `testCancelThenFinish` (`[.subscription,
    /// .completion(.finished)]` after the cancel), `testFinishWithEmptyBuffer` (two
    /// `.completion(.finished)`), `testCollectByCountReceiveCompletionBeforeSubscription`
    /// (`[.completion(.finished)]`).
    @Test func collectByCountPassesCompletionsItShouldNot() {
      let cancelled = RecordingUpstream<Int, ParityFailure>()
      let cancelledRecorder = RecordingSubscriber<[Int], ParityFailure>(
        initialDemand: .unlimited, demandPerValue: .max(3))
      cancelled.collect(4).subscribe(cancelledRecorder)
      _ = cancelled.send(1)
      cancelledRecorder.subscription?.cancel()
      cancelled.send(completion: .finished)
      #expect(cancelledRecorder.history == ["subscription(CollectByCount)", "finished"])
      release(cancelled, cancelledRecorder)

      let twice = RecordingUpstream<Int, ParityFailure>()
      let twiceRecorder = RecordingSubscriber<[Int], ParityFailure>(initialDemand: .unlimited, demandPerValue: .max(3))
      twice.collect(1).subscribe(twiceRecorder)
      twice.send(completion: .finished)
      twice.send(completion: .finished)
      #expect(twiceRecorder.history == ["subscription(CollectByCount)", "finished", "finished"])
      release(twice, twiceRecorder)

      let early = RecordingUpstream<Int, ParityFailure>(sendsSubscription: false)
      let earlyRecorder = RecordingSubscriber<[Int], ParityFailure>(initialDemand: .none, demandPerValue: .none)
      early.collect(19).subscribe(earlyRecorder)
      early.send(completion: .finished)
      #expect(earlyRecorder.history == ["finished"])
      release(early, earlyRecorder)
    }

    /// Combine subscribes to the prefix and to the suffix with two different subscribers, so
    /// what the prefix sends after it finished is dropped. Conduit uses one object for both: a
    /// value the prefix sends after its completion (breaking the contract) reaches the
    /// subscriber. Evidence (OpenCombine): ConcatenateTests.swift `testAppendBasicBehavior`
    /// (`publisher1.send(4000) == .none` after the prefix finished, not in the history) and
    /// `testCombineIdentifier` (the prefix's and suffix's subscribers are of different types).
    @Test func aValueThePrefixSendsAfterItFinishedIsDropped() {
      let prefix = RecordingUpstream<Int, Never>()
      let suffix = RecordingUpstream<Int, Never>()
      let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10))
      prefix.append(suffix).subscribe(subscriber)
      prefix.send(completion: .finished)
      #expect(prefix.send(4000) == .none)
      #expect(subscriber.values == [])
      subscriber.cancel()
      prefix.detach()
      suffix.detach()
    }

    /// Combine's autoconnect connects again for a subscriber that joins from inside the first
    /// one's `receive(subscription:)`. Conduit shares one connection (see
    /// `Publishers.Autoconnect.reconcile()`): two connections would each feed the subject.
    /// Evidence (OpenCombine): AutoconnectTests.swift `testReentranceWhenConnecting` (connection history
    /// `[.connected, .connected]`, then one `.disconnected`).
    @Test func autoconnectConnectsAgainForAReentrantSubscriber() {
      let connectable = RecordingConnectable()
      let autoconnect = connectable.autoconnect()
      let inner = TestSubscriber<Int, Never>(initialDemand: .none)
      let outer = RecordingSubscriber<Int, Never>(initialDemand: .none)
      outer.onSubscription = { _ in autoconnect.subscribe(inner) }
      autoconnect.subscribe(outer)
      #expect(connectable.connections == ["connected", "connected"])
      outer.subscription?.cancel()
      inner.cancel()
    }

    /// Combine's print logs a request made after a cancel (without passing it on). Conduit
    /// logs nothing after "receive cancel" (it lets go of the stream then).
    /// Evidence (OpenCombine): PrintTests.swift `testPrintWithPrefix` ("👉: request max: (100)" and
    /// "👉: request max: (42)" after "👉: receive cancel", with no "callback request demand").
    @Test func printLogsARequestAfterACancel() {
      let stream = SharedStream()
      let upstream = RecordingUpstream<Int, Never>()
      let subscriber = RecordingSubscriber<Int, Never>(initialDemand: .none)
      upstream.print(to: stream).subscribe(subscriber)
      subscriber.subscription?.cancel()
      subscriber.subscription?.request(.max(42))
      #expect(stream.lines.suffix(2) == ["receive cancel", "request max: (42)"])
      #expect(upstream.events == [.cancelled])
      upstream.detach()
    }

    /// Combine delivers a current-value subject's value from inside the `request` a subscriber
    /// makes in `receive(subscription:)`, before that returns. Conduit's subjects call a
    /// subscriber only once its `receive(subscription:)` has returned (the value waits for it).
    /// Evidence (OpenCombine): CurrentValueSubjectTests.swift `testMultipleSubscriptions` (the history starts
    /// `.value(112), .subscription("CurrentValueSubject")`: the subscriber records the
    /// subscription after its request).
    @Test func currentValueArrivesFromInsideTheFirstRequest() {
      let subject = CurrentValueSubject<Int, Never>(112)
      var calls: [String] = []
      subject.subscribe(
        AnySubscriber(
          receiveSubscription: {
            $0.request(.unlimited)
            calls.append("subscription")
          },
          receiveValue: {
            calls.append("\($0)")
            return .none
          }))
      #expect(calls == ["112", "subscription"])
      subject.send(completion: .finished)
    }

    /// Combine's sink lets go of its closures when it is cancelled after it got a subscription.
    /// Conduit's keeps them until the sink goes (the token's cancel drops the sink, so the usual
    /// `sink(...)` pipeline frees them at once): the closures are read without a lock or a
    /// retain per value, so a cancel from another thread cannot free them under a running value.
    /// Evidence (OpenCombine): SinkTests.swift `testReleasesClosuresAfterCancellationWithSubscription`.
    @Test func sinkCancelledWithASubscriptionReleasesItsClosures() {
      let (sink, capturedIsAlive) = sinkCapturingAnObject()
      sink.receive(subscription: RecordingSubscription())
      sink.cancel()
      withExtendedLifetime(sink) { #expect(!capturedIsAlive()) }
    }
  }
#endif

import Conduit
import ConduitTesting
import Testing

// The deliberate differences from Combine (Sources/Conduit/Conduit.docc/DifferencesFromCombine.md), as tests
// that pass against Combine's recorded behaviour and fail against Conduit; once Conduit behaves
// as Combine, a test moves to its subject's suite. They are compiled only
// with `-Xswiftc -DCONDUIT_REVIEW_DIFFERENCES`, where they fail; each says why Conduit differs.

#if CONDUIT_REVIEW_DIFFERENCES
  @Suite(.leakChecked)
  struct DifferencesFromCombineTests {
    /// Combine's collect() (ReduceProducer) sends its result at once, without demand, when
    /// upstream finishes having sent nothing.
    /// Evidence (OpenCombine): CollectTests.swift `testtestUpstreamFinishesImmediately` (ReduceTests.swift
    /// `testUpstreamFinishesImmediately`, initial demand `nil`, "Downstream should receive the
    /// result nonetheless": `[.subscription("Collect"), .value([]), .completion(.finished)]`).
    @Test func collectOfNothingPublishesWithoutDemand() {
      let upstream = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
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
      let cancelled = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
      let cancelledRecorder = RecordingSubscriber<[Int], ParityFailure>(
        initialDemand: .unlimited, demandPerValue: .max(3))
      cancelled.collect(4).subscribe(cancelledRecorder)
      _ = cancelled.send(1)
      cancelledRecorder.subscription?.cancel()
      cancelled.send(completion: .finished)
      #expect(cancelledRecorder.history == ["subscription(CollectByCount)", "finished"])
      release(cancelled, cancelledRecorder)

      let twice = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
      let twiceRecorder = RecordingSubscriber<[Int], ParityFailure>(initialDemand: .unlimited, demandPerValue: .max(3))
      twice.collect(1).subscribe(twiceRecorder)
      twice.send(completion: .finished)
      twice.send(completion: .finished)
      #expect(twiceRecorder.history == ["subscription(CollectByCount)", "finished", "finished"])
      release(twice, twiceRecorder)

      let early = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless, sendsSubscription: false)
      let earlyRecorder = RecordingSubscriber<[Int], ParityFailure>(initialDemand: .none, demandPerValue: .none)
      early.collect(19).subscribe(earlyRecorder)
      early.send(completion: .finished)
      #expect(earlyRecorder.history == ["finished"])
      release(early, earlyRecorder)
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
      let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
      let subscriber = RecordingSubscriber<Int, Never>(initialDemand: .none)
      upstream.print(to: stream).subscribe(subscriber)
      subscriber.subscription?.cancel()
      subscriber.subscription?.request(.max(42))
      #expect(stream.lines.suffix(2) == ["receive cancel", "request max: (42)"])
      #expect(upstream.events == [.cancelled])
      upstream.detach()
    }

    /// Combine's replaceEmpty hands its subscriber every value as upstream sends it, having
    /// asked upstream for everything, whatever the subscriber asked for. Conduit holds the
    /// values beyond the demand until the subscriber asks (DifferencesFromCombine §20).
    /// Evidence (OpenCombine): ReplaceEmptyTests.swift `testDemand` (upstream asked for
    /// `.unlimited` after the subscriber's `.max(42)`) and `Publishers.ReplaceEmpty.Inner.receive(_:)`,
    /// which passes each value on without counting demand.
    @Test func replaceEmptyHandsOnValuesBeyondTheDemand() {
      let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
      (1...3).publisher.eraseToAnyPublisher().replaceEmpty(with: 0).subscribe(subscriber)
      #expect(subscriber.values == [1, 2, 3])
    }

    /// Combine's sink lets go of its closures when it is cancelled after it got a subscription.
    /// Conduit's keeps them until the sink goes (the token's cancel drops the sink, so the usual
    /// `sink(...)` pipeline frees them at once): the closures are read without a lock or a
    /// retain per value, so a cancel from another thread cannot free them under a running value.
    /// Evidence (OpenCombine): SinkTests.swift `testReleasesClosuresAfterCancellationWithSubscription`.
    @Test func sinkCancelledWithASubscriptionReleasesItsClosures() {
      let (sink, capturedIsAlive) = sinkCapturingAnObject()
      sink.receive(subscription: SpySubscription())
      sink.cancel()
      withExtendedLifetime(sink) { #expect(!capturedIsAlive()) }
    }
  }
#endif

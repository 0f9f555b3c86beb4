import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct CollectTests {
  @Test func publishesEveryValueAsOneArrayOnFinish() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let collect: Publishers.Collect<HandDrivenUpstream<Int, Never>> = upstream.collect()
    let subscriber = TestSubscriber<[Int], Never>()
    collect.subscribe(subscriber)

    upstream.send(1)
    upstream.send(2)
    #expect(subscriber.values.isEmpty)
    upstream.send(3)
    upstream.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value([1, 2, 3]), .completion(.finished)])
  }

  @Test func anEmptyUpstreamPublishesAnEmptyArray() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<[Int], Never>()
    upstream.collect().subscribe(subscriber)

    upstream.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value([]), .completion(.finished)])
  }

  @Test func requestsUnlimitedAndHoldsTheArrayUntilDemand() {
    let upstream = HandDrivenUpstream<String, Never>(conduct: .careless)
    let subscriber = TestSubscriber<[String], Never>(initialDemand: .none)
    upstream.collect().subscribe(subscriber)
    #expect(upstream.requests == [.unlimited])

    upstream.send("x")
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(["x"]), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aFailureDropsTheCollectedValues() {
    let subject = PassthroughSubject<Int, ReducingError>()
    let subscriber = TestSubscriber<[Int], ReducingError>()
    subject.collect().subscribe(subscriber)

    subject.send(1)
    subject.send(completion: .failure(.upstream))

    #expect(subscriber.events == [.subscription, .completion(.failure(.upstream))])
  }

  @Test func cancelCancelsUpstreamAndSilences() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<[Int], Never>()
    upstream.collect().subscribe(subscriber)

    upstream.send(1)
    subscriber.cancel()
    upstream.send(2)
    upstream.send(completion: .finished)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events == [.subscription])
  }

  @Test func isEquatableWhenItsUpstreamIs() {
    #expect(Publishers.Collect(upstream: Just(1)) == Publishers.Collect(upstream: Just(1)))
    #expect(Publishers.Collect(upstream: Just(1)) != Publishers.Collect(upstream: Just(2)))
  }

  /// collect() is its own subscription: the subscriber's requests stay there, one cancel goes
  /// up, nothing after it; after a failure, everything from upstream is ignored.
  /// Evidence (OpenCombine): CollectTests.swift `testCancelAlreadyCancelled` (ReduceTests.swift's generic test:
  /// `[.requested(.unlimited), .cancelled]`), `testUpstreamFinishesWithError` (one failure,
  /// `send(73) == .none`), `testCollectReflection` (description "Collect").
  @Test func collectOwnsItsSubscription() {
    let upstream = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
    let recorder = RecordingSubscriber<[Int], ParityFailure>(initialDemand: .none, demandPerValue: .none)
    upstream.collect().subscribe(recorder)
    #expect(upstream.subscriberDescription == "Collect")
    #expect(recorder.history == ["subscription(Collect)"])
    recorder.subscription?.cancel()
    recorder.subscription?.request(.unlimited)
    recorder.subscription?.cancel()
    #expect(upstream.events == [.requested(.unlimited), .cancelled])
    release(upstream, recorder)

    let failing = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
    let failingRecorder = RecordingSubscriber<[Int], ParityFailure>(initialDemand: .max(3), demandPerValue: .max(1))
    failing.collect().subscribe(failingRecorder)
    failing.send(completion: .failure(.oops))
    failing.send(completion: .failure(.oops))
    #expect(failing.send(73) == .none)
    failing.send(completion: .finished)
    #expect(failingRecorder.history == ["subscription(Collect)", "failure(oops)"])
    #expect(failing.events == [.requested(.unlimited)])
    release(failing, failingRecorder)
  }
}

import Conduit
import ConduitTesting
import Testing

private struct ScanTestError: Error, Equatable {}

@Suite(.leakChecked)
struct ScanTests {
  @Test func publishesEachRunningResult() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    let scan: Publishers.Scan<PassthroughSubject<Int, Never>, Int> = subject.scan(0, +)
    scan.subscribe(subscriber)
    for value in 1...4 { subject.send(value) }
    subject.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1), .value(3), .value(6), .value(10), .completion(.finished)])
  }

  @Test func forwardsFailure() {
    let subject = PassthroughSubject<Int, ScanTestError>()
    let subscriber = TestSubscriber<String, ScanTestError>()
    subject.scan("") { $0 + "\($1)" }.subscribe(subscriber)
    subject.send(1)
    subject.send(2)
    subject.send(completion: .failure(ScanTestError()))
    #expect(subscriber.events == [.subscription, .value("1"), .value("12"), .completion(.failure(ScanTestError()))])
  }

  @Test func eachSubscriptionStartsFromTheInitialResult() {
    let scan = [1, 2, 3].publisher.eraseToAnyPublisher().scan(10, +)
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    scan.subscribe(first)
    scan.subscribe(second)
    #expect(first.values == [11, 13, 16])
    #expect(second.values == [11, 13, 16])
  }

  @Test func passesDemandThrough() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    (1...5).publisher.eraseToAnyPublisher().scan(0, +).subscribe(subscriber)
    #expect(subscriber.values == [1])
    subscriber.request(.max(2))
    #expect(subscriber.values == [1, 3, 6])
    #expect(subscriber.completion == nil)
    subscriber.request(.max(2))
    #expect(subscriber.values == [1, 3, 6, 10, 15])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelStopsValues() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.scan(0, +).subscribe(subscriber)
    subject.send(1)
    subscriber.cancel()
    subject.send(2)
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  @Test func reentrantSendKeepsOrderAndState() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { total in
      if total == 1 { subject.send(10) }
    }
    subject.scan(0, +).subscribe(subscriber)
    subject.send(1)
    subject.send(100)
    subject.send(completion: .finished)
    #expect(subscriber.values == [1, 11, 111])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func exposesItsParts() {
    let scan = Publishers.Scan(upstream: Just(1), initialResult: 5) { $0 * $1 }
    #expect(scan.initialResult == 5)
    #expect(scan.nextPartialResult(2, 3) == 6)
    #expect(scan.upstream == Just(1))
  }

  @Test func itsSubscriberIsDescribedAndReflectedAsInCombine() {
    expectPassThroughSubscriber(named: "Scan", mirrorLabels: ["downstream", "result"]) { $0.scan(0, +) }
  }

  @Test func itsMirrorShowsTheRunningResult() {
    let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless)
    let subscriber = RecordingSubscriber<Int, ParityError>(initialDemand: .unlimited)
    upstream.scan(10, +).subscribe(subscriber)
    upstream.send(5)
    let children = upstream.subscriberObject.flatMap { ($0 as? any CustomReflectable)?.customMirror.children }
    let result = children?.first { $0.label == "result" }
    #expect(result.map { "\($0.value)" } == "15")
    subscriber.forget()
    upstream.detach()
  }

  /// scan keeps only its running result: a value before the subscription, values after a
  /// cancel and repeated completions all go through.
  /// Evidence (OpenCombine): ScanTests.swift `testScanCancel` (after the cancel, `.value(2)` and four
  /// completions are recorded), `testScanError` (two failures), `testDemandSend`,
  /// `testScanReceiveValueBeforeSubscription` (`.value(0)`, demand `.max(42)`), `testScanEmpty`
  /// (described as "Scan").
  @Test func scanForwardsWhateverUpstreamSends() {
    let upstream = HandDrivenUpstream<Int, ParityFailure>(
      name: "RecordingUpstream", conduct: .careless, sendsSubscription: false)
    let recorder = RecordingSubscriber<Int, ParityFailure>(initialDemand: .unlimited, demandPerValue: .max(42))
    upstream.scan(0) { $0 + $1 * 2 }.subscribe(recorder)
    #expect(upstream.subscriberDescription == "Scan")
    #expect(upstream.send(0) == .max(42))
    upstream.sendSubscription()
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

  /// Plain `scan` passes the upstream subscription through in Combine too.
  /// Evidence (OpenCombine): ScanTests.swift `testRange` (`.subscription("PassthroughSubject")`) and
  /// `testCancelAlreadyCancelled` (history `[.requested(.unlimited), .cancelled,
  /// .requested(.unlimited), .cancelled]`).
  @Test func scanPassesTheUpstreamSubscriptionThrough() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = RecordingSubscriber<Int, Never>(initialDemand: .unlimited)
    upstream.scan(0, +).subscribe(subscriber)
    subscriber.subscription?.cancel()
    subscriber.subscription?.request(.unlimited)
    subscriber.subscription?.cancel()
    #expect(upstream.events == [.requested(.unlimited), .cancelled, .requested(.unlimited), .cancelled])
    upstream.detach()
  }
}

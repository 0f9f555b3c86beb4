import Conduit
import ConduitTesting
import Testing

private struct CompactMapTestError: Error, Equatable {}

@Suite(.leakChecked)
struct CompactMapTests {
  @Test func publishesNonNilResults() {
    let subject = PassthroughSubject<String, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.compactMap { Int($0) }.subscribe(subscriber)
    subject.send("1")
    subject.send("x")
    subject.send("3")
    subject.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1), .value(3), .completion(.finished)])
  }

  @Test func forwardsFailure() {
    let subject = PassthroughSubject<String, CompactMapTestError>()
    let subscriber = TestSubscriber<Int, CompactMapTestError>()
    subject.compactMap { Int($0) }.subscribe(subscriber)
    subject.send("2")
    subject.send(completion: .failure(CompactMapTestError()))
    #expect(subscriber.events == [.subscription, .value(2), .completion(.failure(CompactMapTestError()))])
  }

  @Test func droppedValueIsReplacedByUpstreamDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    ["1", "a", "b", "2", "3", "4"].publisher.eraseToAnyPublisher().compactMap { Int($0) }.subscribe(subscriber)
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion == nil)
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2, 3])
    subscriber.request(.max(5))
    #expect(subscriber.values == [1, 2, 3, 4])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelStopsValues() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.compactMap { $0 }.subscribe(subscriber)
    subject.send(1)
    subscriber.cancel()
    subject.send(2)
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  @Test func compactMapFusesWithCompactMap() {
    let subject = PassthroughSubject<String, Never>()
    let fused = subject.compactMap { Int($0) }.compactMap { $0 > 1 ? $0 * 10 : nil }
    #expect(type(of: fused) == Publishers.CompactMap<PassthroughSubject<String, Never>, Int>.self)
    let subscriber = TestSubscriber<Int, Never>()
    fused.subscribe(subscriber)
    for text in ["x", "1", "2", "3"] { subject.send(text) }
    subject.send(completion: .finished)
    #expect(subscriber.values == [20, 30])
  }

  @Test func compactMapFusesWithMap() {
    let subject = PassthroughSubject<String, Never>()
    let fused = subject.compactMap { Int($0) }.map { "#\($0)" }
    #expect(type(of: fused) == Publishers.CompactMap<PassthroughSubject<String, Never>, String>.self)
    let subscriber = TestSubscriber<String, Never>()
    fused.subscribe(subscriber)
    for text in ["x", "1", "2"] { subject.send(text) }
    subject.send(completion: .finished)
    #expect(subscriber.values == ["#1", "#2"])
  }

  @Test func itsSubscriberIsDescribedAndReflectedAsInCombine() {
    expectPassThroughSubscriber(named: "CompactMap", mirrorLabels: []) { $0.compactMap { $0 } }
  }

  /// compactMap keeps no state: a dropped value answers `.max(1)`, a kept one the subscriber's
  /// demand, and what upstream sends after completing still goes through; cancels and requests
  /// go straight up, a second cancel too.
  /// Evidence (OpenCombine): CompactMapTests.swift `testCompactMapBasicBehavior` (`send("a") == .max(1)`;
  /// after `.finished` and `.failure`, `send("42") == .max(4)` and `.value(42)` is recorded;
  /// counter 8), `testCompactMapCancelAlreadyCancelled`, `testCompactMapReflection`.
  @Test func compactMapKeepsNoState() {
    var calls = 0
    let upstream = HandDrivenUpstream<String, ParityFailure>(name: "RecordingUpstream", conduct: .careless)
    let recorder = RecordingSubscriber<Int, ParityFailure>(initialDemand: .max(2), demandPerValue: .max(4))
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
}

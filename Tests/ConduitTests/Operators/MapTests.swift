import Conduit
import ConduitTesting
import Testing

private struct MapTestError: Error, Equatable {}

@Suite(.leakChecked)
struct MapTests {
  @Test func transformsEveryValue() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<String, Never>()
    subject.map { "\($0 * 10)" }.subscribe(subscriber)
    subject.send(1)
    subject.send(2)
    subject.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value("10"), .value("20"), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func forwardsFailure() {
    let subject = PassthroughSubject<Int, MapTestError>()
    let subscriber = TestSubscriber<Int, MapTestError>()
    subject.map { $0 + 1 }.subscribe(subscriber)
    subject.send(1)
    subject.send(completion: .failure(MapTestError()))
    #expect(subscriber.values == [2])
    #expect(subscriber.completion == .failure(MapTestError()))
  }

  @Test func passesDemandThrough() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    [1, 2, 3].publisher.eraseToAnyPublisher().map { $0 * 2 }.subscribe(subscriber)
    #expect(subscriber.values == [2])
    subscriber.request(.max(2))
    #expect(subscriber.values == [2, 4, 6])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelStopsValues() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.map { $0 }.subscribe(subscriber)
    subject.send(1)
    subscriber.cancel()
    subject.send(2)
    subject.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  @Test func mapFusesIntoOneMap() {
    let subject = PassthroughSubject<Int, Never>()
    let fused = subject.map { $0 + 1 }.map { $0 * 10 }
    #expect(type(of: fused) == Publishers.Map<PassthroughSubject<Int, Never>, Int>.self)
    let subscriber = TestSubscriber<Int, Never>()
    fused.subscribe(subscriber)
    subject.send(1)
    subject.send(completion: .finished)
    #expect(subscriber.values == [20])
  }

  @Test func replaceNilIsAMap() {
    let subject = PassthroughSubject<Int?, Never>()
    let replaced = subject.replaceNil(with: 0)
    #expect(type(of: replaced) == Publishers.Map<PassthroughSubject<Int?, Never>, Int>.self)
    let subscriber = TestSubscriber<Int, Never>()
    replaced.subscribe(subscriber)
    subject.send(1)
    subject.send(nil)
    subject.send(3)
    subject.send(completion: .finished)
    #expect(subscriber.values == [1, 0, 3])
    #expect(subscriber.completion == .finished)
  }

  @Test func exposesUpstreamAndTransform() {
    let just = Just(2)
    let map = Publishers.Map(upstream: just) { $0 * 3 }
    #expect(map.upstream == just)
    #expect(map.transform(4) == 12)
  }

  @Test func itsSubscriberIsDescribedAndReflectedAsInCombine() {
    expectPassThroughSubscriber(named: "Map", mirrorLabels: []) { $0.map { $0 * 2 } }
  }

  @Test func replaceNilIsAMapAndReflectedAsOne() {
    expectPassThroughSubscriber(named: "Map", mirrorLabels: [], input: Int?.self, failure: ParityError.self) {
      $0.replaceNil(with: 0)
    }
  }

  /// replaceNil is a map: described as "Map", a value before the subscription passes.
  /// Evidence (OpenCombine): ReplaceNilTests.swift `testReplaceNilReflection` (description "Map"),
  /// `testReplaceNilReceiveValueBeforeSubscription`, `testReplaceNilCompletionBeforeSubscription`.
  @Test func replaceNilIsAMapThatKeepsNoState() {
    let upstream = HandDrivenUpstream<Int?, Never>(conduct: .careless, sendsSubscription: false)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .unlimited, demandPerValue: .max(42))
    upstream.replaceNil(with: 1).subscribe(recorder)
    #expect(upstream.subscriberDescription == "Map")
    #expect(upstream.send(nil) == .max(42))
    #expect(upstream.send(5) == .max(42))
    upstream.send(completion: .finished)
    #expect(recorder.history == ["value(1)", "value(5)", "finished"])
    release(upstream, recorder)
  }
}

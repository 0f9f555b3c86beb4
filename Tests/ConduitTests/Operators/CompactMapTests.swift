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
}

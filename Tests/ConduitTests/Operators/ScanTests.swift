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
    let upstream = RecordingUpstream<Int, ParityError>()
    let subscriber = RecordingSubscriber<Int, ParityError>(initialDemand: .unlimited)
    upstream.scan(10, +).subscribe(subscriber)
    upstream.send(5)
    let children = upstream.subscriberObject.flatMap { ($0 as? any CustomReflectable)?.customMirror.children }
    let result = children?.first { $0.label == "result" }
    #expect(result.map { "\($0.value)" } == "15")
    subscriber.forget()
    upstream.detach()
  }
}

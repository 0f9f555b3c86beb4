import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct MapKeyPathTests {
  @Test func publishesTheKeyPathOfEachValue() {
    let subject = PassthroughSubject<Point, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    let mapped: Publishers.MapKeyPath<PassthroughSubject<Point, Never>, Int> = subject.map(\.y)
    mapped.subscribe(subscriber)
    subject.send(Point(x: 1, y: 2, z: 3))
    subject.send(Point(x: 4, y: 5, z: 6))
    subject.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(2), .value(5), .completion(.finished)])
    #expect(mapped.keyPath == \Point.y)
  }

  @Test func forwardsFailure() {
    let subject = PassthroughSubject<Point, KeyPathTestError>()
    let subscriber = TestSubscriber<Int, KeyPathTestError>()
    subject.map(\.x).subscribe(subscriber)
    subject.send(completion: .failure(KeyPathTestError()))
    #expect(subscriber.events == [.subscription, .completion(.failure(KeyPathTestError()))])
  }

  @Test func passesDemandThrough() {
    let points = (0..<3).map { Point(x: $0, y: 0, z: 0) }
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    points.publisher.eraseToAnyPublisher().map(\.x).subscribe(subscriber)
    #expect(subscriber.values == [0])
    subscriber.request(.max(5))
    #expect(subscriber.values == [0, 1, 2])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelStopsValues() {
    let subject = PassthroughSubject<Point, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.map(\.z).subscribe(subscriber)
    subject.send(Point(x: 0, y: 0, z: 1))
    subscriber.cancel()
    subject.send(Point(x: 0, y: 0, z: 2))
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  @Test func itsSubscriberIsDescribedAndReflectedAsInCombine() {
    expectPassThroughSubscriber(
      named: "ValueForKey", mirrorLabels: ["keyPath"], input: Point.self, failure: ParityError.self
    ) { $0.map(\.x) }
  }
}

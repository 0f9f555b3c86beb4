import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct MapKeyPath3Tests {
  @Test func publishesThreeKeyPathsAsATuple() {
    let subject = PassthroughSubject<Point, Never>()
    let subscriber = TestSubscriber<(Int, Int, Int), Never>()
    let mapped: Publishers.MapKeyPath3<PassthroughSubject<Point, Never>, Int, Int, Int> = subject.map(\.z, \.y, \.x)
    mapped.subscribe(subscriber)
    subject.send(Point(x: 1, y: 2, z: 3))
    subject.send(completion: .finished)
    #expect(subscriber.values.map { [$0.0, $0.1, $0.2] } == [[3, 2, 1]])
    #expect(subscriber.completion == .finished)
    #expect(mapped.keyPath2 == \Point.x)
  }

  @Test func passesDemandAndCancel() {
    let subject = PassthroughSubject<Point, Never>()
    let subscriber = TestSubscriber<(Int, Int, Int), Never>(initialDemand: .max(1))
    subject.map(\.x, \.y, \.z).subscribe(subscriber)
    subject.send(Point(x: 1, y: 2, z: 3))
    subject.send(Point(x: 4, y: 5, z: 6))
    #expect(subscriber.values.count == 1)
    subscriber.cancel()
    subject.send(Point(x: 7, y: 8, z: 9))
    #expect(subscriber.values.count == 1)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func forwardsFailure() {
    let subject = PassthroughSubject<Point, KeyPathTestError>()
    let subscriber = TestSubscriber<(Int, Int, Int), KeyPathTestError>()
    subject.map(\.x, \.y, \.z).subscribe(subscriber)
    subject.send(completion: .failure(KeyPathTestError()))
    #expect(subscriber.completion == .failure(KeyPathTestError()))
  }

  @Test func itsSubscriberIsDescribedAndReflectedAsInCombine() {
    expectPassThroughSubscriber(
      named: "ValueForKeys", mirrorLabels: ["keyPath0", "keyPath1", "keyPath2"], input: Point.self,
      failure: ParityError.self
    ) { $0.map(\.x, \.y, \.x) }
  }
}

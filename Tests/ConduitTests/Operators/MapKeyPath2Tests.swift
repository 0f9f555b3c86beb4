import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct MapKeyPath2Tests {
  @Test func publishesBothKeyPathsAsATuple() {
    let subject = PassthroughSubject<Point, Never>()
    var received: [[Int]] = []
    var finished = false
    let mapped: Publishers.MapKeyPath2<PassthroughSubject<Point, Never>, Int, Int> = subject.map(\.x, \.z)
    let token = mapped.sink(
      receiveCompletion: { _ in finished = true }, receiveValue: { received.append([$0.0, $0.1]) })
    subject.send(Point(x: 1, y: 2, z: 3))
    subject.send(completion: .finished)
    #expect(received == [[1, 3]])
    #expect(finished)
    #expect(mapped.keyPath0 == \Point.x)
    #expect(mapped.keyPath1 == \Point.z)
    token.cancel()
  }

  @Test func passesDemandAndCancel() {
    let subject = PassthroughSubject<Point, Never>()
    let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .max(1))
    subject.map(\.x, \.y).subscribe(subscriber)
    subject.send(Point(x: 1, y: 2, z: 0))
    subject.send(Point(x: 3, y: 4, z: 0))
    #expect(subscriber.values.map { [$0.0, $0.1] } == [[1, 2]])
    subscriber.cancel()
    subject.send(Point(x: 5, y: 6, z: 0))
    #expect(subscriber.values.count == 1)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func forwardsFailure() {
    let subject = PassthroughSubject<Point, KeyPathTestError>()
    let subscriber = TestSubscriber<(Int, Int), KeyPathTestError>()
    subject.map(\.x, \.y).subscribe(subscriber)
    subject.send(completion: .failure(KeyPathTestError()))
    #expect(subscriber.completion == .failure(KeyPathTestError()))
  }

  @Test func itsSubscriberIsDescribedAndReflectedAsInCombine() {
    expectPassThroughSubscriber(
      named: "ValueForKeys", mirrorLabels: ["keyPath0", "keyPath1"], input: Point.self, failure: ParityError.self
    ) {
      $0.map(\.x, \.y)
    }
  }
}

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

  /// The key-path maps describe themselves as Combine's do and keep no state.
  /// Evidence (OpenCombine): MapKeyPathTests.swift `testMapKeyPathReflection` ("ValueForKey", "ValueForKeys"),
  /// `testMapKeyPathReceiveValueBeforeSubscription`, `testMapKeyPathReceiveCompletionBeforeSubscription`.
  @Test func keyPathMapsDescribeThemselvesAndKeepNoState() {
    let one = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let oneRecorder = RecordingSubscriber<Int, Never>(initialDemand: .unlimited, demandPerValue: .max(42))
    one.map(\.doubled).subscribe(oneRecorder)
    #expect(one.subscriberDescription == "ValueForKey")
    #expect(one.send(3) == .max(42))
    one.send(completion: .finished)
    #expect(oneRecorder.history == ["value(6)", "finished"])
    release(one, oneRecorder)

    let two = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let twoRecorder = RecordingSubscriber<(Int, Int), Never>(initialDemand: .unlimited, demandPerValue: .max(42))
    two.map(\.doubled, \.tripled).subscribe(twoRecorder)
    #expect(two.subscriberDescription == "ValueForKeys")
    #expect(two.send(1) == .max(42))
    #expect(twoRecorder.history == ["value((2, 3))"])
    release(two, twoRecorder)

    let three = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let threeRecorder = RecordingSubscriber<(Int, Int, Int), Never>(initialDemand: .unlimited, demandPerValue: .max(42))
    three.map(\.doubled, \.tripled, \.quadrupled).subscribe(threeRecorder)
    #expect(three.subscriberDescription == "ValueForKeys")
    #expect(three.send(1) == .max(42))
    #expect(threeRecorder.history == ["value((2, 3, 4))"])
    release(three, threeRecorder)
  }
}

extension Int {
  fileprivate var doubled: Int { self * 2 }
  fileprivate var tripled: Int { self * 3 }
  fileprivate var quadrupled: Int { self * 4 }
}

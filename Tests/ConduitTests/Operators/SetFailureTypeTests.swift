import Conduit
import ConduitTesting
import Testing

private struct SetFailureTypeTestError: Error, Equatable {}
private struct OtherTestError: Error, Equatable {}

@Suite(.leakChecked)
struct SetFailureTypeTests {
  @Test func republishesValuesAndFinishes() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, SetFailureTypeTestError>()
    let publisher: Publishers.SetFailureType<PassthroughSubject<Int, Never>, SetFailureTypeTestError> =
      subject.setFailureType(to: SetFailureTypeTestError.self)
    publisher.subscribe(subscriber)
    subject.send(1)
    subject.send(2)
    subject.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func matchesTheFailureTypeOfAnotherPublisher() {
    let subject = PassthroughSubject<Int, Never>()
    let erased: AnyPublisher<Int, SetFailureTypeTestError> =
      subject.setFailureType(to: SetFailureTypeTestError.self).eraseToAnyPublisher()
    let subscriber = TestSubscriber<Int, SetFailureTypeTestError>()
    erased.subscribe(subscriber)
    subject.send(3)
    subject.send(completion: .finished)
    #expect(subscriber.values == [3])
    #expect(subscriber.completion == .finished)
  }

  @Test func passesDemandThrough() {
    let subscriber = TestSubscriber<Int, SetFailureTypeTestError>(initialDemand: .max(1))
    [1, 2, 3].publisher.eraseToAnyPublisher().setFailureType(to: SetFailureTypeTestError.self).subscribe(subscriber)
    #expect(subscriber.values == [1])
    subscriber.request(.max(2))
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelStopsValues() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, SetFailureTypeTestError>()
    subject.setFailureType(to: SetFailureTypeTestError.self).subscribe(subscriber)
    subject.send(1)
    subscriber.cancel()
    subject.send(2)
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  @Test func setFailureTypeAgainWrapsTheSameUpstream() {
    let subject = PassthroughSubject<Int, Never>()
    let twice = subject.setFailureType(to: OtherTestError.self).setFailureType(to: SetFailureTypeTestError.self)
    #expect(type(of: twice) == Publishers.SetFailureType<PassthroughSubject<Int, Never>, SetFailureTypeTestError>.self)
    let subscriber = TestSubscriber<Int, SetFailureTypeTestError>()
    twice.subscribe(subscriber)
    subject.send(1)
    subject.send(completion: .finished)
    #expect(subscriber.values == [1])
  }

  @Test func isEquatableWhenUpstreamIs() {
    let first = Publishers.SetFailureType<Just<Int>, SetFailureTypeTestError>(upstream: Just(1))
    let same = Publishers.SetFailureType<Just<Int>, SetFailureTypeTestError>(upstream: Just(1))
    let other = Publishers.SetFailureType<Just<Int>, SetFailureTypeTestError>(upstream: Just(2))
    #expect(first == same)
    #expect(first != other)
    #expect(first.upstream == Just(1))
  }

  @Test func itsSubscriberIsDescribedAndReflectedAsInCombine() {
    expectPassThroughSubscriber(named: "SetFailureType", mirrorLabels: [], input: Int.self, failure: Never.self) {
      $0.setFailureType(to: SetFailureTypeTestError.self)
    }
  }

  /// setFailureType forwards like mapError; applied twice it is one operator.
  /// Evidence (OpenCombine): SetFailureTypeTests.swift `testEmpty` (two `setFailureType` make one subscriber
  /// described as "SetFailureType"), `testDemandSend`, `testCancelAlreadyCancelled`,
  /// `testSetFailureTypeCompletionBeforeSubscription` (`.completion(.finished)`).
  @Test func setFailureTypePassesEverythingThrough() {
    let upstream = HandDrivenUpstream<Int, Never>(
      name: "RecordingUpstream", conduct: .careless, sendsSubscription: false)
    let recorder = RecordingSubscriber<Int, ParityFailure>(initialDemand: .unlimited, demandPerValue: .max(4))
    upstream.setFailureType(to: Never.self).setFailureType(to: ParityFailure.self).subscribe(recorder)
    #expect(upstream.subscriberDescription == "SetFailureType")

    upstream.send(completion: .finished)
    upstream.sendSubscription()
    #expect(upstream.send(0) == .max(4))
    #expect(recorder.history == ["finished", "subscription(RecordingUpstream)", "value(0)"])

    recorder.subscription?.cancel()
    recorder.subscription?.request(.unlimited)
    recorder.subscription?.cancel()
    #expect(upstream.events == [.requested(.unlimited), .cancelled, .requested(.unlimited), .cancelled])
    release(upstream, recorder)
  }
}

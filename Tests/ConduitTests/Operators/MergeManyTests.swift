import Conduit
import ConduitTesting
import Testing

private struct MergeManyError: Error, Equatable {}

@Suite(.leakChecked)
struct MergeManyTests {
  @Test func mergesEveryPublisherOfASequence() {
    let subjects = (0..<5).map { _ in PassthroughSubject<Int, Never>() }
    let subscriber = TestSubscriber<Int, Never>()
    Publishers.MergeMany(subjects).subscribe(subscriber)

    for (index, subject) in subjects.enumerated().reversed() { subject.send(index) }
    for subject in subjects.dropLast() { subject.send(completion: .finished) }
    #expect(subscriber.completion == nil)
    subjects.last?.send(completion: .finished)

    #expect(subscriber.values == [4, 3, 2, 1, 0])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func keepsThePublishersItWasGiven() {
    let variadic = Publishers.MergeMany(Just(1), Just(2))
    let fromSequence = Publishers.MergeMany([Just(1), Just(2)])
    let longer = variadic.merge(with: Just(3))

    #expect(variadic.publishers == [Just(1), Just(2)])
    #expect(variadic == fromSequence)
    #expect(longer.publishers == [Just(1), Just(2), Just(3)])
    #expect(longer != variadic)
    let subscriber = TestSubscriber<Int, Never>()
    longer.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)])
  }

  @Test func finishesAtOnceWithNoPublishers() {
    let subscriber = TestSubscriber<Int, Never>()
    Publishers.MergeMany([Just<Int>]()).subscribe(subscriber)

    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func finishesWithNoPublishersWithoutDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Publishers.MergeMany([Just<Int>]()).subscribe(subscriber)

    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func sendsNothingWithNoPublishersAfterACancelInReceiveSubscription() {
    var events: [String] = []
    Publishers.MergeMany([Just<Int>]()).subscribe(
      AnySubscriber(
        receiveSubscription: {
          events.append("subscription")
          $0.cancel()
        },
        receiveValue: { _ in
          events.append("value")
          return .none
        },
        receiveCompletion: { _ in events.append("completion") }))

    #expect(events == ["subscription"])
  }

  @Test func failsAtTheFirstFailureAndCancelsTheOthers() {
    let probes = (0..<3).map { _ in CombiningProbe<Int, MergeManyError>() }
    let subscriber = TestSubscriber<Int, MergeManyError>()
    Publishers.MergeMany(probes).subscribe(subscriber)

    probes[0].send(1)
    probes[1].send(completion: .failure(MergeManyError()))

    #expect(subscriber.values == [1])
    #expect(subscriber.completion == .failure(MergeManyError()))
    #expect(probes[0].cancelled && probes[2].cancelled)
  }

  @Test func asksEachPublisherForOneValueAtATime() {
    let probes = (0..<3).map { _ in CombiningProbe<Int, Never>() }
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    Publishers.MergeMany(probes).subscribe(subscriber)

    for probe in probes { #expect(probe.requests == [.max(1)]) }
    probes[2].send(7)
    probes[0].send(8)
    #expect(subscriber.values == [7])
    #expect(probes[2].requests == [.max(1), .max(1)])
    #expect(probes[0].requests == [.max(1)])

    subscriber.request(.max(1))
    #expect(subscriber.values == [7, 8])
    #expect(probes[0].requests == [.max(1), .max(1)])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func cancellingCancelsEveryPublisher() {
    let probes = (0..<4).map { _ in CombiningProbe<Int, Never>() }
    let subscriber = TestSubscriber<Int, Never>()
    Publishers.MergeMany(probes).subscribe(subscriber)

    subscriber.cancel()
    probes[0].send(1)

    #expect(probes.allSatisfy { $0.cancelled })
    #expect(subscriber.values.isEmpty)
  }
}

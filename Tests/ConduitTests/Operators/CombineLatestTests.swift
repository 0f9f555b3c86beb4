import Conduit
import ConduitTesting
import Synchronization
import Testing

private struct CombineLatestError: Error, Equatable {}

@Suite(.leakChecked)
struct CombineLatestTests {
  @Test func publishesTheLatestOfEachOnceEveryUpstreamHasPublished() {
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<(Int, Int), Never>()
    first.combineLatest(second).subscribe(subscriber)

    first.send(1)
    first.send(2)
    #expect(subscriber.values.isEmpty)
    second.send(2)
    first.send(3)
    first.send(45)
    second.send(22)

    #expect(described(subscriber.values) == ["(2, 2)", "(3, 2)", "(45, 2)", "(45, 22)"])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func finishesOnlyWhenEveryUpstreamHasFinished() {
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<(Int, Int), Never>()
    first.combineLatest(second).subscribe(subscriber)

    first.send(1)
    first.send(completion: .finished)
    second.send(10)
    second.send(20)
    #expect(subscriber.completion == nil)
    second.send(completion: .finished)

    #expect(described(subscriber.values) == ["(1, 10)", "(1, 20)"])
    #expect(subscriber.completion == .finished)
  }

  @Test func waitsForEveryUpstreamEvenOneThatFinishedWithoutPublishing() {
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<(Int, Int), Never>()
    first.combineLatest(second).subscribe(subscriber)

    first.send(completion: .finished)
    second.send(1)
    #expect(subscriber.completion == nil)
    second.send(completion: .finished)

    #expect(subscriber.values.isEmpty)
    #expect(subscriber.completion == .finished)
  }

  @Test func failsAtTheFirstFailureAndCancelsTheOtherUpstreams() {
    let first = CombiningProbe<Int, CombineLatestError>()
    let second = CombiningProbe<Int, CombineLatestError>()
    let subscriber = TestSubscriber<(Int, Int), CombineLatestError>()
    first.combineLatest(second).subscribe(subscriber)

    first.send(1)
    second.send(2)
    first.send(completion: .failure(CombineLatestError()))
    second.send(3)

    #expect(described(subscriber.values) == ["(1, 2)"])
    #expect(subscriber.completion == .failure(CombineLatestError()))
    #expect(second.cancelled)
    #expect(!first.cancelled)
  }

  @Test func passesEveryRequestToEveryUpstream() {
    let first = CombiningProbe<Int, Never>()
    let second = CombiningProbe<Int, Never>()
    let third = CombiningProbe<Int, Never>()
    let subscriber = TestSubscriber<(Int, Int, Int), Never>(initialDemand: .max(2))
    first.combineLatest(second, third).subscribe(subscriber)
    subscriber.request(.max(1))

    for probe in [first, second, third] {
      #expect(probe.requests == [.max(2), .max(1)])
    }
    subscriber.cancel()
  }

  // As in Combine: demand the subscriber adds from inside `receive(_:)` is requested of every
  // upstream, the one whose value went down included, rather than returned to it.
  @Test func requestsDemandAddedDuringReceiveOfEveryUpstream() {
    let first = HandDrivenUpstream<Int, Never>()
    let second = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10))
    subscriber.onValue { _ in subscriber.request(.max(666)) }
    first.combineLatest(second) { $0 + $1 }.subscribe(subscriber)

    #expect(first.send(1) == .none)
    #expect(second.send(1) == .none)

    #expect(first.link?.requests == [.max(10), .max(666)])
    #expect(second.link?.requests == [.max(10), .max(666)])
    subscriber.cancel()
  }

  @Test func dropsACombinationTheDownstreamHasNoDemandForButKeepsTheLatestValues() {
    let first = CombiningProbe<Int, Never>()
    let second = CombiningProbe<Int, Never>()
    let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .max(1))
    first.combineLatest(second).subscribe(subscriber)

    first.send(1)
    second.send(10)
    subscriber.request(.max(1))
    first.send(2)
    second.send(20)  // no demand left: dropped
    subscriber.request(.max(1))
    #expect(described(subscriber.values) == ["(1, 10)", "(2, 10)"])
    first.send(3)

    #expect(described(subscriber.values) == ["(1, 10)", "(2, 10)", "(3, 20)"])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func sendsNothingBeyondDemandFromSubjects() {
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .max(1))
    first.combineLatest(second).subscribe(subscriber)

    first.send(1)
    second.send(10)
    first.send(2)  // `first` was asked for one value: its subject drops this one.
    subscriber.request(.max(1))
    second.send(20)

    #expect(described(subscriber.values) == ["(1, 10)", "(1, 20)"])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func cancellingCancelsEveryUpstreamAndStopsDelivery() {
    let first = CombiningProbe<Int, Never>()
    let second = CombiningProbe<Int, Never>()
    let subscriber = TestSubscriber<(Int, Int), Never>()
    first.combineLatest(second).subscribe(subscriber)

    first.send(1)
    second.send(1)
    subscriber.cancel()
    first.send(2)

    #expect(first.cancelled)
    #expect(second.cancelled)
    #expect(described(subscriber.values) == ["(1, 1)"])
    #expect(subscriber.completion == nil)
  }

  @Test func valuesSentFromInsideReceiveAreCombinedAfterTheCurrentOne() {
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<(Int, Int), Never>()
    subscriber.onValue { pair in
      if pair == (1, 10) {
        second.send(20)
        first.send(2)
      }
    }
    first.combineLatest(second).subscribe(subscriber)

    first.send(1)
    second.send(10)

    #expect(described(subscriber.values) == ["(1, 10)", "(2, 10)", "(2, 20)"])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func oneValueAtATimeOverLongSynchronousUpstreamsDoesNotGrowTheStack() {
    let count = 50_000
    let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (0..<count).publisher.combineLatest((0..<count).publisher).subscribe(subscriber)

    let values = subscriber.values
    #expect(values.count == 2 * count - 1)
    #expect(values.last.map { "\($0)" } == "(\(count - 1), \(count - 1))")
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func combinesFourUpstreams() {
    let subscriber = TestSubscriber<(Int, String, Bool, Double), Never>()
    let combined: Publishers.CombineLatest4<Just<Int>, Just<String>, Just<Bool>, Just<Double>> =
      Just(1).combineLatest(Just("a"), Just(true), Just(0.5))
    combined.subscribe(subscriber)

    #expect(described(subscriber.values) == [#"(1, "a", true, 0.5)"#])
    #expect(subscriber.completion == .finished)
  }

  @Test func fourSubjectsKeepEachLatestValueInItsOwnPlace() {
    let a = PassthroughSubject<Int, Never>()
    let b = PassthroughSubject<Int, Never>()
    let c = PassthroughSubject<Int, Never>()
    let d = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<(Int, Int, Int, Int), Never>()
    a.combineLatest(b, c, d).subscribe(subscriber)

    d.send(4)
    c.send(3)
    b.send(2)
    #expect(subscriber.values.isEmpty)
    a.send(1)
    c.send(30)
    d.send(40)
    b.send(20)

    #expect(
      described(subscriber.values) == ["(1, 2, 3, 4)", "(1, 2, 30, 4)", "(1, 2, 30, 40)", "(1, 20, 30, 40)"])
    subscriber.cancel()
  }

  @Test func threeSubjectsKeepEachLatestValueInItsOwnPlace() {
    let a = PassthroughSubject<Int, Never>()
    let b = PassthroughSubject<Int, Never>()
    let c = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<(Int, Int, Int), Never>()
    a.combineLatest(b, c).subscribe(subscriber)

    c.send(3)
    b.send(2)
    a.send(1)
    b.send(20)

    #expect(described(subscriber.values) == ["(1, 2, 3)", "(1, 20, 3)"])
    subscriber.cancel()
  }

  @Test func transformsEachCombination() {
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let two = TestSubscriber<Int, Never>()
    let three = TestSubscriber<Int, Never>()
    let four = TestSubscriber<Int, Never>()
    let product:
      Publishers.Map<Publishers.CombineLatest<PassthroughSubject<Int, Never>, PassthroughSubject<Int, Never>>, Int> =
        first.combineLatest(second) { $0 * $1 }
    product.subscribe(two)
    first.combineLatest(second, Just(100)) { $0 + $1 + $2 }.subscribe(three)
    first.combineLatest(second, Just(1), Just(2)) { $0 * $1 * $2 * $3 }.subscribe(four)

    first.send(2)
    second.send(9)
    first.send(3)
    first.send(completion: .finished)
    second.send(completion: .finished)

    #expect(two.values == [18, 27])
    #expect(three.values == [111, 112])
    #expect(four.values == [36, 54])
    for subscriber in [two, three, four] { #expect(subscriber.completion == .finished) }
  }

  @Test func equalWhenTheUpstreamsAreEqual() {
    #expect(Publishers.CombineLatest(Just(1), Just(2)) == Publishers.CombineLatest(Just(1), Just(2)))
    #expect(Publishers.CombineLatest(Just(1), Just(2)) != Publishers.CombineLatest(Just(2), Just(2)))
    #expect(
      Publishers.CombineLatest3(Just(1), Just(2), Just(3)) == Publishers.CombineLatest3(Just(1), Just(2), Just(3)))
    #expect(
      Publishers.CombineLatest4(Just(1), Just(2), Just(3), Just(4))
        != Publishers.CombineLatest4(Just(1), Just(2), Just(3), Just(0)))
  }

  @Test func combineLatestDoesNotCancelTheFailedUpstream() {
    let first = HandDrivenUpstream<Int, ParityError>()
    let second = HandDrivenUpstream<Int, ParityError>()
    let subscriber = TestSubscriber<Int, ParityError>()
    first.combineLatest(second) { $0 + $1 }.subscribe(subscriber)
    first.send(completion: .failure(ParityError()))
    #expect(subscriber.completion == .failure(ParityError()))
    #expect(second.link?.isCancelled == true)
    #expect(first.link?.isCancelled == false)
  }

  /// combineLatest finishes only when every upstream has finished, even if one finished
  /// without ever sending. Evidence (OpenCombine): CombineLatestTests.swift
  /// `testImmediateFinishWhenOneChildFinishesWithNoSurplus`.
  @Test func combineLatestKeepsGoingWhenAnUpstreamFinishesEmpty() {
    let first = HandDrivenUpstream<Int, Never>()
    let second = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    first.combineLatest(second) { $0 + $1 }.subscribe(subscriber)
    first.send(completion: .finished)
    #expect(subscriber.events == [.subscription])
    #expect(second.link?.isCancelled == false)
    second.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }
}

/// Contract 3 under load: two upstreams sending on two threads never overlap calls into the
/// downstream, and the last combination holds the last value of each.
@Suite(.leakChecked, .serialized)
struct CombineLatestStressTests {
  @Test func twoSendersOnTwoThreadsNeverOverlap() {
    let count = 20_000
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<(Int, Int), Never>()
    first.combineLatest(second).subscribe(subscriber)

    sendFromTwoThreads(first, second, count: count)
    first.send(completion: .finished)
    second.send(completion: .finished)

    let values = subscriber.values
    #expect(values.count <= 2 * count)
    #expect(values.count >= count)
    #expect(values.last.map { "\($0)" } == "(\(count - 1), \(-count))")
    #expect(values.map(\.0) == values.map(\.0).sorted())
    #expect(values.map(\.1) == values.map(\.1).sorted(by: >))
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  /// Two threads request one combination at a time while each upstream emits on its own
  /// thread: the downstream never gets more than it asked for, and each place only moves on.
  @Test func oneAtATimeRequestsFromTwoThreadsWhileBothUpstreamsEmitNeverExceedDemand() {
    let count = 20_000
    let first = HandDrivenUpstream<Int, Never>(pumping: 0..<count, emitsOnRequest: false)
    let second = HandDrivenUpstream<Int, Never>(pumping: 0..<count, emitsOnRequest: false)
    let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .none)
    first.combineLatest(second).subscribe(subscriber)
    let requesters = 2
    let perRequester = 2_000
    let granted = requesters * perRequester

    pumpBothWhileRequestingOneAtATime(first, second, requesters: requesters, perRequester: perRequester) {
      subscriber.request(.max(1))
    }

    let values = subscriber.values
    #expect(subscriber.violations.isEmpty)
    #expect(!values.isEmpty)
    #expect(values.count <= granted)
    #expect(values.map(\.0) == values.map(\.0).sorted())
    #expect(values.map(\.1) == values.map(\.1).sorted())
    subscriber.cancel()
  }
}

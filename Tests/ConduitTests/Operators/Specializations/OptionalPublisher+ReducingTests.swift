import Conduit
import ConduitTesting
import Testing

/// Subscribes a recording subscriber with unlimited demand and returns what it received.
private func events<P: Publisher>(_ publisher: P) -> [TestSubscriber<P.Output, P.Failure>.Event] {
  let subscriber = TestSubscriber<P.Output, P.Failure>()
  publisher.subscribe(subscriber)
  #expect(subscriber.violations.isEmpty)
  return subscriber.events
}

@Suite(.leakChecked)
struct OptionalPublisherReducingTests {
  // The calls below carry no type annotation, so `type(of:)` shows which overload won.
  let some = Optional(3).publisher
  let none = Optional<Int>.none.publisher

  @Test func minAndMaxReturnTheSamePublisher() {
    #expect(type(of: some.min()) == Optional<Int>.Publisher.self)
    #expect(type(of: some.max()) == Optional<Int>.Publisher.self)
    #expect(some.min() == some)
    #expect(some.max() == some)
    #expect(none.min() == none)
    #expect(none.max() == none)
  }

  @Test func minByAndMaxByReturnTheSamePublisherWithoutCallingTheClosure() {
    var calls = 0
    let ordered: (Int, Int) -> Bool = {
      calls += 1; return $0 < $1
    }
    #expect(type(of: some.min(by: ordered)) == Optional<Int>.Publisher.self)
    #expect(type(of: some.max(by: ordered)) == Optional<Int>.Publisher.self)
    #expect(some.min(by: ordered) == some)
    #expect(none.max(by: ordered) == none)
    #expect(calls == 0)
  }

  @Test func containsComparesAtOnceAndStaysEmptyWithoutAValue() {
    #expect(type(of: some.contains(3)) == Optional<Bool>.Publisher.self)
    #expect(some.contains(3) == Optional(true).publisher)
    #expect(some.contains(4) == Optional(false).publisher)
    #expect(none.contains(3) == Optional<Bool>.none.publisher)
    #expect(events(none.contains(3)) == [.subscription, .completion(.finished)])
  }

  @Test func containsWhereAndAllSatisfyCallThePredicateOnlyForAValue() {
    var calls = 0
    let big: (Int) -> Bool = {
      calls += 1; return $0 > 10
    }
    #expect(type(of: some.contains(where: big)) == Optional<Bool>.Publisher.self)
    #expect(type(of: some.allSatisfy(big)) == Optional<Bool>.Publisher.self)
    #expect(calls == 2)
    #expect(Optional(30).publisher.contains(where: big) == Optional(true).publisher)
    #expect(some.allSatisfy(big) == Optional(false).publisher)
    #expect(none.contains(where: big) == Optional<Bool>.none.publisher)
    #expect(none.allSatisfy(big) == Optional<Bool>.none.publisher)
    #expect(calls == 4)
    #expect(events(some.allSatisfy { $0 > 0 }) == [.subscription, .value(true), .completion(.finished)])
  }

  @Test func collectPublishesAnArrayEvenWithoutAValue() {
    #expect(type(of: some.collect()) == Optional<[Int]>.Publisher.self)
    #expect(some.collect() == Optional([3]).publisher)
    #expect(none.collect() == Optional([Int]()).publisher)
    #expect(events(none.collect()) == [.subscription, .value([]), .completion(.finished)])
  }

  @Test func countPublishesOneOrNothing() {
    #expect(type(of: some.count()) == Optional<Int>.Publisher.self)
    #expect(some.count() == Optional(1).publisher)
    #expect(none.count() == Optional<Int>.none.publisher)
    #expect(events(some.count()) == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func firstAndLastReturnTheSamePublisher() {
    #expect(type(of: some.first()) == Optional<Int>.Publisher.self)
    #expect(type(of: some.last()) == Optional<Int>.Publisher.self)
    #expect(some.first() == some)
    #expect(none.last() == none)
  }

  @Test func firstWhereAndLastWhereApplyThePredicateAtOnce() {
    var calls = 0
    let big: (Int) -> Bool = {
      calls += 1; return $0 > 5
    }
    #expect(type(of: some.first(where: big)) == Optional<Int>.Publisher.self)
    #expect(type(of: some.last(where: big)) == Optional<Int>.Publisher.self)
    #expect(Optional(7).publisher.first(where: big) == Optional(7).publisher)
    #expect(some.first(where: big) == none)
    #expect(Optional(7).publisher.last(where: big) == Optional(7).publisher)
    #expect(some.last(where: big) == none)
    #expect(none.first(where: big) == none)
    #expect(calls == 6)
  }

  @Test func ignoreOutputReturnsAnEmptyThatFinishes() {
    let ignored = some.ignoreOutput()
    #expect(type(of: ignored) == Empty<Int, Never>.self)
    #expect(ignored.completeImmediately)
    #expect(events(ignored) == [.subscription, .completion(.finished)])
  }

  @Test func reduceAppliesTheClosureOnlyForAValue() {
    var calls = 0
    let plus: (Int, Int) -> Int = {
      calls += 1; return $0 + $1
    }
    let sum = some.reduce(10, plus)
    #expect(type(of: sum) == Optional<Int>.Publisher.self)
    #expect(sum == Optional(13).publisher)
    #expect(none.reduce(10, plus) == none)
    #expect(calls == 1)
  }

  @Test func outputAtPublishesOnlyIndexZero() {
    #expect(type(of: some.output(at: 0)) == Optional<Int>.Publisher.self)
    #expect(some.output(at: 0) == some)
    #expect(some.output(at: 1) == none)
    #expect(none.output(at: 0) == none)
  }

  @Test func outputInPublishesWhenTheRangeContainsIndexZero() {
    #expect(type(of: some.output(in: 0..<3)) == Optional<Int>.Publisher.self)
    #expect(some.output(in: 0..<3) == some)
    #expect(some.output(in: 0...0) == some)
    #expect(some.output(in: ...0) == some)
    #expect(some.output(in: 0..<(Int.max - 2)) == some)
    #expect(some.output(in: 0..<0) == none)
    #expect(some.output(in: ..<0) == none)
    #expect(some.output(in: 1..<3) == none)
    #expect(none.output(in: 0..<3) == none)
  }

  @Test func aNegativeOutputIndexStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Optional(1).publisher.output(at: -1)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("output(at: -1)"))
  }

  @Test func aRangeStartingBelowZeroStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Optional(1).publisher.output(in: -1...4)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("must not start below 0"))
  }

  /// Combine's bound: a range ending at `Int.max - 1` or beyond (`0...` among them) traps.
  @Test func aRangeEndingTooHighStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Optional(1).publisher.output(in: 0..<(Int.max - 1))
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("must end below Int.max - 1"))
    await #expect(processExitsWith: .failure) {
      _ = Optional(1).publisher.output(in: 0...)
    }
  }

  @Test func theResultWaitsForDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    some.count().subscribe(subscriber)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }
}

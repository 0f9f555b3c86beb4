import Conduit
import ConduitTesting
import Testing

private struct JustReducingTestError: Error, Equatable {}

/// Subscribes a recording subscriber with unlimited demand and returns what it received.
private func events<P: Publisher>(_ publisher: P) -> [TestSubscriber<P.Output, P.Failure>.Event] {
  let subscriber = TestSubscriber<P.Output, P.Failure>()
  publisher.subscribe(subscriber)
  #expect(subscriber.violations.isEmpty)
  return subscriber.events
}

/// The error a `Result<_, any Error>.Publisher` fails with, or `nil` when it succeeds.
private func failure<T>(_ publisher: Result<T, any Error>.Publisher) -> (any Error)? {
  let subscriber = TestSubscriber<T, any Error>()
  publisher.subscribe(subscriber)
  guard case .failure(let error) = subscriber.completion else { return nil }
  return error
}

@Suite(.leakChecked)
struct JustReducingTests {
  // The calls below carry no type annotation, so `type(of:)` shows which overload won.

  @Test func minAndMaxReturnTheSameJust() {
    #expect(type(of: Just(3).min()) == Just<Int>.self)
    #expect(type(of: Just(3).max()) == Just<Int>.self)
    #expect(Just(3).min() == Just(3))
    #expect(Just(3).max() == Just(3))
    #expect(events(Just(3).min()) == [.subscription, .value(3), .completion(.finished)])
  }

  @Test func minByAndMaxByReturnTheSameJustWithoutCallingTheClosure() {
    var calls = 0
    let ordered: (Int, Int) -> Bool = {
      calls += 1; return $0 < $1
    }
    let minimum = Just(3).min(by: ordered)
    let maximum = Just(3).max(by: ordered)
    #expect(type(of: minimum) == Just<Int>.self)
    #expect(type(of: maximum) == Just<Int>.self)
    #expect(minimum == Just(3))
    #expect(maximum == Just(3))
    #expect(calls == 0)
  }

  @Test func containsComparesAtOnce() {
    #expect(type(of: Just(3).contains(3)) == Just<Bool>.self)
    #expect(Just(3).contains(3) == Just(true))
    #expect(Just(3).contains(4) == Just(false))
    #expect(events(Just(3).contains(4)) == [.subscription, .value(false), .completion(.finished)])
  }

  @Test func containsWhereAndAllSatisfyApplyThePredicateOnce() {
    var calls = 0
    let big: (Int) -> Bool = {
      calls += 1; return $0 > 10
    }
    #expect(type(of: Just(3).contains(where: big)) == Just<Bool>.self)
    #expect(type(of: Just(3).allSatisfy(big)) == Just<Bool>.self)
    #expect(Just(30).contains(where: big) == Just(true))
    #expect(Just(3).contains(where: big) == Just(false))
    #expect(Just(30).allSatisfy(big) == Just(true))
    #expect(Just(3).allSatisfy(big) == Just(false))
    #expect(calls == 6)
    #expect(events(Just(30).allSatisfy { $0 > 10 }) == [.subscription, .value(true), .completion(.finished)])
  }

  @Test func tryContainsAndTryAllSatisfyReturnResultPublishers() throws {
    #expect(type(of: Just(3).tryContains { $0 > 1 }) == Result<Bool, any Error>.Publisher.self)
    #expect(type(of: Just(3).tryAllSatisfy { $0 > 1 }) == Result<Bool, any Error>.Publisher.self)
    #expect(try Just(3).tryContains { $0 > 1 }.result.get() == true)
    #expect(try Just(3).tryAllSatisfy { $0 > 5 }.result.get() == false)
    let throwing: (Int) throws -> Bool = { _ in throw JustReducingTestError() }
    #expect(failure(Just(3).tryContains(where: throwing)) is JustReducingTestError)
    #expect(failure(Just(3).tryAllSatisfy(throwing)) is JustReducingTestError)
    #expect(failure(Just(3).tryAllSatisfy { _ in true }) == nil)
  }

  @Test func collectWrapsTheValueInAnArray() {
    #expect(type(of: Just(1).collect()) == Just<[Int]>.self)
    #expect(Just(1).collect() == Just([1]))
    #expect(events(Just(1).collect()) == [.subscription, .value([1]), .completion(.finished)])
  }

  @Test func countIsAlwaysOne() {
    #expect(type(of: Just("a").count()) == Just<Int>.self)
    #expect(Just("a").count() == Just(1))
    #expect(events(Just("a").count()) == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func firstAndLastReturnTheSameJust() {
    #expect(type(of: Just(1).first()) == Just<Int>.self)
    #expect(type(of: Just(1).last()) == Just<Int>.self)
    #expect(Just(1).first() == Just(1))
    #expect(Just(1).last() == Just(1))
  }

  @Test func firstWhereAndLastWhereReturnOptionalPublishers() {
    #expect(type(of: Just(1).first { $0 > 0 }) == Optional<Int>.Publisher.self)
    #expect(type(of: Just(1).last { $0 > 0 }) == Optional<Int>.Publisher.self)
    #expect(Just(7).first { $0 > 5 } == Optional(7).publisher)
    #expect(Just(3).first { $0 > 5 } == Optional<Int>.none.publisher)
    #expect(Just(7).last { $0 > 5 } == Optional(7).publisher)
    #expect(Just(3).last { $0 > 5 } == Optional<Int>.none.publisher)
    #expect(events(Just(3).first { $0 > 5 }) == [.subscription, .completion(.finished)])
  }

  @Test func ignoreOutputReturnsAnEmptyThatFinishes() {
    let ignored = Just(1).ignoreOutput()
    #expect(type(of: ignored) == Empty<Int, Never>.self)
    #expect(ignored.completeImmediately)
    #expect(events(ignored) == [.subscription, .completion(.finished)])
  }

  @Test func reduceAppliesTheClosureOnce() {
    let sum = Just(5).reduce(10, +)
    #expect(type(of: sum) == Result<Int, Never>.Publisher.self)
    #expect(sum.result == .success(15))
    #expect(events(Just("b").reduce("a", +)) == [.subscription, .value("ab"), .completion(.finished)])
  }

  @Test func tryReduceReturnsAResultPublisher() throws {
    let product = Just(5).tryReduce(10, *)
    #expect(type(of: product) == Result<Int, any Error>.Publisher.self)
    #expect(try product.result.get() == 50)
    #expect(failure(Just(5).tryReduce(10) { _, _ -> Int in throw JustReducingTestError() }) is JustReducingTestError)
  }

  @Test func outputAtPublishesOnlyIndexZero() {
    #expect(type(of: Just(1).output(at: 0)) == Optional<Int>.Publisher.self)
    #expect(Just(1).output(at: 0) == Optional(1).publisher)
    #expect(Just(1).output(at: 1) == Optional<Int>.none.publisher)
    #expect(Just(1).output(at: 42) == Optional<Int>.none.publisher)
  }

  @Test func outputInLooksOnlyAtTheStartOfTheRangeAsCombineDoes() {
    #expect(type(of: Just(1).output(in: 0..<3)) == Optional<Int>.Publisher.self)
    #expect(Just(1).output(in: 0..<3) == Optional(1).publisher)
    #expect(Just(1).output(in: 0...0) == Optional(1).publisher)
    #expect(Just(1).output(in: ...2) == Optional(1).publisher)
    #expect(Just(1).output(in: 0...) == Optional(1).publisher)
    // Combine publishes the value for an empty range that starts at 0.
    #expect(Just(1).output(in: 0..<0) == Optional(1).publisher)
    #expect(Just(1).output(in: 1..<3) == Optional<Int>.none.publisher)
    #expect(Just(1).output(in: -2..<3) == Optional<Int>.none.publisher)
  }

  @Test func aNegativeOutputIndexStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Just(1).output(at: -1)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("output(at: -1)"))
  }

  @Test func theResultWaitsForDemand() {
    let subscriber = TestSubscriber<[Int], Never>(initialDemand: .none)
    Just(1).collect().subscribe(subscriber)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value([1]), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancellingBeforeDemandDeliversNothing() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Just("a").count().subscribe(subscriber)
    let subscription = subscriber.subscription
    subscriber.cancel()
    subscription?.request(.max(1))
    #expect(subscription != nil)
    #expect(subscriber.events == [.subscription])
  }
}

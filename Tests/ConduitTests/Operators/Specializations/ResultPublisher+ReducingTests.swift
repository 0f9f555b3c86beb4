import Conduit
import ConduitTesting
import Testing

private struct ResultReducingTestError: Error, Equatable {}
private struct ThrownError: Error, Equatable {}

private typealias Source = Result<Int, ResultReducingTestError>.Publisher

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
struct ResultPublisherReducingTests {
  // The calls below carry no type annotation, so `type(of:)` shows which overload won.
  private let success = Source(3)
  private let failed = Source(ResultReducingTestError())

  @Test func minAndMaxReturnTheSamePublisher() {
    #expect(type(of: success.min()) == Source.self)
    #expect(type(of: success.max()) == Source.self)
    #expect(success.min() == success)
    #expect(success.max() == success)
    #expect(failed.min() == failed)
    #expect(failed.max() == failed)
  }

  @Test func minByAndMaxByReturnTheSamePublisherWithoutCallingTheClosure() {
    var calls = 0
    let ordered: (Int, Int) -> Bool = {
      calls += 1; return $0 < $1
    }
    #expect(type(of: success.min(by: ordered)) == Source.self)
    #expect(type(of: success.max(by: ordered)) == Source.self)
    #expect(success.min(by: ordered) == success)
    #expect(failed.max(by: ordered) == failed)
    #expect(calls == 0)
  }

  @Test func tryMinAndTryMaxEvaluateTheClosureOnceOnTheValue() throws {
    var pairs: [[Int]] = []
    let ordered: (Int, Int) throws -> Bool = {
      pairs.append([$0, $1]); return $0 < $1
    }
    let minimum = success.tryMin(by: ordered)
    let maximum = success.tryMax(by: ordered)
    #expect(type(of: minimum) == Result<Int, any Error>.Publisher.self)
    #expect(type(of: maximum) == Result<Int, any Error>.Publisher.self)
    #expect(try minimum.result.get() == 3)
    #expect(try maximum.result.get() == 3)
    #expect(pairs == [[3, 3], [3, 3]])
    let throwing: (Int, Int) throws -> Bool = { _, _ in throw ThrownError() }
    #expect(failure(success.tryMin(by: throwing)) is ThrownError)
    #expect(failure(success.tryMax(by: throwing)) is ThrownError)
    #expect(failure(failed.tryMin(by: throwing)) is ResultReducingTestError)
    #expect(failure(failed.tryMax(by: throwing)) is ResultReducingTestError)
  }

  @Test func containsComparesTheSuccessValue() {
    #expect(type(of: success.contains(3)) == Result<Bool, ResultReducingTestError>.Publisher.self)
    #expect(success.contains(3).result == .success(true))
    #expect(success.contains(4).result == .success(false))
    #expect(failed.contains(3).result == .failure(ResultReducingTestError()))
    #expect(events(failed.contains(3)) == [.subscription, .completion(.failure(ResultReducingTestError()))])
  }

  @Test func containsWhereAndAllSatisfyCallThePredicateOnlyForASuccess() {
    var calls = 0
    let big: (Int) -> Bool = {
      calls += 1; return $0 > 10
    }
    #expect(type(of: success.contains(where: big)) == Result<Bool, ResultReducingTestError>.Publisher.self)
    #expect(type(of: success.allSatisfy(big)) == Result<Bool, ResultReducingTestError>.Publisher.self)
    #expect(calls == 2)
    #expect(Source(30).contains(where: big).result == .success(true))
    #expect(success.allSatisfy(big).result == .success(false))
    #expect(failed.contains(where: big).result == .failure(ResultReducingTestError()))
    #expect(failed.allSatisfy(big).result == .failure(ResultReducingTestError()))
    #expect(calls == 4)
    #expect(events(success.allSatisfy { $0 > 0 }) == [.subscription, .value(true), .completion(.finished)])
  }

  @Test func tryContainsAndTryAllSatisfyTurnAThrowIntoTheFailure() throws {
    #expect(type(of: success.tryContains { $0 > 1 }) == Result<Bool, any Error>.Publisher.self)
    #expect(type(of: success.tryAllSatisfy { $0 > 1 }) == Result<Bool, any Error>.Publisher.self)
    #expect(try success.tryContains { $0 > 1 }.result.get() == true)
    #expect(try success.tryAllSatisfy { $0 > 5 }.result.get() == false)
    let throwing: (Int) throws -> Bool = { _ in throw ThrownError() }
    #expect(failure(success.tryContains(where: throwing)) is ThrownError)
    #expect(failure(success.tryAllSatisfy(throwing)) is ThrownError)
    #expect(failure(failed.tryContains(where: throwing)) is ResultReducingTestError)
    #expect(failure(failed.tryAllSatisfy(throwing)) is ResultReducingTestError)
  }

  @Test func collectWrapsTheSuccessValueInAnArray() {
    #expect(type(of: success.collect()) == Result<[Int], ResultReducingTestError>.Publisher.self)
    #expect(success.collect().result == .success([3]))
    #expect(failed.collect().result == .failure(ResultReducingTestError()))
    #expect(events(success.collect()) == [.subscription, .value([3]), .completion(.finished)])
  }

  @Test func countIsOneForASuccess() {
    #expect(type(of: success.count()) == Result<Int, ResultReducingTestError>.Publisher.self)
    #expect(success.count().result == .success(1))
    #expect(failed.count().result == .failure(ResultReducingTestError()))
  }

  @Test func firstAndLastReturnTheSamePublisher() {
    #expect(type(of: success.first()) == Source.self)
    #expect(type(of: success.last()) == Source.self)
    #expect(success.first() == success)
    #expect(failed.last() == failed)
  }

  @Test func ignoreOutputFinishesEvenForAFailureAsCombineDoes() {
    #expect(type(of: success.ignoreOutput()) == Empty<Int, ResultReducingTestError>.self)
    #expect(events(success.ignoreOutput()) == [.subscription, .completion(.finished)])
    #expect(events(failed.ignoreOutput()) == [.subscription, .completion(.finished)])
  }

  @Test func reduceAppliesTheClosureOnlyForASuccess() {
    var calls = 0
    let plus: (Int, Int) -> Int = {
      calls += 1; return $0 + $1
    }
    let sum = success.reduce(10, plus)
    #expect(type(of: sum) == Result<Int, ResultReducingTestError>.Publisher.self)
    #expect(sum.result == .success(13))
    #expect(failed.reduce(10, plus).result == .failure(ResultReducingTestError()))
    #expect(calls == 1)
  }

  @Test func tryReduceTurnsAThrowIntoTheFailure() throws {
    let product = success.tryReduce(10, *)
    #expect(type(of: product) == Result<Int, any Error>.Publisher.self)
    #expect(try product.result.get() == 30)
    let throwing: (Int, Int) throws -> Int = { _, _ in throw ThrownError() }
    #expect(failure(success.tryReduce(10, throwing)) is ThrownError)
    #expect(failure(failed.tryReduce(10, throwing)) is ResultReducingTestError)
  }

  @Test func theResultWaitsForDemand() {
    let subscriber = TestSubscriber<[Int], ResultReducingTestError>(initialDemand: .none)
    success.collect().subscribe(subscriber)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value([3]), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }
}

import Conduit
import ConduitTesting
import Testing

private struct ResultOperatorsTestError: Error, Equatable {
  var code = 0
}

private struct OtherResultTestError: Error, Equatable {
  var wrapped: ResultOperatorsTestError
}

private typealias Success = Result<Int, ResultOperatorsTestError>

@Suite(.leakChecked)
struct ResultPublisherOperatorsTests {
  @Test func mapTransformsSuccessAndKeepsFailure() {
    let mapped: Result<String, ResultOperatorsTestError>.Publisher = Success.success(2).publisher.map { "\($0)" }
    #expect(mapped.result == .success("2"))
    let failed = Success.failure(ResultOperatorsTestError(code: 1)).publisher.map { "\($0)" }
    #expect(failed.result == .failure(ResultOperatorsTestError(code: 1)))
    let subscriber = TestSubscriber<String, ResultOperatorsTestError>()
    failed.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.failure(ResultOperatorsTestError(code: 1)))])
  }

  @Test func tryMapCatchesThrownAndUpstreamErrors() throws {
    let mapped: Result<Int, any Error>.Publisher = Success.success(2).publisher.tryMap { $0 * 3 }
    #expect(try mapped.result.get() == 6)
    let thrown = Success.success(2).publisher.tryMap { _ -> Int in throw ResultOperatorsTestError(code: 9) }
    #expect(throws: ResultOperatorsTestError(code: 9)) { try thrown.result.get() }
    let failed = Success.failure(ResultOperatorsTestError(code: 3)).publisher.tryMap { $0 }
    #expect(throws: ResultOperatorsTestError(code: 3)) { try failed.result.get() }
  }

  @Test func mapErrorConvertsTheFailure() {
    let mapped: Result<Int, OtherResultTestError>.Publisher = Success.failure(ResultOperatorsTestError(code: 4))
      .publisher.mapError { OtherResultTestError(wrapped: $0) }
    #expect(mapped.result == .failure(OtherResultTestError(wrapped: ResultOperatorsTestError(code: 4))))
    let kept = Success.success(1).publisher.mapError { OtherResultTestError(wrapped: $0) }
    #expect(kept.result == .success(1))
  }

  @Test func removeDuplicatesReturnsTheSamePublisher() throws {
    let publisher = Success.success(1).publisher
    let plain: Result<Int, ResultOperatorsTestError>.Publisher = publisher.removeDuplicates()
    let byPredicate: Result<Int, ResultOperatorsTestError>.Publisher = publisher.removeDuplicates { _, _ in true }
    #expect(plain == publisher)
    #expect(byPredicate == publisher)
    let tried: Result<Int, any Error>.Publisher = publisher.tryRemoveDuplicates { _, _ in
      throw ResultOperatorsTestError(code: 2)
    }
    #expect(throws: ResultOperatorsTestError(code: 2)) { try tried.result.get() }
    #expect(try publisher.tryRemoveDuplicates(by: ==).result.get() == 1)
  }

  @Test func replaceErrorMakesANeverFailingPublisher() {
    let replaced: Result<Int, Never>.Publisher = Success.failure(ResultOperatorsTestError()).publisher
      .replaceError(with: 0)
    #expect(replaced.result == .success(0))
    #expect(Success.success(5).publisher.replaceError(with: 0).result == .success(5))
    let subscriber = TestSubscriber<Int, Never>()
    replaced.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(0), .completion(.finished)])
  }

  @Test func scanAndTryScanApplyTheClosureOnce() throws {
    let scanned: Result<Int, ResultOperatorsTestError>.Publisher = Success.success(5).publisher.scan(10, +)
    #expect(scanned.result == .success(15))
    let tried: Result<Int, any Error>.Publisher = Success.success(5).publisher.tryScan(10) { $0 * $1 }
    #expect(try tried.result.get() == 50)
    let failed = Success.failure(ResultOperatorsTestError(code: 1)).publisher.tryScan(10) { $0 * $1 }
    #expect(throws: ResultOperatorsTestError(code: 1)) { try failed.result.get() }
  }

  @Test func setFailureTypeOnANeverFailingResult() {
    let typed: Result<Int, ResultOperatorsTestError>.Publisher = Result<Int, Never>.success(3).publisher
      .setFailureType(to: ResultOperatorsTestError.self)
    #expect(typed.result == .success(3))
  }

  @Test func retryReturnsTheSamePublisher() {
    let failing = Success.failure(ResultOperatorsTestError(code: 4)).publisher
    let retried = failing.retry(3)
    #expect(type(of: retried) == Result<Int, ResultOperatorsTestError>.Publisher.self)
    #expect(retried == failing)
    #expect(Success.success(1).publisher.retry(3).result == .success(1))
    let subscriber = TestSubscriber<Int, ResultOperatorsTestError>()
    retried.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.failure(ResultOperatorsTestError(code: 4)))])
  }
}

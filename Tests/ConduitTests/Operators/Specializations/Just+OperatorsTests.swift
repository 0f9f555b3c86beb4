import Conduit
import ConduitTesting
import Testing

private struct JustOperatorsTestError: Error, Equatable {}

/// Any failure becomes a `JustOperatorsTestError`; `Just` never calls it.
private func replaceFailure<F: Error>(_ failure: F) -> JustOperatorsTestError {
  JustOperatorsTestError()
}

@Suite(.leakChecked)
struct JustOperatorsTests {
  @Test func mapReturnsAJust() {
    let mapped: Just<String> = Just(21).map { "\($0 * 2)" }
    #expect(mapped == Just("42"))
    let subscriber = TestSubscriber<String, Never>()
    mapped.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value("42"), .completion(.finished)])
  }

  @Test func tryMapReturnsAResultPublisher() throws {
    let success: Result<Int, any Error>.Publisher = Just("7").tryMap { text -> Int in
      guard let value = Int(text) else { throw JustOperatorsTestError() }
      return value
    }
    #expect(try success.result.get() == 7)
    let failure = Just("x").tryMap { _ -> Int in throw JustOperatorsTestError() }
    #expect(throws: JustOperatorsTestError.self) { try failure.result.get() }
    let subscriber = TestSubscriber<Int, any Error>()
    failure.subscribe(subscriber)
    guard case .failure(let error) = subscriber.completion else {
      Issue.record("expected a failure")
      return
    }
    #expect(error is JustOperatorsTestError)
  }

  @Test func compactMapAndFilterReturnOptionalPublishers() {
    let some: Optional<Int>.Publisher = Just("3").compactMap { Int($0) }
    let none: Optional<Int>.Publisher = Just("x").compactMap { Int($0) }
    #expect(some.output == 3)
    #expect(none.output == nil)
    let kept: Optional<Int>.Publisher = Just(4).filter { $0.isMultiple(of: 2) }
    let dropped: Optional<Int>.Publisher = Just(3).filter { $0.isMultiple(of: 2) }
    #expect(kept.output == 4)
    #expect(dropped.output == nil)
    let subscriber = TestSubscriber<Int, Never>()
    dropped.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func setFailureTypeAndMapErrorReturnResultPublishers() {
    let typed: Result<Int, JustOperatorsTestError>.Publisher = Just(1).setFailureType(to: JustOperatorsTestError.self)
    #expect(typed == Result<Int, JustOperatorsTestError>.Publisher(1))
    let mapped: Result<Int, JustOperatorsTestError>.Publisher = Just(2).mapError(replaceFailure)
    #expect(mapped.result == .success(2))
    let subscriber = TestSubscriber<Int, JustOperatorsTestError>()
    typed.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func removeDuplicatesAndReplaceErrorReturnTheSameJust() {
    let just = Just(5)
    let plain: Just<Int> = just.removeDuplicates()
    let byPredicate: Just<Int> = just.removeDuplicates { _, _ in true }
    let replaced: Just<Int> = just.replaceError(with: 0)
    #expect(plain == just)
    #expect(byPredicate == just)
    #expect(replaced == just)
  }

  @Test func tryRemoveDuplicatesEvaluatesThePredicate() throws {
    let kept: Result<Int, any Error>.Publisher = Just(5).tryRemoveDuplicates { $0 == $1 }
    #expect(try kept.result.get() == 5)
    let failed = Just(5).tryRemoveDuplicates { _, _ in throw JustOperatorsTestError() }
    #expect(throws: JustOperatorsTestError.self) { try failed.result.get() }
  }

  @Test func scanAndTryScanApplyTheClosureOnce() throws {
    let scanned: Result<Int, Never>.Publisher = Just(5).scan(10, +)
    #expect(scanned.result == .success(15))
    let tried: Result<Int, any Error>.Publisher = Just(5).tryScan(10) { $0 * $1 }
    #expect(try tried.result.get() == 50)
    let failed = Just(5).tryScan(10) { _, _ -> Int in throw JustOperatorsTestError() }
    #expect(throws: JustOperatorsTestError.self) { try failed.result.get() }
    let subscriber = TestSubscriber<Int, Never>()
    scanned.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(15), .completion(.finished)])
  }

  @Test func retryReturnsTheSameJust() {
    let retried = Just(1).retry(3)
    #expect(type(of: retried) == Just<Int>.self)
    #expect(retried == Just(1))
    let subscriber = TestSubscriber<Int, Never>()
    retried.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
  }
}

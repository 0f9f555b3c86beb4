import Conduit
import ConduitTesting
import Testing

private func compute() async -> Int { 21 * 2 }
private func fetch() async throws -> String { "fetched" }
private func fetchFailing() async throws(Oops) -> String { throw Oops() }

/// `Future`'s initializers from an async function, beside Combine's from a promise closure.
@Suite(.leakChecked(timeout: .seconds(3)))
struct FutureAsyncTests {
  @Test func asyncInitDeliversToASink() async {
    let future = Future { await compute() }
    let outcome = await awaitedOutcome(of: future)
    #expect(outcome.values == [42])
    #expect(outcome.completion.isFinished)
  }

  @Test func asyncInitDeliversToValue() async throws {
    let never = Future<Int, Never> { await compute() }
    #expect(await never.value == 42)
    let throwing = Future { try await fetch() }
    #expect(try await throwing.value == "fetched")
  }

  @Test func typedThrowingInitFails() async {
    let future = Future { () async throws(Oops) -> String in try await fetchFailing() }
    let outcome = await awaitedOutcome(of: future)
    #expect(outcome.values.isEmpty)
    guard case .failure(let error) = outcome.completion else {
      Issue.record("expected a failure, got \(outcome.completion)")
      return
    }
    #expect(error == Oops())
    await #expect(throws: Oops()) { try await future.value }
  }

  @Test func closureRunsOnceHoweverManySubscribersAndAwaiters() async {
    let runs = RunCounter()
    let future = Future<Int, Never> { runs.increment() }
    let first = await awaitedOutcome(of: future)
    let second = await awaitedOutcome(of: future)
    let awaited = await future.value
    #expect(first.values == [1])
    #expect(second.values == [1])
    #expect(awaited == 1)
    #expect(runs.count == 1)
  }

  @Test func runsWithoutAnySubscriber() async {
    let (ran, signal) = AsyncStream.makeStream(of: Void.self)
    _ = Future<Int, Never> {
      signal.yield()
      return 1
    }
    for await _ in ran { break }
  }

  @Test func combinePromiseInitializersStillCompileWithTrailingClosures() async {
    let immediate = Future<Int, Never> { promise in promise(.success(1)) }
    let failing = Future<Int, Oops> { promise in promise(.failure(Oops())) }
    // A promise that is never called, named or not.
    let silent = Future<Int, Never> { promise in _ = promise }
    let ignored = Future<Int, Never> { _ in }
    #expect(await immediate.value == 1)
    await #expect(throws: Oops()) { try await failing.value }
    for future in [silent, ignored] {
      let subscriber = TestSubscriber<Int, Never>()
      future.subscribe(subscriber)
      #expect(subscriber.events == [.subscription])
      subscriber.cancel()
    }
  }

  @Test func manyFuturesFromAsyncFunctionsDoNotGrow() async throws {
    try await withGrowthCheck(iterations: 40) { _ in
      let future = Future { await compute() }
      #expect(await future.value == 42)
      let throwing = Future { () async throws(Oops) -> Int in throw Oops() }
      let outcome = await awaitedOutcome(of: throwing)
      #expect(outcome.values.isEmpty)
    }
  }
}

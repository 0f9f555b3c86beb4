import Conduit
import ConduitTesting
import Testing

private func compute() async -> Int { 21 * 2 }

/// Waits for the next event a test's operation or subscriber reports.
private func next<Element: Sendable>(_ stream: AsyncStream<Element>) async -> Element? {
  for await element in stream { return element }
  return nil
}

@Suite(.leakChecked(timeout: .seconds(3)))
struct AsyncFutureTests {
  @Test func deliversTheValueThenFinished() async {
    let outcome = await awaitedOutcome(of: AsyncFuture { await compute() })
    #expect(outcome.values == [42])
    #expect(outcome.completion.isFinished)
  }

  @Test func deliversAThrownErrorAsFailure() async {
    let typed = await awaitedOutcome(of: AsyncFuture { () async throws(Oops) -> Int in throw Oops() })
    #expect(typed.values.isEmpty)
    guard case .failure(let error) = typed.completion else {
      Issue.record("expected a failure, got \(typed.completion)")
      return
    }
    #expect(error == Oops())

    let untyped = await awaitedOutcome(of: AsyncFuture<Int, any Error> { throw Oops() })
    guard case .failure(let anyError) = untyped.completion else {
      Issue.record("expected a failure, got \(untyped.completion)")
      return
    }
    #expect(anyError is Oops)
  }

  @Test func doesNothingBeforeDemand() async {
    let runs = RunCounter()
    let publisher = AsyncFuture { runs.increment() }
    let (received, receipts) = AsyncStream.makeStream(of: Int.self)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    subscriber.onValue { receipts.yield($0) }
    publisher.subscribe(subscriber)
    for _ in 0..<10 { await Task.yield() }
    #expect(runs.count == 0)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(await next(received) == 1)
    #expect(runs.count == 1)
    subscriber.cancel()
  }

  @Test func runsOncePerSubscription() async {
    let runs = RunCounter()
    let publisher = AsyncFuture { runs.increment() }
    let first = await awaitedOutcome(of: publisher)
    let second = await awaitedOutcome(of: publisher)
    let third = await awaitedOutcome(of: publisher)
    #expect(first.values == [1])
    #expect(second.values == [2])
    #expect(third.values == [3])
    #expect(runs.count == 3)
  }

  @Test func cancelMidFlightCancelsTheTaskAndReleasesTheSubscriberAtOnce() async {
    let (events, log) = AsyncStream.makeStream(of: String.self)
    let resumed = AsyncLatch()
    let publisher = AsyncFuture<Int, any Error> {
      try await withTaskCancellationHandler {
        log.yield("started")
        // Resumed only by the cancellation handler: the operation cannot finish on its own.
        await resumed.wait()
        log.yield(Task.isCancelled ? "cancelled" : "resumed without cancellation")
        try Task.checkCancellation()
        return 1
      } onCancel: {
        resumed.open()
      }
    }
    var subscriber: TestSubscriber<Int, any Error>? = TestSubscriber()
    weak let released = subscriber
    publisher.subscribe(subscriber!)
    #expect(await next(events) == "started")

    subscriber?.cancel()
    #expect(subscriber?.events.count == 1)
    subscriber = nil
    // The subscription no longer holds the subscriber, so nothing can reach it any more.
    #expect(released == nil)
    #expect(await next(events) == "cancelled")
  }

  @Test func cancelBeforeDemandNeverStartsTheTask() async {
    let runs = RunCounter()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    AsyncFuture { runs.increment() }.subscribe(subscriber)
    subscriber.cancel()
    subscriber.request(.max(1))
    for _ in 0..<10 { await Task.yield() }
    #expect(runs.count == 0)
    #expect(subscriber.events == [.subscription])
  }

  @Test func cancelFromInsideReceiveHoldsBackFinished() async {
    let (received, receipts) = AsyncStream.makeStream(of: Int.self)
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { [unowned subscriber] value in
      subscriber.cancel()
      receipts.yield(value)
    }
    AsyncFuture { await compute() }.subscribe(subscriber)
    #expect(await next(received) == 42)
    #expect(subscriber.completion == nil)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelRacingTheResultKeepsTheContract() async {
    for round in 0..<200 {
      let subscriber = TestSubscriber<Int, Never>()
      AsyncFuture { round }.subscribe(subscriber)
      await Task.yield()
      subscriber.cancel()
      let events = subscriber.events
      #expect(subscriber.violations.isEmpty)
      let allowed: [[TestSubscriber<Int, Never>.Event]] = [
        [.subscription], [.subscription, .value(round)], [.subscription, .value(round), .completion(.finished)],
      ]
      #expect(allowed.contains(events))
    }
  }

  @Test func describesItselfAsAsyncFuture() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    AsyncFuture { await compute() }.subscribe(subscriber)
    #expect(subscriber.subscription.map { String(describing: $0) } == "AsyncFuture")
    subscriber.cancel()
  }
}

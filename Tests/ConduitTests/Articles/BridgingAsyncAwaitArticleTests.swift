import Conduit
import ConduitTesting
import Testing

/// The article's stand-in for a network call.
private func fetchQuote(for symbol: String) async throws -> Int {
  symbol == "ACME" ? 120 : 80
}

private enum QuoteError: Error {
  case unavailable
}

/// Waits for the next element of `stream`.
private func next<Element: Sendable>(_ stream: AsyncStream<Element>) async -> Element? {
  for await element in stream { return element }
  return nil
}

/// The examples of the article "Bridging async/await"
/// (Sources/Conduit/Conduit.docc/BridgingAsyncAwait.md), run as they are written there: when this
/// test changes, change the article too.
@Suite(.leakChecked(timeout: .seconds(3)), .timeLimit(.minutes(1)))
struct BridgingAsyncAwaitArticleTests {
  /// "From a publisher to async code": `values` asks for one element per `next()`.
  @Test func valuesTurnsAPublisherIntoAnAsyncSequence() async {
    var totals: [Int] = []
    for await total in [3, 1, 2].publisher.map({ $0 * 100 }).values {
      totals.append(total)
    }
    #expect(totals == [300, 100, 200])
  }

  /// "From a publisher to async code": a subject's events that arrive while no loop waits are
  /// dropped by `values` and kept by `values(bufferingPolicy:)`.
  @Test func theBufferedFormKeepsWhatArrivesBetweenTwoNexts() async {
    let events = PassthroughSubject<Int, Never>()
    var plain = events.values.makeAsyncIterator()
    var buffered = events.values(bufferingPolicy: .unbounded).makeAsyncIterator()
    for event in 1...3 { events.send(event) }  // neither loop is waiting in next()
    events.send(completion: .finished)

    #expect(await plain.next() == nil)
    var kept: [Int] = []
    while let event = await buffered.next() { kept.append(event) }
    #expect(kept == [1, 2, 3])
  }

  /// "From async code to a publisher": a `Future` made from an async function, awaited and
  /// subscribed to; the function runs once.
  @Test func aFutureFromAnAsyncFunction() async throws {
    let quote = Future { try await fetchQuote(for: "ACME") }  // starts now
    let price = try await quote.value
    #expect(price == 120)

    let outcome = await awaitedOutcome(of: quote)
    #expect(outcome.values == [120])
    #expect(outcome.completion.isFinished)
  }

  /// "From async code to a publisher": `AsyncFuture` runs its function per subscription, so
  /// `retry` runs it again.
  @Test func anAsyncFutureRunsAgainForEachRetry() async {
    let attempts = RunCounter()
    let quotes = AsyncFuture { () async throws -> Int in
      if attempts.increment() == 1 { throw QuoteError.unavailable }
      return try await fetchQuote(for: "ACME")
    }
    .retry(2)  // each retry runs it again

    let outcome = await awaitedOutcome(of: quotes)
    #expect(outcome.values == [120])
    #expect(outcome.completion.isFinished)
    #expect(attempts.count == 2)
  }

  /// The article's main example: an `AsyncStream` becomes a publisher, goes through operators,
  /// and comes back as an asynchronous sequence.
  @Test func anAsyncStreamThroughOperatorsAndBack() async {
    let (readings, sensor) = AsyncStream.makeStream(of: Int.self)

    let alarms = readings.publisher  // an AsyncSequence as a publisher
      .filter { $0 > 40 }
      .map { "alarm: \($0)" }

    for reading in [38, 41, 39, 45] { sensor.yield(reading) }
    sensor.finish()

    var raised: [String] = []
    for await alarm in alarms.values {  // a publisher as an AsyncSequence
      raised.append(alarm)
    }
    #expect(raised == ["alarm: 41", "alarm: 45"])
  }

  /// "Cancellation, both ways": leaving the loop cancels the subscription.
  @Test func leavingTheLoopCancelsTheSubscription() async {
    var cancelled = false
    let naturals = (1...).publisher.handleEvents(receiveCancel: { cancelled = true })
    for await number in naturals.values {
      if number == 3 { break }  // leaving the loop cancels the subscription
    }
    #expect(cancelled)
  }

  /// "Cancellation, both ways": cancelling a subscription to an `AsyncFuture` cancels the task
  /// that runs its function.
  @Test func cancellingAnAsyncFutureSubscriptionCancelsItsTask() async {
    let (events, log) = AsyncStream.makeStream(of: String.self)
    let work = AsyncFuture<Int, Never> {
      let resumed = AsyncLatch()
      await withTaskCancellationHandler {
        log.yield("started")
        // Resumed only by the cancellation handler: the function cannot finish on its own.
        await resumed.wait()
      } onCancel: {
        resumed.open()
      }
      log.yield(Task.isCancelled ? "cancelled" : "finished without a cancel")
      return 1
    }
    let cancellable = work.sink { _ in }
    #expect(await next(events) == "started")
    cancellable.cancel()
    #expect(await next(events) == "cancelled")
  }
}

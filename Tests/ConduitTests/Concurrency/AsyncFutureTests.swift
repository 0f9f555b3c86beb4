import Conduit
import ConduitTesting
import Dispatch
import Testing

private func compute() async -> Int { 21 * 2 }

/// Waits for the next event a test's operation or subscriber reports.
private func next<Element: Sendable>(_ stream: AsyncStream<Element>) async -> Element? {
  for await element in stream { return element }
  return nil
}

/// Requests inside `receive(subscription:)` and stays in it a while, long enough for a task that
/// started too early to run and deliver into the call; records what overlapped it.
private final class LingeringSubscriber: Subscriber, @unchecked Sendable {
  typealias Input = Int
  typealias Failure = Never

  private struct State {
    var subscribing = false
    var events: [String] = []
    var overlaps: [String] = []
    var startedDuringSubscribe = false
  }

  // Guarded by its own lock.
  private let state = Locked(State())
  private let runs: RunCounter
  let completed = AwaitableCount()

  /// `runs` counts the operation's runs.
  init(runs: RunCounter) {
    self.runs = runs
  }

  var events: [String] { state.withLock { $0.events } }
  var overlaps: [String] { state.withLock { $0.overlaps } }
  /// Whether the operation had started by the time `receive(subscription:)` returned.
  var startedDuringSubscribe: Bool { state.withLock { $0.startedDuringSubscribe } }

  func receive(subscription: any Subscription) {
    state.withLock { $0.subscribing = true }
    subscription.request(.max(1))
    // Bounded by a count, not the clock: with the task started only after this call, nothing
    // ends the wait early.
    for _ in 0..<20_000 {
      if state.withLock({ !$0.events.isEmpty }) { break }
    }
    let started = runs.count > 0
    state.withLock { state in
      state.startedDuringSubscribe = started
      state.subscribing = false
    }
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    record("value \(input)")
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    record("finished")
    completed.increment()
  }

  private func record(_ event: String) {
    state.withLock { state in
      if state.subscribing { state.overlaps.append(event) }
      state.events.append(event)
    }
  }
}

/// A subscriber whose `receive(completion:)` waits, after signalling that it was entered, until
/// the test lets it go: to cancel while a failure is being delivered.
private final class HeldCompletionSubscriber: Subscriber, @unchecked Sendable {
  typealias Input = Int
  typealias Failure = Oops

  private let subscriptionBox = Locked<(any Subscription)?>(nil)
  private let completions = Locked<[Subscribers.Completion<Oops>]>([])
  private let entered: AsyncStream<Void>.Continuation
  private let proceed = DispatchSemaphore(value: 0)

  init(entered: AsyncStream<Void>.Continuation) {
    self.entered = entered
  }

  var received: [Subscribers.Completion<Oops>] { completions.withLock { $0 } }

  func cancelFromOutside() {
    subscriptionBox.exchange(nil)?.cancel()
    proceed.signal()
  }

  func receive(subscription: any Subscription) {
    subscriptionBox.withLock { $0 = subscription }
    subscription.request(.unlimited)
  }

  func receive(_ input: Int) -> Subscribers.Demand { .none }

  func receive(completion: Subscribers.Completion<Oops>) {
    completions.withLock { $0.append(completion) }
    entered.yield()
    proceed.wait()
  }
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

  @Test func demandRequestedInsideReceiveSubscriptionIsServedOnlyAfterItReturns() async {
    for round in 0..<20 {
      let runs = RunCounter()
      let subscriber = LingeringSubscriber(runs: runs)
      AsyncFuture {
        runs.increment()
        return round
      }.subscribe(subscriber)
      #expect(!subscriber.startedDuringSubscribe)
      await subscriber.completed.reach(1)
      #expect(subscriber.overlaps.isEmpty)
      #expect(subscriber.events == ["value \(round)", "finished"])
    }
  }

  @Test func aTestSubscriberRequestingOnSubscriptionSeesNoOverlap() async {
    for round in 0..<50 {
      let subscriber = AwaitingSubscriber<Int, Never>()
      AsyncFuture { round }.subscribe(subscriber)
      #expect(await subscriber.completed() == .finished)
      #expect(subscriber.values == [round])
      #expect(subscriber.violations.isEmpty)
    }
  }

  @Test func cancelWhileAFailureIsBeingDeliveredKeepsThatFailureOnly() async {
    let (entered, signal) = AsyncStream.makeStream(of: Void.self)
    let subscriber = HeldCompletionSubscriber(entered: signal)
    AsyncFuture { () async throws(Oops) -> Int in throw Oops() }.subscribe(subscriber)
    for await _ in entered { break }
    subscriber.cancelFromOutside()
    #expect(subscriber.received == [.failure(Oops())])
  }

  @Test func manySubscribeAndCancelCyclesDoNotGrow() async throws {
    // Finishes only when cancelled, so every subscription below ends by its cancel.
    let untilCancelled = AsyncFuture<Int, Never> {
      let latch = AsyncLatch()
      await withTaskCancellationHandler {
        await latch.wait()
      } onCancel: {
        latch.open()
      }
      return 1
    }
    try await withGrowthCheck(iterations: 40) { _ in
      let subscriber = TestSubscriber<Int, Never>()
      untilCancelled.subscribe(subscriber)
      subscriber.cancel()
      let done = AwaitableCount()
      let cancellable = AsyncFuture { 1 }.sink(receiveCompletion: { _ in done.increment() }, receiveValue: { _ in })
      await done.reach(1)
      cancellable.cancel()
    }
  }
}

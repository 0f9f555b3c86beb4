import ConduitTesting
import Observation
import Testing

@testable import Conduit

/// Counts what a `CountedSequence` was asked for, and lets a test await its iterators' end.
private final class PullLog: Sendable {
  let iterators = AwaitableCount()
  let pulls = AwaitableCount()
  /// Pulls made in a cancelled task: how a cancelled subscription tells the sequence.
  let pullsWhenCancelled = AwaitableCount()
  let freed = AwaitableCount()
}

/// 1, 2, … `count`, without suspending, recording each iterator made, each `next()` and each
/// iterator freed (which a subscription's task does when it ends). Like a cancellation-aware
/// sequence, it ends when pulled in a cancelled task, and records that pull apart.
private struct CountedSequence: AsyncSequence {
  typealias Element = Int
  typealias Failure = Never

  let count: Int
  let log: PullLog

  final class Lifetime {
    let log: PullLog
    init(log: PullLog) { self.log = log }
    deinit { log.freed.increment() }
  }

  struct AsyncIterator: AsyncIteratorProtocol {
    typealias Failure = Never
    let count: Int
    let lifetime: Lifetime
    var last = 0

    mutating func next() async -> Int? {
      guard !Task.isCancelled else {
        lifetime.log.pullsWhenCancelled.increment()
        return nil
      }
      lifetime.log.pulls.increment()
      guard last < count else { return nil }
      last += 1
      return last
    }
  }

  func makeAsyncIterator() -> AsyncIterator {
    log.iterators.increment()
    return AsyncIterator(count: count, lifetime: Lifetime(log: log))
  }
}

private enum Failing: Error, Equatable {
  case x
}

/// `values`, then throws `Failing.x`, with the error typed.
private struct ThrowingSequence: AsyncSequence {
  typealias Element = Int
  typealias Failure = Failing

  let values: [Int]

  struct AsyncIterator: AsyncIteratorProtocol {
    typealias Failure = Failing
    var remaining: ArraySlice<Int>

    mutating func next() async throws(Failing) -> Int? {
      guard let value = remaining.popFirst() else { throw .x }
      return value
    }
  }

  func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: values[...]) }
}

@Suite(.leakChecked(timeout: .seconds(3)), .timeLimit(.minutes(1)))
struct AsyncSequencePublisherTests {
  @Test func failureTypesFollowTheSequence() {
    let _: AsyncSequencePublisher<AsyncStream<Int>>.Failure.Type = Never.self
    let _: AsyncSequencePublisher<ThrowingSequence>.Failure.Type = Failing.self
    let _: AsyncSequencePublisher<AsyncThrowingStream<Int, any Error>>.Failure.Type = (any Error).self
    let _: AsyncSequencePublisher<AsyncStream<Int>>.Output.Type = Int.self
    let _: AsyncSequencePublisher<AsyncStream<Int>> = AsyncStream<Int> { $0.finish() }.publisher
  }

  @Test func theStandardLibrarysSendableSequencesArePublishers() {
    let _: AsyncSequencePublisher<AsyncThrowingStream<Int, any Error>> =
      AsyncThrowingStream<Int, any Error> { $0.finish() }.publisher
    if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
      // Only built, never iterated: an `Observations` that tracks nothing never ends.
      let _: AsyncSequencePublisher<Observations<Int, Never>> = Observations { 7 }.publisher
    }
  }

  @Test func anAsyncStreamsValuesThenFinished() async {
    let stream = AsyncStream<Int> { continuation in
      for value in 1...3 { continuation.yield(value) }
      continuation.finish()
    }
    let subscriber = AwaitingSubscriber<Int, Never>()
    stream.publisher.subscribe(subscriber)
    #expect(await subscriber.completed() == .finished)
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func valuesSentAfterSubscribingArriveInOrder() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    let subscriber = AwaitingSubscriber<Int, Never>()
    stream.publisher.subscribe(subscriber)
    continuation.yield(1)
    await subscriber.values(count: 1)
    continuation.yield(2)
    continuation.yield(3)
    continuation.finish()
    #expect(await subscriber.completed() == .finished)
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aCustomSequencesValuesThenFinished() async {
    let log = PullLog()
    let subscriber = AwaitingSubscriber<Int, Never>()
    CountedSequence(count: 5, log: log).publisher.subscribe(subscriber)
    #expect(await subscriber.completed() == .finished)
    #expect(subscriber.values == [1, 2, 3, 4, 5])
    #expect(subscriber.violations.isEmpty)
    await log.freed.reach(1)
    #expect(log.iterators.value == 1)
    #expect(log.pulls.value == 6)
  }

  @Test func aSinkReceivesTheValuesThenFinished() async {
    let done = AwaitableCount()
    let received = Locked<[Int]>([])
    let cancellable = CountedSequence(count: 3, log: PullLog()).publisher.sink(
      receiveCompletion: { _ in done.increment() },
      receiveValue: { value in received.withLock { $0.append(value) } })
    await done.reach(1)
    #expect(received.withLock { $0 } == [1, 2, 3])
    cancellable.cancel()
  }

  @Test func aThrowingSequenceFailsWithItsTypedError() async {
    let subscriber = AwaitingSubscriber<Int, Failing>()
    ThrowingSequence(values: [1, 2]).publisher.subscribe(subscriber)
    #expect(await subscriber.completed() == .failure(.x))
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func eachSubscriptionIteratesWithItsOwnIterator() async {
    let log = PullLog()
    let publisher = CountedSequence(count: 2, log: log).publisher
    let first = AwaitingSubscriber<Int, Never>()
    let second = AwaitingSubscriber<Int, Never>()
    publisher.subscribe(first)
    publisher.subscribe(second)
    #expect(await first.completed() == .finished)
    #expect(await second.completed() == .finished)
    #expect(first.values == [1, 2])
    #expect(second.values == [1, 2])
    #expect(log.iterators.value == 2)
  }

  @Test func nothingIsDoneBeforeTheFirstDemand() async {
    let log = PullLog()
    let subscriber = AwaitingSubscriber<Int, Never>(initialDemand: .none)
    CountedSequence(count: 3, log: log).publisher.subscribe(subscriber)
    #expect(log.iterators.value == 0)
    #expect(log.pulls.value == 0)
    subscriber.request(.none)
    #expect(log.iterators.value == 0)
    subscriber.request(.max(1))
    await subscriber.values(count: 1)
    #expect(log.iterators.value == 1)
    #expect(subscriber.values == [1])
    subscriber.cancel()
    await log.freed.reach(1)
    #expect(log.pulls.value == 1)
    #expect(log.pullsWhenCancelled.value == 1)
  }

  @Test func aSequenceIsPulledOnlyAsFarAsTheDemand() async {
    let log = PullLog()
    let subscriber = AwaitingSubscriber<Int, Never>(initialDemand: .max(2))
    CountedSequence(count: 10, log: log).publisher.subscribe(subscriber)
    await subscriber.values(count: 2)
    subscriber.request(.max(3))
    await subscriber.values(count: 5)
    #expect(subscriber.values == [1, 2, 3, 4, 5])
    subscriber.cancel()
    // Once the task has ended, no pull beyond the demand can still come.
    await log.freed.reach(1)
    #expect(log.pulls.value == 5)
    #expect(subscriber.completion == nil)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func demandReturnedFromReceiveAdds() async {
    let log = PullLog()
    let subscriber = AwaitingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    CountedSequence(count: 4, log: log).publisher.subscribe(subscriber)
    #expect(await subscriber.completed() == .finished)
    #expect(subscriber.values == [1, 2, 3, 4])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func exactlyTheSequencesLengthInDemandFinishesAtTheNextRequest() async {
    let log = PullLog()
    let subscriber = AwaitingSubscriber<Int, Never>(initialDemand: .max(2))
    CountedSequence(count: 2, log: log).publisher.subscribe(subscriber)
    await subscriber.values(count: 2)
    #expect(subscriber.completion == nil)
    subscriber.request(.max(1))
    #expect(await subscriber.completed() == .finished)
    #expect(subscriber.values == [1, 2])
    #expect(log.pulls.value == 3)
  }

  @Test func cancellingWhileSuspendedInNextEndsTheTaskAndDeliversNothingMore() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    let terminated = AwaitableCount()
    continuation.onTermination = { _ in terminated.increment() }
    let subscriber = AwaitingSubscriber<Int, Never>()
    stream.publisher.subscribe(subscriber)
    continuation.yield(1)
    await subscriber.values(count: 1)
    subscriber.cancel()
    // The task's cancellation reaches the stream's `next()`, which returns.
    await terminated.reach(1)
    continuation.yield(2)
    continuation.finish()
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == nil)
    #expect(subscriber.violations.isEmpty)
  }

  // A cancel reaches an `AsyncStream` (its `onTermination` runs, so its producer can stop)
  // whenever it comes: before the task has started, while it waits for demand, and (above)
  // while it is inside `next()`. The time limit turns a cancel that never arrives into a failure.
  @Test(.timeLimit(.minutes(1)))
  func cancellingBeforeTheTaskStartsTerminatesTheStream() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    let terminated = AwaitableCount()
    continuation.onTermination = { _ in terminated.increment() }
    let cancellable = stream.publisher.sink { _ in }
    cancellable.cancel()
    await terminated.reach(1)
    #expect(terminated.value == 1)
  }

  @Test(.timeLimit(.minutes(1)))
  func cancellingBeforeAnyDemandTerminatesTheStream() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    let terminated = AwaitableCount()
    continuation.onTermination = { _ in terminated.increment() }
    let subscriber = AwaitingSubscriber<Int, Never>(initialDemand: .none)
    stream.publisher.subscribe(subscriber)
    subscriber.cancel()
    await terminated.reach(1)
    #expect(terminated.value == 1)
    #expect(subscriber.values.isEmpty)
  }

  @Test(.timeLimit(.minutes(1)))
  func cancellingWhileTheTaskWaitsForDemandTerminatesTheStream() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    let terminated = AwaitableCount()
    continuation.onTermination = { _ in terminated.increment() }
    let subscriber = AwaitingSubscriber<Int, Never>(initialDemand: .max(1))
    stream.publisher.subscribe(subscriber)
    continuation.yield(1)
    await subscriber.values(count: 1)
    continuation.yield(2)
    subscriber.cancel()
    await terminated.reach(1)
    #expect(terminated.value == 1)
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == nil)
  }

  @Test func cancelLetsGoOfTheSubscriberAtOnce() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    let terminated = AwaitableCount()
    continuation.onTermination = { _ in terminated.increment() }
    weak var released: AwaitingSubscriber<Int, Never>?
    var subscription: (any Subscription)?
    do {
      let subscriber = AwaitingSubscriber<Int, Never>()
      released = subscriber
      stream.publisher.subscribe(subscriber)
      continuation.yield(1)
      await subscriber.values(count: 1)
      subscription = subscriber.recorder.subscription
    }
    #expect(released != nil)
    subscription?.cancel()
    #expect(released == nil)
    subscription = nil
    await terminated.reach(1)
  }

  @Test func cancellingFromInsideReceiveStopsThePulls() async {
    let log = PullLog()
    let subscriber = AwaitingSubscriber<Int, Never>()
    subscriber.onValue { [unowned subscriber] value in
      if value == 3 { subscriber.cancel() }
    }
    CountedSequence(count: 1_000, log: log).publisher.subscribe(subscriber)
    await log.freed.reach(1)
    #expect(subscriber.values == [1, 2, 3])
    #expect(log.pulls.value == 3)
    // The cancel reaches the sequence through one pull in the cancelled task.
    #expect(log.pullsWhenCancelled.value == 1)
    #expect(subscriber.completion == nil)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancellingBeforeTheFirstDemandPullsNoElementButTellsTheSequence() async {
    let log = PullLog()
    let subscriber = AwaitingSubscriber<Int, Never>(initialDemand: .none)
    CountedSequence(count: 3, log: log).publisher.subscribe(subscriber)
    let subscription = subscriber.recorder.subscription
    subscriber.cancel()
    subscription?.request(.max(1))
    await log.pullsWhenCancelled.reach(1)
    await log.freed.reach(1)
    #expect(log.iterators.value == 1)
    #expect(log.pulls.value == 0)
    #expect(subscriber.values.isEmpty)
  }

  @Test func demandRequestedInsideReceiveSubscriptionStartsTheTaskAfterIt() async {
    let subscriber = AwaitingSubscriber<Int, Never>(initialDemand: .max(3))
    CountedSequence(count: 3, log: PullLog()).publisher.subscribe(subscriber)
    await subscriber.values(count: 3)
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func manyShortLivedSubscriptionsDoNotGrow() async throws {
    try await withGrowthCheck(iterations: 40) { _ in
      let done = AwaitableCount()
      let cancellable = CountedSequence(count: 3, log: PullLog()).publisher.sink(
        receiveCompletion: { _ in done.increment() }, receiveValue: { _ in })
      await done.reach(1)
      cancellable.cancel()
    }
  }

  @Test func theSubscriptionDescribesItself() async {
    let subscriber = AwaitingSubscriber<Int, Never>(initialDemand: .none)
    CountedSequence(count: 1, log: PullLog()).publisher.subscribe(subscriber)
    #expect(subscriber.recorder.subscription.map { String(describing: $0) } == "AsyncSequence")
    subscriber.cancel()
  }

  @Test func requestingFromInsideReceiveKeepsThePullsGoing() async {
    let log = PullLog()
    let subscriber = AwaitingSubscriber<Int, Never>(initialDemand: .max(1))
    subscriber.onValue { [unowned subscriber] _ in subscriber.request(.max(1)) }
    CountedSequence(count: 5, log: log).publisher.subscribe(subscriber)
    #expect(await subscriber.completed() == .finished)
    #expect(subscriber.values == [1, 2, 3, 4, 5])
    #expect(subscriber.violations.isEmpty)
    await log.freed.reach(1)
    #expect(log.pulls.value == 6)
  }

  @Test func requestingNothingWhileRunningPullsNothing() async {
    let log = PullLog()
    let subscriber = AwaitingSubscriber<Int, Never>(initialDemand: .max(1))
    CountedSequence(count: 5, log: log).publisher.subscribe(subscriber)
    await subscriber.values(count: 1)
    subscriber.request(.none)
    subscriber.request(.max(1))
    await subscriber.values(count: 2)
    subscriber.cancel()
    await log.freed.reach(1)
    // The `.none` added nothing: the pulls stopped at the demand of two.
    #expect(subscriber.values == [1, 2])
    #expect(log.pulls.value == 2)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func manyCancelledSubscriptionsDoNotGrow() async throws {
    try await withGrowthCheck(iterations: 40) { _ in
      let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
      let terminated = AwaitableCount()
      continuation.onTermination = { _ in terminated.increment() }
      let subscriber = AwaitingSubscriber<Int, Never>()
      stream.publisher.subscribe(subscriber)
      continuation.yield(1)
      await subscriber.values(count: 1)
      subscriber.cancel()
      await terminated.reach(1)
    }
  }

  @Test func cancellingAnAsyncThrowingStreamDeliversNoCancellationError() async {
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: Int.self)
    let terminated = AwaitableCount()
    continuation.onTermination = { _ in terminated.increment() }
    let subscriber = AwaitingSubscriber<Int, any Error>()
    stream.publisher.subscribe(subscriber)
    continuation.yield(1)
    await subscriber.values(count: 1)
    subscriber.cancel()
    await terminated.reach(1)
    continuation.finish(throwing: CancellationError())
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == nil)
    #expect(subscriber.violations.isEmpty)
  }
}

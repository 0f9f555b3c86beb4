import Conduit
import ConduitTesting
import Dispatch
import Foundation
import Synchronization
import Testing

/// The async/await bridges (`Sources/Conduit/Concurrency/`) under load: threads that send to a
/// subject while a task iterates its `values`, feed an `AsyncStream` while another thread
/// requests and a third cancels, fulfil a `Future` while tasks await it, subscribe to and cancel
/// an `AsyncFuture`. Each round checks what the loop or the subscriber received: no value twice,
/// each sender's values in the order sent, nothing lost where nothing may be, no value beyond
/// the demand, nothing after a cancel has returned but the one event already on its way, at most
/// one completion. CI runs this suite under ThreadSanitizer on its own, after the other stress
/// suites (see `.ci/run`).
///
/// The tests are asynchronous and run their threads outside the task pool, which they await
/// without blocking it: the bridges deliver from tasks of their own, which need the pool. They
/// wait for work in flight by awaiting a count (a loop's end, a subscriber let go of), never
/// on the clock; the time limit catches a wait that never ends. It is generous because `swift
/// test` runs the synchronous stress suites beside this one, and they hold the task pool's
/// threads (two on a two-core machine) for as long as their threads run: under load a task here
/// may wait a minute for a pool thread without anything being wrong.
@Suite(.leakChecked(timeout: .seconds(3)), .serialized, .timeLimit(.minutes(3)))
struct AsyncBridgeStressTests {
  private static let rounds = 150
  private static let senders = 3
  private static let valuesPerSender = 100
  private static let total = senders * valuesPerSender
  private static let awaiters = 16
  /// The futures' rounds are cheaper: there are more of them.
  private static let futureRounds = 600

  // MARK: values

  @Test(arguments: [nil, .unbounded, .bufferingNewest(4), .bufferingOldest(4)] as [AsyncBufferingPolicy?])
  func valuesTakesEachValueFromSeveralThreadsOnceAndInOrder(_ policy: AsyncBufferingPolicy?) async {
    for round in 0..<Self.rounds {
      let subject = PassthroughSubject<Int, Never>()
      let iterator = UncheckedSendable(value: values(of: subject, policy).makeAsyncIterator())
      let consumer = Task {
        var iterator = iterator.value
        var received: [Int] = []
        while let value = await iterator.next() { received.append(value) }
        return received
      }
      await raceOnThreads(Self.senders) { sender in
        jitter(round, sender)
        for index in 0..<Self.valuesPerSender { subject.send(stamp(sender, index)) }
      }
      subject.send(completion: .finished)
      // The loop ends once the subject has finished.
      let received = await consumer.value
      let problem = problemWith(received, policy: policy, sent: Self.total)
      #expect(problem == nil, "round \(round)")
      if problem != nil { return }
    }
  }

  @Test(arguments: [nil, .unbounded, .bufferingNewest(4)] as [AsyncBufferingPolicy?])
  func throwingValuesThrowTheFailureAfterValuesFromSeveralThreads(_ policy: AsyncBufferingPolicy?) async {
    for round in 0..<Self.rounds {
      let subject = PassthroughSubject<Int, Oops>()
      let iterator = UncheckedSendable(value: values(of: subject, policy).makeAsyncIterator())
      let consumer = Task { () -> (received: [Int], error: (any Error)?) in
        var iterator = iterator.value
        var received: [Int] = []
        do {
          while let value = try await iterator.next() { received.append(value) }
        } catch {
          return (received, error)
        }
        return (received, nil)
      }
      await raceOnThreads(Self.senders) { sender in
        jitter(round, sender)
        for index in 0..<Self.valuesPerSender { subject.send(stamp(sender, index)) }
      }
      subject.send(completion: .failure(Oops()))
      let (received, error) = await consumer.value
      let problem =
        error is Oops ? problemWith(received, policy: policy, sent: Self.total) : "threw \(String(describing: error))"
      #expect(problem == nil, "round \(round)")
      if problem != nil { return }
    }
  }

  /// With nobody waiting in `next()`, the buffer keeps exactly its size: the newest values (each
  /// sender's last ones) or the oldest (each sender's first ones).
  @Test(
    arguments: [
      .bufferingNewest(0), .bufferingNewest(1), .bufferingNewest(7), .bufferingOldest(0), .bufferingOldest(1),
      .bufferingOldest(7),
    ] as [AsyncBufferingPolicy])
  func aBufferFilledFromSeveralThreadsKeepsItsSize(_ policy: AsyncBufferingPolicy) async {
    for round in 0..<Self.rounds {
      let subject = PassthroughSubject<Int, Never>()
      var iterator = subject.values(bufferingPolicy: policy).makeAsyncIterator()
      await raceOnThreads(Self.senders) { sender in
        jitter(round, sender)
        for index in 0..<Self.valuesPerSender { subject.send(stamp(sender, index)) }
      }
      subject.send(completion: .finished)
      var received: [Int] = []
      while let value = await iterator.next() { received.append(value) }
      let problem = problemWithKept(received, policy: policy)
      #expect(problem == nil, "round \(round)")
      if problem != nil { return }
    }
  }

  @Test(arguments: [nil, .unbounded, .bufferingNewest(2)] as [AsyncBufferingPolicy?])
  func cancellingTheIteratingTaskWhileThreadsSendEndsTheLoopAndCancelsOnce(_ policy: AsyncBufferingPolicy?) async {
    for round in 0..<Self.rounds {
      let subject = PassthroughSubject<Int, Never>()
      let cancels = RunCounter()
      let source = subject.handleEvents(receiveCancel: { cancels.increment() })
      let iterator = UncheckedSendable(value: values(of: source, policy).makeAsyncIterator())
      let taken = RunCounter()
      let consumer = Task {
        var iterator = iterator.value
        var received: [Int] = []
        while let value = await iterator.next() {
          received.append(value)
          taken.increment()
        }
        return received
      }
      let sendersDone = RunCounter()
      await raceOnThreads(Self.senders + 1) { thread in
        guard thread < Self.senders else {
          // From before the first value to after the last one sent.
          let target = round % 10 * 3
          spin(until: { taken.count >= target || sendersDone.count == Self.senders })
          jitter(round, thread)
          consumer.cancel()
          return
        }
        jitter(round, thread)
        for index in 0..<Self.valuesPerSender { subject.send(stamp(thread, index)) }
        sendersDone.increment()
      }
      // No completion was sent: only the cancel can end the loop.
      let received = await consumer.value
      var problem = problemWith(received, policy: nil, sent: Self.total)
      if cancels.count != 1 { problem = problem ?? "the subscription was cancelled \(cancels.count) times" }
      subject.send(completion: .finished)
      #expect(problem == nil, "round \(round)")
      if problem != nil { return }
    }
  }

  @Test(arguments: [nil, .unbounded] as [AsyncBufferingPolicy?], [false, true])
  func aCompletionRacingNextEndsTheLoopAfterTheValuesKept(_ policy: AsyncBufferingPolicy?, failing: Bool) async {
    for round in 0..<Self.rounds {
      let subject = PassthroughSubject<Int, Oops>()
      let accepted = RunCounter()
      let source = subject.handleEvents(receiveOutput: { _ in accepted.increment() })
      let iterator = UncheckedSendable(value: values(of: source, policy).makeAsyncIterator())
      let consumer = Task { () -> (received: [Int], error: (any Error)?) in
        var iterator = iterator.value
        var received: [Int] = []
        do {
          while let value = try await iterator.next() { received.append(value) }
        } catch {
          return (received, error)
        }
        return (received, nil)
      }
      let sendersDone = RunCounter()
      await raceOnThreads(Self.senders + 1) { thread in
        guard thread < Self.senders else {
          let target = round % 10 * 5
          spin(until: { accepted.count >= target || sendersDone.count == Self.senders })
          jitter(round, thread)
          subject.send(completion: failing ? .failure(Oops()) : .finished)
          return
        }
        jitter(round, thread)
        for index in 0..<Self.valuesPerSender { subject.send(stamp(thread, index)) }
        sendersDone.increment()
      }
      let (received, error) = await consumer.value
      var problem: String?
      if failing ? !(error is Oops) : error != nil { problem = "threw \(String(describing: error))" }
      // The values sent before the completion went out, each sender's from its first.
      let kept = received.count
      problem = problem ?? problemWith(received, policy: nil, sent: Self.total)
      if policy == .unbounded {
        if !everySenderInOrder(received, consecutive: true) { problem = problem ?? "a gap: \(received)" }
        if kept != accepted.count { problem = problem ?? "\(kept) of \(accepted.count) values kept" }
      }
      #expect(problem == nil, "round \(round)")
      if problem != nil { return }
    }
  }

  // MARK: AsyncSequence.publisher

  @Test func anAsyncStreamFedFromSeveralThreadsArrivesWithinTheDemandRequestedFromAnother() async {
    let requested = Self.valuesPerSender
    for round in 0..<Self.rounds {
      let (stream, feed) = AsyncStream.makeStream(of: Int.self)
      let witness = TimeWitness<Int, Never>(initialDemand: .none)
      let released = AwaitableCount()
      stream.publisher.subscribe(ReleaseCountingSubscriber(witness, released: released))
      await raceOnThreads(Self.senders + 1) { thread in
        jitter(round, thread)
        guard thread < Self.senders else {
          for _ in 0..<requested { witness.recorder.request(.max(1)) }
          return
        }
        for index in 0..<Self.valuesPerSender { feed.yield(stamp(thread, index)) }
      }
      var problem: String?
      let early = witness.recorder.values.count
      if early > requested { problem = "\(early) values for a demand of \(requested)" }
      // The rest, and one more, to reach the end.
      feed.finish()
      witness.recorder.request(.max(Self.total - requested + 1))
      await released.reach(1)
      let values = witness.recorder.values
      if values.count != Self.total { problem = problem ?? "\(values.count) of \(Self.total) values" }
      if !everySenderInOrder(values, consecutive: true) { problem = problem ?? "out of order: \(values)" }
      if witness.recorder.completion != .finished { problem = problem ?? "no finish" }
      problem = problem ?? witness.problem
      #expect(problem == nil, "round \(round)")
      if problem != nil { return }
    }
  }

  @Test func aCancelRacingAnAsyncStreamsDeliveriesLetsNothingThroughAfterIt() async {
    for round in 0..<Self.rounds {
      let (stream, feed) = AsyncStream.makeStream(of: Int.self)
      let witness = TimeWitness<Int, Never>(initialDemand: .max(5), forbidden: { $0 == forbiddenValue })
      let released = AwaitableCount()
      stream.publisher.subscribe(ReleaseCountingSubscriber(witness, released: released))
      let othersDone = RunCounter()
      await raceOnThreads(Self.senders + 2) { thread in
        switch thread {
        case Self.senders:
          jitter(round, thread)
          for _ in 0..<Self.valuesPerSender { witness.recorder.request(.max(1)) }
          othersDone.increment()
        case Self.senders + 1:
          // From before the first delivery to after the last.
          let target = round % 10 * 3
          spin(until: { witness.recorder.events.count > target || othersDone.count == Self.senders + 1 })
          jitter(round, thread)
          witness.cancelAndRecord()
          feed.yield(forbiddenValue)
        default:
          jitter(round, thread)
          for index in 0..<Self.valuesPerSender { feed.yield(stamp(thread, index)) }
          othersDone.increment()
        }
      }
      // Let go of at the cancel, or once the delivery on its way then has returned.
      await released.reach(1)
      var problem = witness.problemAfterCancel
      if witness.recorder.completion != nil { problem = problem ?? "a completion after the cancel" }
      let values = witness.recorder.values
      if !everySenderInOrder(values, consecutive: false) { problem = problem ?? "out of order: \(values)" }
      feed.finish()
      #expect(problem == nil, "round \(round)")
      if problem != nil { return }
    }
  }

  // A cancel that comes at any moment (before the task started, while it waits for demand, while
  // it is inside `next()`, between two pulls) reaches the stream: its `onTermination` runs, and
  // nothing reaches the subscriber after the cancel but the one delivery already on its way.
  @Test func aCancelAtAnyMomentTerminatesTheAsyncStream() async {
    for round in 0..<Self.rounds {
      let (stream, feed) = AsyncStream.makeStream(of: Int.self)
      let terminated = AwaitableCount()
      feed.onTermination = { _ in terminated.increment() }
      let demand: Subscribers.Demand = [.none, .max(1), .max(3), .unlimited][round % 4]
      let witness = TimeWitness<Int, Never>(initialDemand: demand, forbidden: { $0 == forbiddenValue })
      stream.publisher.subscribe(witness)
      await raceOnThreads(2) { thread in
        jitter(round, thread, scale: 20)
        if thread == 0 {
          for index in 0..<10 { feed.yield(index) }
        } else {
          witness.cancelAndRecord()
          feed.yield(forbiddenValue)
        }
      }
      await terminated.reach(1)
      var problem = witness.problemAfterCancel
      if terminated.value != 1 { problem = problem ?? "onTermination ran \(terminated.value) times" }
      if witness.recorder.completion != nil { problem = problem ?? "a completion after the cancel" }
      #expect(problem == nil, "round \(round)")
      if problem != nil { return }
    }
  }

  // MARK: Future.value, AsyncFuture

  @Test func everyTaskAwaitingAFutureGetsTheValueThatWonTheRaceToFulfilIt() async {
    for round in 0..<Self.futureRounds {
      var fulfil: Future<Int, Never>.Promise?
      let future = Future<Int, Never> { fulfil = $0 }
      let promise = UncheckedSendable(value: fulfil!)
      fulfil = nil
      let values = await withTaskGroup(of: Int.self, returning: [Int].self) { group in
        for _ in 0..<Self.awaiters { group.addTask { await future.value } }
        // Two threads fulfil at once; some tasks are still on their way to the wait.
        await raceOnThreads(2) { thread in
          jitter(round, thread, scale: 400)
          promise.value(.success(thread + 1))
        }
        var values: [Int] = []
        for await value in group { values.append(value) }
        return values
      }
      let settled = await future.value
      var problem: String?
      if values.count != Self.awaiters { problem = "\(values.count) of \(Self.awaiters) tasks got a value" }
      if settled != 1 && settled != 2 { problem = problem ?? "the value \(settled)" }
      if values.contains(where: { $0 != settled }) { problem = problem ?? "values \(values), settled \(settled)" }
      #expect(problem == nil, "round \(round)")
      if problem != nil { return }
    }
  }

  @Test func everyTaskAwaitingAFailableFutureGetsTheResultThatWonTheRace() async {
    /// What a task got: the value, or `-1` for `Oops`.
    @Sendable func outcome(_ future: Future<Int, Oops>) async -> Int {
      do { return try await future.value } catch { return error is Oops ? -1 : -2 }
    }
    for round in 0..<Self.futureRounds {
      var fulfil: Future<Int, Oops>.Promise?
      let future = Future<Int, Oops> { fulfil = $0 }
      let promise = UncheckedSendable(value: fulfil!)
      fulfil = nil
      let outcomes = await withTaskGroup(of: Int.self, returning: [Int].self) { group in
        for _ in 0..<Self.awaiters { group.addTask { await outcome(future) } }
        await raceOnThreads(2) { thread in
          jitter(round, thread, scale: 400)
          promise.value(thread == 0 ? .success(1) : .failure(Oops()))
        }
        var outcomes: [Int] = []
        for await outcome in group { outcomes.append(outcome) }
        return outcomes
      }
      let settled = await outcome(future)
      var problem: String?
      if outcomes.count != Self.awaiters { problem = "\(outcomes.count) of \(Self.awaiters) tasks resumed" }
      if settled != 1 && settled != -1 { problem = problem ?? "the outcome \(settled)" }
      if outcomes.contains(where: { $0 != settled }) { problem = problem ?? "outcomes \(outcomes), settled \(settled)" }
      #expect(problem == nil, "round \(round)")
      if problem != nil { return }
    }
  }

  @Test func anAsyncFutureSubscribedAndCancelledFromSeveralThreadsKeepsTheContract() async {
    let perThread = 4
    for round in 0..<Self.futureRounds {
      let runs = RunCounter()
      let publisher = AsyncFuture<Int, Never> {
        runs.increment()
        await Task.yield()
        return round
      }
      let witnesses = (0..<Self.senders * perThread).map { _ in TimeWitness<Int, Never>() }
      let released = AwaitableCount()
      await raceOnThreads(Self.senders) { thread in
        let own = witnesses[thread * perThread..<(thread + 1) * perThread]
        for witness in own { publisher.subscribe(ReleaseCountingSubscriber(witness, released: released)) }
        jitter(round, thread, scale: 1_000)
        for witness in own { witness.cancelAndRecord() }
        // Once more from another thread, which may also come first: a cancel is idempotent.
        let next = (thread + 1) % Self.senders
        for witness in witnesses[next * perThread..<(next + 1) * perThread] { witness.cancelAndRecord() }
      }
      // Each subscriber is let go of at its cancel, or once the delivery on its way has returned.
      await released.reach(witnesses.count)
      var problem: String?
      for (index, witness) in witnesses.enumerated() {
        let events = witness.recorder.events
        let allowed: [[TestSubscriber<Int, Never>.Event]] = [
          [.subscription], [.subscription, .value(round)], [.subscription, .value(round), .completion(.finished)],
        ]
        if !allowed.contains(events) { problem = problem ?? "subscriber \(index): \(events)" }
        if let broken = witness.problemAfterCancel { problem = problem ?? "subscriber \(index): \(broken)" }
      }
      if runs.count > witnesses.count { problem = problem ?? "\(runs.count) runs for \(witnesses.count) subscribers" }
      #expect(problem == nil, "round \(round)")
      if problem != nil { return }
    }
  }

  /// An actor's loop over `values(bufferingPolicy:)`, made in the actor's method, while eight
  /// threads send: nothing lost, each sender's values in order.
  @Test func anActorsLoopReceivesEveryValueOfEightSendersEachInOrder() async {
    let senders = 8
    let perSender = 500
    for round in 0..<20 {
      let subject = PassthroughSubject<Int, Never>()
      let consumer = ValuesConsumingActor()
      await consumer.start(subject)
      await raceOnThreads(senders) { sender in
        jitter(round, sender)
        for index in 0..<perSender { subject.send(stamp(sender, index)) }
      }
      subject.send(completion: .finished)
      let received = await consumer.finished()
      #expect(received.count == senders * perSender, "round \(round)")
      #expect(everySenderInOrder(received, consecutive: true), "round \(round)")
      if received.count != senders * perSender { return }
    }
  }

  // MARK: Helpers

  /// `values`, or `values(bufferingPolicy:)` when there is a policy.
  private func values<P: Publisher>(of publisher: P, _ policy: AsyncBufferingPolicy?) -> Values<P>
  where P.Failure == Never {
    policy.map { .buffered(publisher.values(bufferingPolicy: $0)) } ?? .plain(publisher.values)
  }

  /// `values`, or `values(bufferingPolicy:)` when there is a policy, of a publisher that can fail.
  private func values<P: Publisher>(of publisher: P, _ policy: AsyncBufferingPolicy?) -> ThrowingValues<P> {
    policy.map { .buffered(publisher.values(bufferingPolicy: $0)) } ?? .plain(publisher.values)
  }

  /// What is wrong with what a loop received while the loop ran, given `policy` and how many
  /// values were sent before the completion, if anything.
  private func problemWith(_ received: [Int], policy: AsyncBufferingPolicy?, sent: Int) -> String? {
    if Set(received).count != received.count { return "a value came twice: \(received)" }
    if received.count > sent { return "\(received.count) values of \(sent) sent" }
    switch policy {
    case .unbounded:
      if received.count != sent { return "\(received.count) of \(sent) values" }
      if !everySenderInOrder(received, consecutive: true) { return "out of order or with a gap: \(received)" }
    case .bufferingNewest(let size) where size > 0:
      if !everySenderInOrder(received, consecutive: false) { return "out of order: \(received)" }
      // The value delivered last is never dropped, and it is the last of its sender's.
      if !received.contains(where: { $0 % senderStride == Self.valuesPerSender - 1 }) {
        return "no sender's last value: \(received)"
      }
    case .bufferingOldest(let size) where size > 0:
      if !everySenderInOrder(received, consecutive: false) { return "out of order: \(received)" }
      // The value delivered first is never dropped, and it is the first of its sender's.
      if !received.contains(where: { $0 % senderStride == 0 }) { return "no sender's first value: \(received)" }
    default:
      if !everySenderInOrder(received, consecutive: false) { return "out of order: \(received)" }
    }
    return nil
  }

  /// What is wrong with what a buffer kept while nobody waited in `next()`, if anything: exactly
  /// its size, with the newest values a run that ends at each sender's last value, with the
  /// oldest one that starts at each sender's first.
  private func problemWithKept(_ received: [Int], policy: AsyncBufferingPolicy) -> String? {
    let size: Int
    let newest: Bool
    switch policy {
    case .bufferingNewest(let kept): (size, newest) = (kept, true)
    case .bufferingOldest(let kept): (size, newest) = (kept, false)
    case .unbounded: return "not a bounded policy"
    }
    if received.count != min(size, Self.total) { return "\(received.count) values kept by a buffer of \(size)" }
    if newest {
      // Counted back from each sender's last value, the run starts at it with no gap.
      if !everySenderInOrder(received.reversed().map(reversedIndex), consecutive: true) {
        return "not each sender's newest values: \(received)"
      }
    } else if !everySenderInOrder(received, consecutive: true) {
      return "not each sender's oldest values: \(received)"
    }
    return nil
  }

  /// A stamp whose index counts from its sender's last value back.
  private func reversedIndex(_ value: Int) -> Int {
    stamp(value / senderStride, Self.valuesPerSender - 1 - value % senderStride)
  }
}

/// Runs `body` on `count` new threads that start it together, and returns once all have
/// finished, suspending rather than blocking a thread of the task pool. Objects the threads
/// create are attributed to the caller's leak check.
private func raceOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
  let scope = CensusScope.current
  let start = SpinBarrier(parties: count)
  let finished = AwaitableCount()
  for index in 0..<count {
    let thread = Thread {
      CensusScope.$current.withValue(scope) {
        start.wait()
        body(index)
      }
      finished.increment()
    }
    thread.stackSize = 1 << 20
    thread.start()
  }
  await finished.reach(count)
}

/// Busy work that varies with the round and the thread, so that the threads' actions land in a
/// different order from round to round; it counts steps, not time.
private func jitter(_ round: Int, _ thread: Int, scale: Int = 100) {
  let steps = ((round &* 7 &+ thread &* 13) % 16) * scale
  var sum = 0
  for step in 0..<steps { sum &+= step & 3 }
  withExtendedLifetime(sum) {}
}

/// Sent right after a cancel returned: it must never arrive.
private let forbiddenValue = -2

/// The sequence `values` or `values(bufferingPolicy:)` returns, for a publisher that cannot fail.
private enum Values<P: Publisher> where P.Failure == Never {
  case plain(AsyncPublisher<P>)
  case buffered(AsyncBufferedPublisher<P.Output, Never>)

  func makeAsyncIterator() -> Iterator {
    switch self {
    case .plain(let values): .plain(values.makeAsyncIterator())
    case .buffered(let values): .buffered(values.makeAsyncIterator())
    }
  }

  /// Either iterator; each holds only a reference, so a copy iterates the same subscription.
  enum Iterator {
    case plain(AsyncPublisher<P>.Iterator)
    case buffered(AsyncBufferedPublisher<P.Output, Never>.Iterator)

    mutating func next() async -> P.Output? {
      switch self {
      case .plain(var iterator): await iterator.next()
      case .buffered(var iterator): await iterator.next()
      }
    }
  }
}

/// The sequence `values` or `values(bufferingPolicy:)` returns, for a publisher that can fail.
private enum ThrowingValues<P: Publisher> {
  case plain(AsyncThrowingPublisher<P>)
  case buffered(AsyncBufferedPublisher<P.Output, P.Failure>)

  func makeAsyncIterator() -> Iterator {
    switch self {
    case .plain(let values): .plain(values.makeAsyncIterator())
    case .buffered(let values): .buffered(values.makeAsyncIterator())
    }
  }

  /// Either iterator; each holds only a reference, so a copy iterates the same subscription.
  enum Iterator {
    case plain(AsyncThrowingPublisher<P>.Iterator)
    case buffered(AsyncBufferedPublisher<P.Output, P.Failure>.Iterator)

    mutating func next() async throws -> P.Output? {
      switch self {
      case .plain(var iterator): try await iterator.next()
      case .buffered(var iterator): try await iterator.next()
      }
    }
  }
}

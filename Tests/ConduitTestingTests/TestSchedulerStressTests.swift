import Conduit
import ConduitTesting
import Dispatch
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A `TestScheduler` shared by threads: several schedule and cancel while one advances it. Each
/// test checks that every action runs exactly once, at or after its due time and never with the
/// clock going back, in due order for the actions scheduled before the advance and in the
/// order scheduled for one thread's actions due in that order, and that a cancelled repeating
/// action stops. CI runs this suite under ThreadSanitizer (`swift test --sanitize=thread
/// --filter Stress`).
@Suite(.leakChecked, .serialized)
struct TestSchedulerStressTests {
  /// What one action saw when it ran.
  private struct Run {
    let id: Int
    let due: TestTime
    let now: TestTime
  }

  /// The runs, in the order the actions ran.
  private final class RunLog: Sendable {
    private let runs = Mutex<[Run]>([])

    func record(_ run: Run) { runs.withLock { $0.append(run) } }
    var all: [Run] { runs.withLock { $0 } }
  }

  private final class Counter: Sendable {
    let value = Atomic<Int>(0)
    func increment() { value.wrappingAdd(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .acquiring) }
  }

  @Test func twoThreadsAdvancingAtOnceRunEveryActionOnceAndNeverMoveTheClockBack() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    let counter = Counter()
    // Atomics rather than a log behind a `Mutex`: ThreadSanitizer does not see `Mutex`'s
    // ordering on Linux, and here the actions run on both advancing threads.
    let early = Counter()
    let actions = 10_000
    for index in 0..<actions {
      scheduler.schedule(after: TestTime(index)) {
        counter.increment()
        if scheduler.now < TestTime(index) { early.increment() }
      }
    }
    onThreads(2) { _ in
      for _ in 0..<actions / 2 { scheduler.advance(by: .nanoseconds(1)) }
    }
    scheduler.advance(to: TestTime(actions))
    #expect(counter.count == actions)
    #expect(early.count == 0)
    #expect(scheduler.now == TestTime(actions))
  }

  @Test func actionsScheduledFromFourThreadsWhileAnotherAdvancesRunExactlyOnceInOrder() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    let log = RunLog()
    let early = 2_000
    let schedulers = 4
    let perThread = 2_000
    // Scheduled before the advance: due in a scrambled order over the first 1,000 ns, with ties.
    var due = 0
    for id in 0..<early {
      due = (due &* 1_103_515_245 &+ 12_345) & 0x3ff
      let time = TestTime(due)
      scheduler.schedule(after: time) { log.record(Run(id: id, due: time, now: scheduler.now)) }
    }
    let advancing = Atomic<Bool>(true)

    onThreads(schedulers + 1) { thread in
      if thread == schedulers {
        for _ in 0..<3_000 { scheduler.advance(by: .nanoseconds(1)) }
        advancing.store(false, ordering: .releasing)
        return
      }
      // Each thread's actions are due in the order it schedules them, some already past.
      for index in 0..<perThread {
        let id = early + thread * perThread + index
        let time = TestTime(index)
        scheduler.schedule(after: time) { log.record(Run(id: id, due: time, now: scheduler.now)) }
      }
    }
    scheduler.advance(by: .nanoseconds(10_000))

    let runs = log.all
    let total = early + schedulers * perThread
    #expect(runs.count == total)
    #expect(Set(runs.map(\.id)) == Set(0..<total))
    #expect(scheduler.pendingActionCount == 0)
    #expect(scheduler.performedActionCount == total)
    #expect(runs.allSatisfy { $0.now >= $0.due })
    #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.now <= $1.now })
    // Actions scheduled before the advance run at their due time, in due order, ties in the
    // order scheduled.
    let earlyRuns = runs.filter { $0.id < early }
    #expect(earlyRuns.allSatisfy { $0.now == $0.due })
    #expect(zip(earlyRuns, earlyRuns.dropFirst()).allSatisfy { ($0.due, $0.id) < ($1.due, $1.id) })
    for thread in 0..<schedulers {
      let ids = runs.map(\.id).filter { ($0 - early) / perThread == thread && $0 >= early }
      #expect(ids == Array(early + thread * perThread..<early + (thread + 1) * perThread))
    }
  }

  @Test func actionsThatScheduleMoreWhileOtherThreadsScheduleRunExactlyOnce() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    let counter = Counter()
    let chains = 100
    let links = 20
    let schedulers = 3
    let perThread = 2_000

    /// Schedules link `remaining` of a chain, one nanosecond on; each link schedules the next.
    @Sendable func scheduleLink(_ remaining: Int) {
      scheduler.schedule(after: scheduler.now.advanced(by: .nanoseconds(1))) {
        counter.increment()
        if remaining > 1 { scheduleLink(remaining - 1) }
      }
    }
    for _ in 0..<chains { scheduleLink(links) }

    onThreads(schedulers + 1) { thread in
      if thread == schedulers {
        for _ in 0..<2_000 { scheduler.advance(by: .nanoseconds(1)) }
        return
      }
      for index in 0..<perThread {
        if index % 2 == 0 {
          scheduler.schedule { counter.increment() }
        } else {
          scheduler.schedule(after: TestTime(index % 100)) { counter.increment() }
        }
      }
    }
    scheduler.advance(by: .nanoseconds(100))

    #expect(counter.count == chains * links + schedulers * perThread)
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func repeatingActionsCancelledFromOtherThreadsStopWhileAnotherAdvances() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    let interval = 10
    let repeating = 40
    let cancellers = 2
    let firings = (0..<repeating).map { _ in Counter() }
    let firingsAtCancel = (0..<repeating).map { _ in Counter() }
    let cancellables = firings.map { counter in
      scheduler.schedule(after: TestTime(interval), interval: .nanoseconds(interval)) { counter.increment() }
    }
    let cancellablesBox = UncheckedBox(cancellables)
    let kept = Counter()
    let keeper = scheduler.schedule(after: TestTime(interval), interval: .nanoseconds(interval)) { kept.increment() }
    let cancelled = Counter()

    onThreads(cancellers + 1) { thread in
      if thread == cancellers {
        // Advances until every action is cancelled; the kept one makes sure the clock moves.
        while cancelled.count < repeating { scheduler.advance(by: .nanoseconds(interval)) }
        return
      }
      // Each canceller takes every other action, each at a later point of the advance.
      for position in stride(from: thread, to: repeating, by: cancellers) {
        let threshold = position * 5
        waitUntil { firings[position].count >= threshold }
        cancellablesBox.value[position].cancel()
        firingsAtCancel[position].value.store(firings[position].count, ordering: .releasing)
        cancelled.increment()
      }
    }
    let end = scheduler.now.advanced(by: .nanoseconds(100 * interval))
    scheduler.advance(to: end)

    for position in 0..<repeating {
      let atCancel = firingsAtCancel[position].count
      // One firing may have been on its way when cancel returned; none after it.
      #expect(firings[position].count <= atCancel + 1, "action \(position)")
      #expect(firings[position].count >= position * 5, "action \(position)")
    }
    // The action nobody cancelled fired once per interval, none lost nor doubled.
    #expect(kept.count == (end.nanoseconds - interval) / interval + 1)
    keeper.cancel()
    #expect(scheduler.pendingActionCount == 0)
  }
}

/// Hands a value that is only read to other threads.
private final class UncheckedBox<Value>: @unchecked Sendable {
  // Immutable.
  let value: Value

  init(_ value: Value) {
    self.value = value
  }
}

/// Spins until `condition` holds, giving up the processor every few tries: the thread it waits
/// for may need it (the machine may have fewer cores than threads).
private func waitUntil(_ condition: () -> Bool) {
  var spins = 0
  while !condition() {
    spins += 1
    if spins % 16 == 0 { sched_yield() }
  }
}

/// Runs `body` on `count` threads started together, and returns when all have finished.
private func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
  let gate = DispatchSemaphore(value: 0)
  let group = DispatchGroup()
  for index in 0..<count {
    group.enter()
    let thread = Thread {
      gate.wait()
      body(index)
      group.leave()
    }
    thread.stackSize = 1 << 20
    thread.start()
  }
  for _ in 0..<count { gate.signal() }
  group.wait()
}

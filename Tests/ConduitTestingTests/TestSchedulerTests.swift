import Conduit
import ConduitSchedulers
import ConduitTesting
import Dispatch
import Synchronization
import Testing

@Suite(.leakChecked)
struct TestSchedulerTests {
  final class Counter: Sendable {
    let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
  }

  @Test func runsWorkInDueOrder() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    var order: [String] = []
    scheduler.schedule(after: TestTime.seconds(3)) { order.append("3s") }
    scheduler.schedule(after: TestTime.seconds(1)) { order.append("1s") }
    scheduler.schedule(after: TestTime.seconds(2)) { order.append("2s") }
    scheduler.advance(by: .seconds(2))
    #expect(order == ["1s", "2s"])
    scheduler.advance(by: .seconds(1))
    #expect(order == ["1s", "2s", "3s"])
  }

  @Test func runsTiesInTheOrderTheyWereScheduled() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    var order: [Int] = []
    for index in 0..<5 { scheduler.schedule(after: TestTime.seconds(1)) { order.append(index) } }
    scheduler.schedule { order.append(-1) }
    scheduler.schedule(after: TestTime.seconds(1)) { order.append(5) }
    scheduler.advance(by: .seconds(1))
    #expect(order == [-1, 0, 1, 2, 3, 4, 5])
  }

  @Test func immediateWorkIsDueNowAndRunsOnAnAdvanceByZero() {
    let scheduler = VirtualScheduler(now: TestTime(7))
    var ran = false
    scheduler.schedule { ran = true }
    #expect(!ran)
    scheduler.advance()
    #expect(ran)
    #expect(scheduler.now == TestTime(7))
  }

  @Test func runsWorkThatActionsScheduleWithinTheWindow() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    var attempts: [TestTime] = []
    func attempt() {
      attempts.append(scheduler.now)
      if attempts.count < 10 { scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1)), attempt) }
    }
    scheduler.schedule(attempt)
    scheduler.advance(by: .milliseconds(4_500))
    #expect(attempts == (0...4).map { TestTime.seconds($0) })
    #expect(scheduler.now == TestTime(4_500_000_000))
    scheduler.advance(by: .seconds(100))
    #expect(attempts.count == 10)
  }

  @Test func nowIsEachActionsDueTimeWhileItRunsAndTheTargetAfterwards() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    var seen: [TestTime] = []
    scheduler.schedule(after: TestTime(5)) { seen.append(scheduler.now) }
    scheduler.schedule(after: TestTime(2)) { seen.append(scheduler.now) }
    scheduler.advance(to: TestTime(10))
    #expect(seen == [TestTime(2), TestTime(5)])
    #expect(scheduler.now == TestTime(10))
  }

  @Test func workScheduledInThePastRunsAtOnceWithoutMovingTheClockBack() {
    let scheduler = VirtualScheduler(now: TestTime.seconds(10))
    var seen: TestTime?
    scheduler.schedule(after: TestTime.seconds(1)) { seen = scheduler.now }
    scheduler.advance()
    #expect(seen == TestTime.seconds(10))
  }

  @Test func aRepeatingActionFiresOncePerIntervalOfTheAdvance() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    var firings: [TestTime] = []
    let timer = scheduler.schedule(after: TestTime.seconds(1), interval: .seconds(1)) { firings.append(scheduler.now) }
    scheduler.advance(by: .seconds(10))
    #expect(firings == (1...10).map { TestTime.seconds($0) })
    #expect(scheduler.performedActionCount == 10)
    #expect(scheduler.scheduledActionCount == 1)
    #expect(scheduler.pendingActionCount == 1)
    timer.cancel()
    #expect(scheduler.pendingActionCount == 0)
    scheduler.advance(by: .seconds(10))
    #expect(firings.count == 10)
  }

  @Test func aRepeatingActionMayCancelItself() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    var firings = 0
    var timer: (any Cancellable)?
    timer = scheduler.schedule(after: TestTime.seconds(1), interval: .seconds(1)) {
      firings += 1
      if firings == 3 { timer?.cancel() }
    }
    scheduler.advance(by: .seconds(10))
    #expect(firings == 3)
    #expect(scheduler.pendingActionCount == 0)
    timer = nil
  }

  @Test func cancellingARepetitionReleasesItsAction() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    weak var released: Token?
    var timer: (any Cancellable)?
    do {
      let token = Token()
      released = token
      timer = scheduler.schedule(after: TestTime.seconds(1), interval: .seconds(1)) { _ = token }
    }
    scheduler.advance(by: .seconds(3))
    #expect(released != nil)
    timer?.cancel()
    #expect(released == nil)
    timer = nil
  }

  @Test func releasingTheCancellableOfARepetitionCancelsIt() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    var firings = 0
    var timer: (any Cancellable)? = scheduler.schedule(after: TestTime.seconds(1), interval: .seconds(1)) {
      firings += 1
    }
    scheduler.advance(by: .seconds(2))
    withExtendedLifetime(timer) {}
    timer = nil
    scheduler.advance(by: .seconds(2))
    #expect(firings == 2)
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func countsScheduledPendingAndPerformedActionsAndKnowsTheNextDueTime() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    #expect(scheduler.nextDueTime == nil)
    for second in 1...3 { scheduler.schedule(after: TestTime.seconds(second)) {} }
    #expect(scheduler.scheduledActionCount == 3)
    #expect(scheduler.pendingActionCount == 3)
    #expect(scheduler.nextDueTime == TestTime.seconds(1))
    scheduler.advance(by: .seconds(2))
    #expect(scheduler.scheduledActionCount == 3)
    #expect(scheduler.pendingActionCount == 1)
    #expect(scheduler.performedActionCount == 2)
    #expect(scheduler.nextDueTime == TestTime.seconds(3))
    #expect(scheduler.minimumTolerance == .zero)
  }

  @Test func runPerformsFiniteWorkToTheEnd() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    var order: [Int] = []
    scheduler.schedule(after: TestTime.seconds(60)) { order.append(60) }
    scheduler.schedule(after: TestTime.seconds(30)) {
      order.append(30)
      scheduler.schedule(after: TestTime.seconds(90)) { order.append(90) }
    }
    scheduler.run()
    #expect(order == [30, 60, 90])
    #expect(scheduler.now == TestTime.seconds(90))
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func runStopsAtItsBoundWithRepeatingWorkAndFailsTheTestNamingIt() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    var firings = 0
    let timer = scheduler.schedule(after: TestTime.seconds(2), interval: .seconds(1)) { firings += 1 }
    withKnownIssue {
      scheduler.run(maxActions: 1_000)
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined()
      return text.contains("TestScheduler.run() stopped after 1000 actions with 1 still pending")
        && text.contains("1 repeating action(s)")
        && text.contains("every 1s from 2s, scheduled at time 0s, fired 1000 times")
        && text.contains("TestSchedulerTests.swift")
    }
    #expect(firings == 1_000)
    timer.cancel()
  }

  @Test func runStopsAtItsBoundWhenActionsKeepSchedulingMore() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    func retry() { scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1)), retry) }
    scheduler.schedule(retry)
    withKnownIssue {
      scheduler.run(maxActions: 10)
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("None of them repeats")
    }
    #expect(scheduler.performedActionCount == 10)
  }

  @Test func runEndingExactlyAtItsBoundReportsNothing() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    for second in 1...10 { scheduler.schedule(after: TestTime.seconds(second)) {} }
    scheduler.run(maxActions: 10)
    #expect(scheduler.performedActionCount == 10)
  }

  @Test func schedulingFromManyThreadsWhileAdvancing() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    let counter = Counter()
    let threads = 8
    let perThread = 2_000
    DispatchQueue.concurrentPerform(iterations: threads + 1) { thread in
      if thread == threads {
        for _ in 0..<1_000 { scheduler.advance(by: .nanoseconds(10)) }
      } else {
        for index in 0..<perThread {
          let now = scheduler.now
          scheduler.schedule(after: now.advanced(by: .nanoseconds(index % 50))) { counter.increment() }
        }
      }
    }
    scheduler.advance(by: .seconds(1))
    #expect(counter.count == threads * perThread)
    #expect(scheduler.scheduledActionCount == threads * perThread)
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func runsAMillionActionsInDueOrder() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    let count = 1_000_000
    var performed = 0
    var outOfOrder = 0
    var last = TestTime(0)
    var due = 0
    for _ in 0..<count {
      due = (due &* 1_103_515_245 &+ 12_345) & 0x3fff_ffff
      scheduler.schedule(after: TestTime(due)) {
        performed += 1
        if scheduler.now < last { outOfOrder += 1 }
        last = scheduler.now
      }
    }
    #expect(scheduler.pendingActionCount == count)
    scheduler.advance(to: TestTime(0x4000_0000))
    #expect(performed == count)
    #expect(outOfOrder == 0)
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func advancingByANegativeStrideStopsWithAMessage() async {
    await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      VirtualScheduler(now: TestTime(0)).advance(by: .seconds(-1))
    }.map { result in
      let text = String(decoding: result.standardErrorContent, as: UTF8.self)
      #expect(text.contains("advance(by: -1s): the stride is negative, and virtual time cannot move backwards"))
    }
  }

  @Test func advancingToAnEarlierTimeStopsWithAMessage() async {
    await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      VirtualScheduler(now: TestTime.seconds(5)).advance(to: TestTime.seconds(1))
    }.map { result in
      let text = String(decoding: result.standardErrorContent, as: UTF8.self)
      #expect(text.contains("advance(to: 1s): that is before the scheduler's current time, 5s"))
    }
  }

  @Test func eraseToAnySchedulerKeepsTheVirtualClock() {
    let scheduler = VirtualScheduler(now: TestTime(0))
    let erased = scheduler.eraseToAnyScheduler()
    var ran = false
    erased.schedule(after: erased.now.advanced(by: .seconds(1))) { ran = true }
    scheduler.advance(by: .seconds(1))
    #expect(ran)
    #expect(erased.now == TestTime.seconds(1))
  }
}

import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct ImmediateTestSchedulerTests {
  @Test func runsImmediateWorkAtOnceWithoutMovingTheClock() {
    let scheduler = ImmediateTestScheduler<TestTime, Never>(now: TestTime(3))
    var ran = false
    scheduler.schedule { ran = true }
    #expect(ran)
    #expect(scheduler.now == TestTime(3))
    #expect(scheduler.minimumTolerance == .zero)
  }

  @Test func runsDelayedWorkAtOnceAndJumpsTheClockToItsDate() {
    let scheduler = ImmediateTestScheduler<TestTime, Never>(now: TestTime(0))
    var seen: [TestTime] = []
    scheduler.schedule(after: TestTime.seconds(5)) { seen.append(scheduler.now) }
    #expect(seen == [TestTime.seconds(5)])
    scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { seen.append(scheduler.now) }
    #expect(seen == [TestTime.seconds(5), TestTime.seconds(6)])
  }

  @Test func neverMovesTheClockBackwards() {
    let scheduler = ImmediateTestScheduler<TestTime, Never>(now: TestTime.seconds(10))
    var seen: TestTime?
    scheduler.schedule(after: TestTime.seconds(1)) { seen = scheduler.now }
    #expect(seen == TestTime.seconds(10))
    #expect(scheduler.now == TestTime.seconds(10))
  }

  @Test func runsNestedWorkInsideTheOuterAction() {
    let scheduler = ImmediateTestScheduler<TestTime, Never>(now: TestTime(0))
    var order: [String] = []
    scheduler.schedule(after: TestTime.seconds(1)) {
      order.append("outer")
      scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { order.append("inner at \(scheduler.now)") }
      order.append("outer done")
    }
    #expect(order == ["outer", "inner at 2s", "outer done"])
  }

  @Test func runsARepeatingActionOnceAtItsFirstDate() {
    let scheduler = ImmediateTestScheduler<TestTime, Never>(now: TestTime(0))
    var firings: [TestTime] = []
    let timer = scheduler.schedule(after: TestTime.seconds(2), interval: .seconds(1)) {
      firings.append(scheduler.now)
    }
    #expect(firings == [TestTime.seconds(2)])
    timer.cancel()
  }
}

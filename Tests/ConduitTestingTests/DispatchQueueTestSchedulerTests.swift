import Conduit
import ConduitSchedulers
import ConduitTesting
import Dispatch
import Testing

@Suite(.leakChecked)
struct DispatchQueueTestSchedulerTests {
  @Test func testStartsAtOneNanosecondOfUptimeAndMovesOnlyWhenAdvanced() {
    let scheduler = DispatchQueue.test
    let start = scheduler.now
    #expect(start == DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
    var seen: [DispatchQueue.SchedulerTimeType] = []
    scheduler.schedule(after: start.advanced(by: .milliseconds(300))) { seen.append(scheduler.now) }
    scheduler.advance(by: .milliseconds(299))
    #expect(seen.isEmpty)
    scheduler.advance(by: .milliseconds(1))
    #expect(seen == [start.advanced(by: .milliseconds(300))])
  }

  @Test func testEachUseIsANewScheduler() {
    let first = DispatchQueue.test
    first.advance(by: .seconds(1))
    #expect(DispatchQueue.test.now == DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
  }

  @Test func testRunsARepeatingTimerOncePerInterval() {
    let scheduler = DispatchQueue.test
    var ticks = 0
    let timer = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { ticks += 1 }
    scheduler.advance(by: .seconds(9))
    #expect(ticks == 10)
    timer.cancel()
  }

  @Test func testDrivesCodeThatTakesAnySchedulerOfDispatchQueue() {
    let scheduler = DispatchQueue.test
    let erased: AnySchedulerOf<DispatchQueue> = scheduler.eraseToAnyScheduler()
    var values: [Int] = []
    for value in 1...2 { erased.schedule(after: erased.now.advanced(by: .seconds(1))) { values.append(value) } }
    #expect(scheduler.scheduledActionCount == 2)
    scheduler.advance(by: .milliseconds(999))
    #expect(values.isEmpty)
    scheduler.advance(by: .milliseconds(1))
    #expect(values == [1, 2])
    #expect(erased.now == scheduler.now)
  }

  @Test func immediateRunsAtOnceAndJumpsTheClock() {
    let scheduler = DispatchQueue.immediate
    let start = scheduler.now
    #expect(start == DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
    var ran = false
    scheduler.schedule(after: start.advanced(by: .seconds(5))) { ran = true }
    #expect(ran)
    #expect(scheduler.now == start.advanced(by: .seconds(5)))
  }

  @Test func unimplementedFailsTheTestWhenScheduledOn() {
    let scheduler = DispatchQueue.unimplemented("background queue")
    var ran = false
    withKnownIssue {
      scheduler.schedule { ran = true }
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains(
        "background queue (created at ConduitTestingTests/DispatchQueueTestSchedulerTests.swift:")
    }
    #expect(!ran)
    withKnownIssue {
      DispatchQueue.unimplemented.schedule {}
    }
  }
}

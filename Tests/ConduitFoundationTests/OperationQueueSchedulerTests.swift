import ConduitFoundation
import ConduitTesting
import Foundation
import Testing

private typealias TimeType = OperationQueue.SchedulerTimeType
private typealias Stride = OperationQueue.SchedulerTimeType.Stride

@Suite(.leakChecked)
struct OperationQueueSchedulerTests {
  @Test func strideIsInSeconds() {
    #expect(Stride.milliseconds(250).timeInterval == 0.25)
    #expect(Stride.nanoseconds(2).timeInterval == 2e-9)
    #expect((2 as Stride).magnitude == 2)
    #expect((Stride.seconds(3) * .seconds(2)).magnitude == 6)
    #expect((Stride.seconds(-12) + .milliseconds(7)).magnitude == -11.993)
    #expect(Stride(exactly: UInt64.max) == nil)
  }

  @Test func timesMeasureAdvanceAndCodeAsCombine() throws {
    let time = TimeType(Date(timeIntervalSinceReferenceDate: 1024.75))
    #expect(time.advanced(by: .seconds(10)).distance(to: time) == .seconds(-10))
    #expect(try json(time) == #"{"date":1024.75}"#)
    #expect(try roundTripped(time) == time)
    #expect(try json(Stride.seconds(1024.5)) == #"{"magnitude":1024.5}"#)
    #expect(try roundTripped(Stride.seconds(1.5)) == .seconds(1.5))
    #expect(OperationQueue().minimumTolerance == Stride(0))
  }

  @Test func scheduleRunsAsAnOperationOnTheQueue() {
    let queue = OperationQueue()
    let onQueue = Recorder<Bool>()
    queue.schedule { onQueue.record(OperationQueue.current === queue) }
    onQueue.wait(forCount: 1)
    #expect(onQueue.recorded == [true])
  }

  @Test func scheduleAfterAddsAnOperationThatWaitsForItsDate() {
    // As in Combine, the operation is in the queue at once, not ready until its date. The date is
    // far enough ahead that a test thread held up under load still finds it waiting.
    let waitingQueue = OperationQueue()
    waitingQueue.schedule(after: waitingQueue.now.advanced(by: .seconds(3600))) {
      Issue.record("the operation ran before its date")
    }
    let waiting = waitingQueue.operations
    #expect(waiting.count == 1)
    #expect(waiting.first.map { !$0.isReady && !($0 is BlockOperation) } == true)
    waiting.forEach { $0.cancel() }
    waitingQueue.waitUntilAllOperationsAreFinished()

    // It runs at its date, not before.
    let queue = OperationQueue()
    let ran = Recorder<Date>()
    let due = queue.now.advanced(by: .milliseconds(40))
    queue.schedule(after: due) { ran.record(Date()) }
    queue.waitUntilAllOperationsAreFinished()
    #expect(ran.count == 1)
    #expect(ran.recorded.allSatisfy { $0 >= due.date })
  }

  @Test func delayedOperationRunsItsActionOnce() throws {
    let queue = OperationQueue()
    let ran = Recorder<Void>()
    // Suspended, so that the operation is still in the queue when the test takes it.
    queue.isSuspended = true
    queue.schedule(after: queue.now.advanced(by: .milliseconds(10))) { ran.record() }
    let operation = try #require(queue.operations.first)
    queue.isSuspended = false
    queue.waitUntilAllOperationsAreFinished()
    operation.main()
    #expect(ran.count == 1)
  }

  @Test func repeatingRunsUntilCancelledAndThenReleasesTheAction() {
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let ticks = Recorder<Date>()
    weak var released: Captive?
    let start = queue.now.advanced(by: .milliseconds(10))
    let token: any Cancellable = {
      let captive = Captive()
      released = captive
      return queue.schedule(after: start, interval: .milliseconds(10)) {
        withExtendedLifetime(captive) { ticks.record(Date()) }
      }
    }()
    ticks.wait(forCount: 3)
    // Cancelled from an operation on the serial queue: no run is under way.
    let cancelled = Recorder<Void>()
    queue.schedule {
      token.cancel()
      cancelled.record()
    }
    cancelled.wait(forCount: 1)
    queue.waitUntilAllOperationsAreFinished()
    let afterCancel = ticks.count
    #expect(released == nil)
    #expect(queue.operationCount == 0)
    // Runs are due one interval apart, the first at `start`.
    let recorded = ticks.recorded
    #expect(recorded.first.map { $0 >= start.date } == true)
    #expect(zip(recorded, recorded.dropFirst()).allSatisfy { $1 > $0 })
    // Three more intervals pass before the count is read again.
    queue.schedule(after: queue.now.advanced(by: .milliseconds(40))) {}
    queue.waitUntilAllOperationsAreFinished()
    #expect(ticks.count == afterCancel)
  }
}

import ConduitFoundation
import ConduitTesting
import Foundation
import Synchronization
import Testing

private typealias TimeType = RunLoop.SchedulerTimeType
private typealias Stride = RunLoop.SchedulerTimeType.Stride

@Suite(.leakChecked)
struct RunLoopSchedulerTests {
  // MARK: - Stride

  @Test func strideFactoriesAndLiteralsAreSeconds() {
    #expect(Stride.seconds(2).timeInterval == 2)
    #expect(Stride.seconds(2.2).timeInterval == 2.2)
    #expect(Stride.milliseconds(2).timeInterval == 0.002)
    #expect(Stride.microseconds(2).timeInterval == 2e-6)
    #expect(Stride.nanoseconds(2).timeInterval == 2e-9)
    #expect(Stride.milliseconds(.max).timeInterval == 9.223372036854776e15)
    #expect((1.5 as Stride).magnitude == 1.5)
    #expect((2 as Stride).magnitude == 2)
    #expect(Stride(0.25).magnitude == 0.25)
    #expect(Stride(exactly: 871 as UInt64)?.magnitude == 871)
    #expect(Stride(exactly: UInt64.max) == nil)
  }

  @Test func strideArithmeticWorksOnSeconds() {
    #expect((Stride.milliseconds(-12) + .seconds(7)).magnitude == 6.988)
    #expect((Stride.seconds(-12) - .milliseconds(7)).magnitude == -12.007)
    // Unlike DispatchQueue's, Combine's run loop stride multiplies.
    #expect((Stride.seconds(3) * .seconds(2)).magnitude == 6)
    var stride = Stride.seconds(1)
    stride += .milliseconds(500)
    #expect(stride.magnitude == 1.5)
    stride -= .seconds(2)
    #expect(stride.magnitude == -0.5)
    stride *= .seconds(4)
    #expect(stride.magnitude == -2)
    #expect(Stride.nanoseconds(1) < .nanoseconds(2))
    #expect(Stride.nanoseconds(-2) > .microseconds(-10))
  }

  // MARK: - SchedulerTimeType

  @Test func timesMeasureAndAdvanceInSeconds() {
    let earlier = TimeType(Date(timeIntervalSince1970: 10_000))
    let later = TimeType(Date(timeIntervalSince1970: 10_431))
    #expect(earlier.distance(to: later).timeInterval == 431)
    #expect(later.distance(to: earlier).timeInterval == -431)
    #expect(earlier.advanced(by: .seconds(431)) == later)
    #expect(later.advanced(by: .seconds(-431)) == earlier)
    #expect(earlier < later)
    #expect(earlier.hashValue == TimeType(Date(timeIntervalSince1970: 10_000)).hashValue)
  }

  @Test func codingUsesCombinesFormat() throws {
    let time = TimeType(Date(timeIntervalSinceReferenceDate: 1024.75))
    #expect(try json(time) == #"{"date":1024.75}"#)
    #expect(try roundTripped(time) == time)
    let stride = Stride.seconds(1024.5)
    #expect(try json(stride) == #"{"magnitude":1024.5}"#)
    #expect(try roundTripped(stride) == stride)
  }

  @Test func nowIsTheDateAndToleranceIsZero() {
    let before = Date()
    let now = RunLoop.current.now.date
    #expect(now >= before && now <= Date())
    #expect(RunLoop.current.minimumTolerance == Stride(0))
  }

  // MARK: - Scheduling

  @Test func scheduleRunsOnTheRunLoopThread() {
    let loop = RunLoopThread()
    defer { loop.stop() }
    let onLoop = Recorder<Bool>()
    loop.runLoop.schedule { onLoop.record(loop.isCurrent) }
    onLoop.wait(forCount: 1)
    #expect(onLoop.recorded == [true])
  }

  @Test func scheduleWakesARunLoopThatSleeps() {
    // Without a wake-up, a block performed on this loop would wait for the end of its slice.
    let loop = RunLoopThread(slice: 1)
    let caller = RunLoopThread()
    defer {
      caller.stop()
      loop.stop()
    }
    let latency = Recorder<TimeInterval>()
    // Scheduled from another loop's timer, 100 ms after the sleeping loop last had work.
    loop.sync {}
    caller.runLoop.schedule(after: caller.runLoop.now.advanced(by: .milliseconds(100))) {
      let start = Date()
      loop.runLoop.schedule { latency.record(Date().timeIntervalSince(start)) }
    }
    latency.wait(forCount: 1)
    #expect(latency.recorded.allSatisfy { $0 < 0.5 })
  }

  @Test func scheduleAfterRunsNoEarlierThanTheDate() {
    let loop = RunLoopThread()
    defer { loop.stop() }
    let ran = Recorder<Date>()
    let due = loop.runLoop.now.advanced(by: .milliseconds(30))
    loop.runLoop.schedule(after: due) { ran.record(Date()) }
    ran.wait(forCount: 1)
    #expect(ran.recorded.allSatisfy { $0 >= due.date })
  }

  @Test func repeatingRunsUntilCancelledAndThenReleasesTheAction() {
    let loop = RunLoopThread()
    defer { loop.stop() }
    let ticks = Recorder<Bool>()
    weak var released: Captive?
    let token: any Cancellable = {
      let captive = Captive()
      released = captive
      return loop.runLoop.schedule(after: loop.runLoop.now, interval: .milliseconds(10)) {
        withExtendedLifetime(captive) { ticks.record(loop.isCurrent) }
      }
    }()
    ticks.wait(forCount: 3)
    // Cancelled on the loop's thread, between two runs: no run can be under way.
    loop.sync { token.cancel() }
    let afterCancel = ticks.count
    #expect(released == nil)
    // Three more intervals pass on the loop before the count is read again.
    let marker = Recorder<Void>()
    loop.runLoop.schedule(after: loop.runLoop.now.advanced(by: .milliseconds(40))) { marker.record() }
    marker.wait(forCount: 1)
    #expect(ticks.count == afterCancel)
    #expect(ticks.recorded.allSatisfy { $0 })
  }

  @Test func debounceRunsOnARunLoop() {
    let loop = RunLoopThread()
    defer { loop.stop() }
    let subject = PassthroughSubject<Int, Never>()
    let received = Recorder<Int>()
    let token = subject.debounce(for: .milliseconds(30), scheduler: loop.runLoop).sink { received.record($0) }
    subject.send(1)
    subject.send(2)
    subject.send(3)
    received.wait(forCount: 1)
    #expect(received.recorded == [3])
    token.cancel()
  }

  @Test func receiveOnARunLoopThatTheTestRunsItself() {
    let runLoop = RunLoop.current
    let subject = PassthroughSubject<Int, Never>()
    var received: [Int] = []
    let token = subject.receive(on: runLoop).sink { received.append($0) }
    let sender = Thread { subject.send(7) }
    sender.start()
    let deadline = Date(timeIntervalSinceNow: 10)
    while received.isEmpty && Date() < deadline {
      _ = runLoop.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01))
    }
    token.cancel()
    #expect(received == [7])
  }
}

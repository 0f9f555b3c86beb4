import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct UnimplementedSchedulerTests {
  @Test func schedulingNowFailsTheTestAndDropsTheAction() {
    let scheduler = UnimplementedScheduler<TestTime, Never>("background queue", now: TestTime(0))
    var ran = false
    withKnownIssue {
      scheduler.schedule { ran = true }
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined()
      return text.contains("background queue (created at ConduitTestingTests/UnimplementedSchedulerTests.swift:")
        && text.contains("was asked to schedule(options:_:)")
        && issue.sourceLocation?.fileID == "ConduitTestingTests/UnimplementedSchedulerTests.swift"
    }
    #expect(!ran)
  }

  @Test func schedulingAfterADateFailsTheTest() {
    let scheduler = UnimplementedScheduler<TestTime, Never>(now: TestTime(0))
    var ran = false
    withKnownIssue {
      scheduler.schedule(after: TestTime.seconds(1)) { ran = true }
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("UnimplementedScheduler (created at")
    }
    #expect(!ran)
  }

  @Test func schedulingARepetitionFailsTheTest() {
    let scheduler = UnimplementedScheduler<TestTime, Never>(now: TestTime(0))
    var ran = false
    withKnownIssue {
      let timer = scheduler.schedule(after: TestTime.seconds(1), interval: .seconds(1)) { ran = true }
      timer.cancel()
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("interval: 1s")
    }
    #expect(!ran)
  }

  @Test func readingTheClockDoesNotFail() {
    let scheduler = UnimplementedScheduler<TestTime, Never>(now: TestTime(3))
    #expect(scheduler.now == TestTime(3))
    #expect(scheduler.minimumTolerance == .zero)
  }
}

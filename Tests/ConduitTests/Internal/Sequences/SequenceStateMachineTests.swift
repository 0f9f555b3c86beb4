import ConduitTesting
import Testing

@testable import Conduit

/// The decisions of the sequence publisher's subscription, without threads or subscribers.
@Suite(.leakChecked)
struct SequenceStateMachineTests {
  private typealias Machine = SequenceStateMachine<[Int]>

  @Test func theFirstRequestStartsTheLoopAndLaterOnesOnlyAddDemand() {
    var machine = Machine(sequence: [1, 2, 3])
    let starts = machine.request(.max(1))
    #expect(starts)
    guard case .deliver(.max(1)) = machine.takeGrantedDemand() else {
      Issue.record("the loop starts by taking what was granted")
      return
    }
    // From inside the loop's call into downstream: only posted.
    let startsAgain = machine.request(.max(2))
    #expect(!startsAgain)
    guard case .deliver(.max(2)) = machine.takeGrantedDemand() else {
      Issue.record("the loop takes what was posted while it delivered")
      return
    }
    guard case .stop = machine.takeGrantedDemand() else {
      Issue.record("with nothing granted, the loop hands delivery back")
      return
    }
    // Delivery was handed back: the next request starts a loop again.
    let restarts = machine.request(.max(1))
    #expect(restarts)
  }

  @Test func aCancelWhileTheLoopRunsLeavesTheReleaseToTheLoop() {
    var machine = Machine(sequence: [1, 2])
    let starts = machine.request(.unlimited)
    #expect(starts)
    let (sequence, loopRuns) = machine.cancel()
    #expect(sequence == [1, 2])
    #expect(loopRuns)
    #expect(machine.sequence == nil)
    guard case .release = machine.takeGrantedDemand() else {
      Issue.record("the loop sees the cancel and releases everything")
      return
    }
    let startsAfterCancel = machine.request(.max(1))
    #expect(!startsAfterCancel)
    #expect(machine.finish() == nil)
  }

  @Test func aCancelWithNoLoopRunningReleasesAtOnceAndKeepsLaterLoopsFromStarting() {
    var machine = Machine(sequence: [1])
    let (sequence, loopRuns) = machine.cancel()
    #expect(sequence == [1])
    #expect(!loopRuns)
    let starts = machine.request(.max(1))
    #expect(!starts)
  }

  @Test func finishingEndsThePublishingOnceAndACancelAfterwardsFindsTheLoopOwningDelivery() {
    var machine = Machine(sequence: [7])
    let starts = machine.request(.max(1))
    #expect(starts)
    #expect(machine.finish() == [7])
    #expect(machine.finish() == nil)
    let (sequence, loopRuns) = machine.cancel()
    #expect(sequence == nil)
    #expect(loopRuns)
  }
}

import ConduitTesting
import Testing

@testable import Conduit

/// The delivery contract (`DeliveryOwnership`) and its owner's loop (`Locked.drain`), driven by
/// hand on one thread: a queue of values behind a lock, posted to and drained as the operators
/// that use it do.
@Suite(.leakChecked)
struct DeliveryOwnershipTests {
  /// A locked queue of values and the ownership of their delivery.
  struct Queue {
    var values: [Int] = []
    var delivery = DeliveryOwnership()
    var ended = false
  }

  @Test func onlyTheFirstClaimOwnsUntilDeliveryIsGivenBack() {
    var ownership = DeliveryOwnership()
    let first = ownership.claim()
    let second = ownership.claim()
    #expect(first && !second)
    #expect(ownership.isClaimed)
    ownership.giveBack()
    #expect(!ownership.isClaimed)
    let afterGivingBack = ownership.claim()
    #expect(afterGivingBack)
  }

  @Test func ownershipCanStartClaimedByTheCreatingCall() {
    var ownership = DeliveryOwnership(claimed: true)
    let whileClaimed = ownership.claim()
    #expect(!whileClaimed)
    ownership.giveBack()
    let afterGivingBack = ownership.claim()
    #expect(afterGivingBack)
  }

  @Test func theOwnerDeliversWhatIsPostedWhileItDeliversInOrderAndThenGivesBack() {
    let state = Locked(Queue(values: [1, 2]))
    let claimed = state.withLock { $0.delivery.claim() }
    #expect(claimed)
    var delivered: [Int] = []
    var postedFromInside = false
    state.drain { queue -> NextDelivery<Int> in
      guard !queue.values.isEmpty else {
        queue.delivery.giveBack()
        return .stop
      }
      return .perform(queue.values.removeFirst())
    } perform: { value in
      delivered.append(value)
      // A re-entrant post, as from inside the downstream's receive(_:): it finds delivery
      // claimed, so it only queues, and the loop below it delivers it.
      if !postedFromInside {
        postedFromInside = true
        let owns = state.withLock { queue -> Bool in
          queue.values.append(3)
          return queue.delivery.claim()
        }
        #expect(!owns)
      }
    }
    #expect(delivered == [1, 2, 3])
    #expect(state.withLock { !$0.delivery.isClaimed && $0.values.isEmpty })
  }

  @Test func performAndStopEndsTheLoopAfterItsWork() {
    let state = Locked(Queue(values: [1, 2, 3]))
    let claimed = state.withLock { $0.delivery.claim() }
    #expect(claimed)
    var delivered: [Int] = []
    state.drain { queue -> NextDelivery<Int> in
      let value = queue.values.removeFirst()
      guard value < 2 else {
        // The stream ends here: delivery stays claimed, so nothing more is delivered.
        queue.ended = true
        return .performAndStop(value)
      }
      return .perform(value)
    } perform: { value in
      delivered.append(value)
    }
    #expect(delivered == [1, 2])
    #expect(state.withLock { $0.delivery.isClaimed && $0.ended && $0.values == [3] })
    // A later post finds delivery claimed for good.
    let claimedAgain = state.withLock { $0.delivery.claim() }
    #expect(!claimedAgain)
  }

  @Test func whatPerformLearnsReachesTheNextDecision() {
    let state = Locked(Queue(values: [10, 20, 30]))
    let claimed = state.withLock { $0.delivery.claim() }
    #expect(claimed)
    // Each delivery returns how many more values may follow, as a downstream's demand does.
    var demand = 1
    var delivered: [Int] = []
    state.drain { queue -> NextDelivery<Int> in
      guard demand > 0, !queue.values.isEmpty else {
        queue.delivery.giveBack()
        return .stop
      }
      demand -= 1
      return .perform(queue.values.removeFirst())
    } perform: { value in
      delivered.append(value)
      if value == 10 { demand += 1 }
    }
    #expect(delivered == [10, 20])
    #expect(state.withLock { !$0.delivery.isClaimed && $0.values == [30] })
  }
}

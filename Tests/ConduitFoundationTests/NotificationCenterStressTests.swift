import ConduitFoundation
import ConduitTesting
import Dispatch
import Foundation
import Synchronization
import Testing

private let pulse = Notification.Name("NotificationCenterStressTests.pulse")

/// Many threads posting to one subscription while others request and cancel: run under
/// ThreadSanitizer by CI (`--filter Stress`).
@Suite(.leakChecked)
struct NotificationCenterStressTests {
  private let rounds = 200
  private let senders = 4
  private let perSender = 100

  @Test func postsRacingACancelNeverOverlapAndStopAtTheCancel() {
    for _ in 0..<rounds {
      let center = NotificationCenter()
      // Records each notification's name: `Notification` is not `Sendable` everywhere, and the
      // subscriber is shared with the posting threads.
      let subscriber = TestSubscriber<Notification.Name, Never>()
      let cancelled = Atomic<Bool>(false)
      let afterCancel = Atomic<Int>(0)
      subscriber.onValue { _ in
        if cancelled.load(ordering: .acquiring) { afterCancel.add(1, ordering: .relaxed) }
      }
      center.publisher(for: pulse).map(\.name).subscribe(subscriber)
      DispatchQueue.concurrentPerform(iterations: senders + 1) { sender in
        if sender == senders {
          for _ in 0..<perSender / 2 { center.post(name: pulse, object: nil) }
          subscriber.cancel()
          cancelled.store(true, ordering: .releasing)
        } else {
          for _ in 0..<perSender { center.post(name: pulse, object: nil) }
        }
      }
      let seenAfterCancel = afterCancel.load(ordering: .relaxed)
      // One thread delivers at a time: the delivery in hand when the cancel came may finish, and
      // none starts after it.
      #expect(seenAfterCancel <= 1)
      let count = subscriber.values.count
      center.post(name: pulse, object: nil)
      #expect(subscriber.values.count == count)
      #expect(subscriber.violations.isEmpty)
    }
  }

  @Test func postsRacingRequestsNeverExceedTheDemandGranted() {
    for _ in 0..<rounds {
      let center = NotificationCenter()
      let subscriber = TestSubscriber<Notification.Name, Never>(initialDemand: .none)
      center.publisher(for: pulse).map(\.name).subscribe(subscriber)
      let requests = 40
      DispatchQueue.concurrentPerform(iterations: senders + 1) { sender in
        if sender == senders {
          for _ in 0..<requests { subscriber.request(.max(1)) }
        } else {
          for _ in 0..<perSender { center.post(name: pulse, object: nil) }
        }
      }
      #expect(subscriber.values.count <= requests)
      #expect(subscriber.violations.isEmpty)
      subscriber.cancel()
    }
  }

  // The subscriptions come and go on the test's own thread, so that the leak check counts
  // them; a fixed number of posts comes from other threads meanwhile. (Posts without end would
  // keep the thread that owns delivery delivering them without end: posts from other threads
  // are handed to it, not waited for.)
  @Test func subscriptionsComingAndGoingWhilePostsFlowLeaveNoObserver() throws {
    let center = NotificationCenter()
    let posting = DispatchGroup()
    for _ in 0..<senders {
      DispatchQueue.global().async(group: posting) {
        for _ in 0..<perSender * 10 { center.post(name: pulse, object: nil) }
      }
    }
    let received = Atomic<Int>(0)
    try withLeakCheck { _ in
      for _ in 0..<rounds {
        let token = center.publisher(for: pulse).sink { _ in received.add(1, ordering: .relaxed) }
        center.post(name: pulse, object: nil)
        token.cancel()
      }
    }
    posting.wait()
    let count = received.load(ordering: .relaxed)
    #expect(count >= rounds)
  }
}

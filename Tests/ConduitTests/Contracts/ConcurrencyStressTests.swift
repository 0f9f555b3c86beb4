import Conduit
import ConduitTesting
import Dispatch
import Foundation
import Synchronization
import Testing

/// DESIGN.md §2.3–2.5 under load: many threads sending, cancelling, requesting and subscribing
/// at once. CI runs this suite under ThreadSanitizer (`swift test --sanitize=thread --filter Stress`).
@Suite(.leakChecked, .serialized)
struct SubjectStressTests {
  private static let senders = 8
  private static let valuesPerSender = 10_000

  @Test func passthroughDeliversEveryValueFromEightSendersInOrder() {
    let subject = PassthroughSubject<Int, Never>()
    let subscribers = [StressSubscriber(), StressSubscriber()]
    for subscriber in subscribers { subject.subscribe(subscriber) }

    runOnThreads(Self.senders) { sender in
      for index in 0..<Self.valuesPerSender { subject.send(tag(sender, index)) }
    }
    subject.send(completion: .finished)

    for subscriber in subscribers {
      #expect(subscriber.values.count == Self.senders * Self.valuesPerSender)
      let inOrder = eachSenderInOrder(subscriber.values, consecutive: true)
      #expect(inOrder)
      #expect(subscriber.completed)
      #expect(subscriber.overlaps == 0)
    }
  }

  @Test func currentValueDeliversEveryValueFromEightSendersInOrder() {
    let subject = CurrentValueSubject<Int, Never>(-1)
    let subscribers = [StressSubscriber(), StressSubscriber()]
    for subscriber in subscribers { subject.subscribe(subscriber) }

    runOnThreads(Self.senders) { sender in
      for index in 0..<Self.valuesPerSender { subject.send(tag(sender, index)) }
    }
    subject.send(completion: .finished)

    for subscriber in subscribers {
      #expect(subscriber.values.first == -1)
      #expect(subscriber.values.count == Self.senders * Self.valuesPerSender + 1)
      let inOrder = eachSenderInOrder(Array(subscriber.values.dropFirst()), consecutive: true)
      #expect(inOrder)
      #expect(subscriber.completed)
      #expect(subscriber.overlaps == 0)
    }
    #expect(subject.value >= 0)
  }

  @Test func deliveriesFromEightSendersNeverOverlapForATestSubscriber() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.subscribe(subscriber)

    runOnThreads(Self.senders) { sender in
      for index in 0..<2_000 { subject.send(tag(sender, index)) }
    }
    subject.send(completion: .finished)

    #expect(subscriber.values.count == Self.senders * 2_000)
    let inOrder = eachSenderInOrder(subscriber.values, consecutive: true)
    #expect(inOrder)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelWhileSending() {
    let subject = PassthroughSubject<Int, Never>()
    let witness = StressSubscriber()
    subject.subscribe(witness)
    let cancelled = (0..<8).map { StressSubscriber(forbidden: marker($0)) }
    for subscriber in cancelled { subject.subscribe(subscriber) }
    let sendersDone = Atomic<Int>(0)
    let cancellers = 2
    let sending = 6

    runOnThreads(sending + cancellers) { thread in
      if thread < sending {
        for index in 0..<Self.valuesPerSender { subject.send(tag(thread, index)) }
        sendersDone.wrappingAdd(1, ordering: .releasing)
        return
      }
      // Each canceller cancels every other subscriber, at staggered points of the flood, then
      // sends that subscriber's marker, which it must never see.
      for (position, subscriber) in cancelled.enumerated() where position % cancellers == thread - sending {
        let threshold = (position + 1) * 4_000
        while subscriber.count < threshold && sendersDone.load(ordering: .acquiring) < sending {}
        subscriber.cancelAndRecord()
        subject.send(marker(position))
      }
    }
    subject.send(completion: .finished)

    #expect(witness.values.count == sending * Self.valuesPerSender + cancelled.count)
    #expect(witness.overlaps == 0)
    for subscriber in cancelled {
      // One value may have been on its way in when cancel returned; nothing after that.
      #expect(subscriber.count <= subscriber.countWhenCancelReturned + 1)
      #expect(!subscriber.sawForbidden)
      #expect(!subscriber.completed)
      #expect(subscriber.overlaps == 0)
      let inOrder = eachSenderInOrder(subscriber.values, consecutive: true)
      #expect(inOrder)
    }
  }

  @Test func concurrentCancelsOfOneSubscriptionAreIdempotent() {
    let subject = PassthroughSubject<Int, Never>()
    let subscribers = (0..<200).map { _ in StressSubscriber(forbidden: marker(0)) }
    for subscriber in subscribers { subject.subscribe(subscriber) }

    runOnThreads(4) { thread in
      if thread == 0 {
        for index in 0..<Self.valuesPerSender { subject.send(index) }
      } else {
        for subscriber in subscribers { subscriber.cancelAndRecord() }
      }
    }
    subject.send(marker(0))

    for subscriber in subscribers {
      #expect(!subscriber.sawForbidden)
      #expect(subscriber.overlaps == 0)
    }
  }

  @Test func requestAndSendWithBoundedDemand() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    subject.subscribe(subscriber)
    let sending = 4
    let requesters = 4
    let requestsPerRequester = 2_500
    let granted = requesters * requestsPerRequester

    runOnThreads(sending + requesters) { thread in
      if thread < sending {
        for index in 0..<Self.valuesPerSender { subject.send(tag(thread, index)) }
      } else {
        for _ in 0..<requestsPerRequester { subscriber.request(.max(1)) }
      }
    }

    let received = subscriber.values.count
    #expect(received <= granted)
    #expect(subscriber.violations.isEmpty)
    let inOrder = eachSenderInOrder(subscriber.values, consecutive: false)
    #expect(inOrder)
    // No demand was lost: what was granted and not used yet is still there, and no more.
    for index in 0..<max(0, granted - received + 5) { subject.send(tag(sending, index)) }
    #expect(subscriber.values.count == granted)
    #expect(subscriber.violations.isEmpty)
    subject.send(completion: .finished)
  }

  @Test func currentValueRequestAndSendWithBoundedDemand() {
    let subject = CurrentValueSubject<Int, Never>(-1)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    subject.subscribe(subscriber)
    let sending = 4
    let requesters = 4
    let requestsPerRequester = 2_500
    let granted = requesters * requestsPerRequester

    runOnThreads(sending + requesters) { thread in
      if thread < sending {
        for index in 0..<Self.valuesPerSender { subject.send(tag(thread, index)) }
      } else {
        for _ in 0..<requestsPerRequester { subscriber.request(.max(1)) }
      }
    }

    let received = subscriber.values.count
    #expect(received <= granted)
    #expect(subscriber.violations.isEmpty)
    for index in 0..<max(0, granted - received + 5) { subject.send(tag(sending, index)) }
    #expect(subscriber.values.count == granted)
    #expect(subscriber.violations.isEmpty)
    subject.send(completion: .finished)
  }

  @Test func subscribeAndCancelWhileSending() {
    let subject = PassthroughSubject<Int, Never>()
    let witness = StressSubscriber()
    subject.subscribe(witness)
    let sending = 4
    let churners = 4
    let churnRounds = 300
    let sendersDone = Atomic<Int>(0)
    let churned = Locked<[StressSubscriber]>([])

    runOnThreads(sending + churners) { thread in
      if thread < sending {
        for index in 0..<Self.valuesPerSender / 2 { subject.send(tag(thread, index)) }
        sendersDone.wrappingAdd(1, ordering: .releasing)
        return
      }
      var subscribers: [StressSubscriber] = []
      var round = 0
      while round < churnRounds || (sendersDone.load(ordering: .acquiring) < sending && round < churnRounds * 20) {
        let subscriber = StressSubscriber(demand: round.isMultiple(of: 3) ? .max(50) : .unlimited)
        subject.subscribe(subscriber)
        // Let a few values through before cancelling, unless the senders are done.
        var spins = 0
        while subscriber.count < 20 && spins < 2_000 && sendersDone.load(ordering: .acquiring) < sending {
          spins += 1
        }
        subscriber.cancelAndRecord()
        subscribers.append(subscriber)
        round += 1
      }
      churned.withLock { $0.append(contentsOf: subscribers) }
    }
    subject.send(completion: .finished)

    #expect(witness.values.count == sending * Self.valuesPerSender / 2)
    let inOrder = eachSenderInOrder(witness.values, consecutive: true)
    #expect(inOrder)
    #expect(witness.overlaps == 0)
    let subscribers = churned.withLock { $0 }
    #expect(subscribers.count >= churners * churnRounds)
    let neverOverlappedOrCompleted = subscribers.allSatisfy { $0.overlaps == 0 && !$0.completed }
    let nothingAfterCancel = subscribers.allSatisfy { $0.count <= $0.countWhenCancelReturned + 1 }
    let allInOrder = subscribers.allSatisfy { eachSenderInOrder($0.values, consecutive: true) }
    #expect(neverOverlappedOrCompleted)
    #expect(nothingAfterCancel)
    #expect(allInOrder)
  }

  /// A thread that becomes the owner of delivery by subscribing, at a moment when nobody else
  /// delivered, must not be kept delivering another thread's stream: the sender takes over.
  @Test func aThreadThatSubscribesIsNotKeptDeliveringAnotherThreadsStream() {
    let subject = PassthroughSubject<Int, Never>()
    // Slower than a send, as most subscribers are, so that a sender that only queued would
    // outpace the thread delivering for it.
    let slow = StressSubscriber(workPerValue: 200)
    subject.subscribe(slow)
    let cap = 2_000_000
    let subscriberDone = Atomic<Bool>(false)
    let sentInAll = Atomic<Int>(0)

    runOnThreads(2) { thread in
      if thread == 0 {
        var sent = 0
        while sent < cap && !subscriberDone.load(ordering: .acquiring) {
          subject.send(sent)
          sent += 1
        }
        sentInAll.store(sent, ordering: .releasing)
      } else {
        for _ in 0..<200 {
          let subscriber = StressSubscriber()
          subject.subscribe(subscriber)
          subscriber.cancelAndRecord()
        }
        subscriberDone.store(true, ordering: .releasing)
      }
    }
    // Without a hand-over the subscribing thread would get out only once the sender had
    // stopped at the cap.
    let sent = sentInAll.load(ordering: .acquiring)
    #expect(sent < cap)
    #expect(slow.values.count == sent)
    #expect(slow.overlaps == 0)
    #expect(slow.values == Array(0..<slow.values.count))
    subject.send(completion: .finished)
  }
}

// MARK: - Helpers

/// A value that names its sender and its position in that sender's run.
private func tag(_ sender: Int, _ index: Int) -> Int { stamp(sender, index, stride: tagStride) }

private let tagStride = 1_000_000

/// Whether each sender's values arrive in the order sent; a subscriber may join while they send.
private func eachSenderInOrder(_ values: [Int], consecutive: Bool) -> Bool {
  everySenderInOrder(values, consecutive: consecutive, stride: tagStride, fromTheFirst: false)
}

/// Sent by a canceller right after cancelling subscriber `position`, which must never see it.
private func marker(_ position: Int) -> Int { -1_000 - position }

/// Runs `body` on `count` threads started together, and returns when all have finished.
/// Objects the threads create are attributed to the caller's leak check.
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
  let scope = CensusScope.current
  let gate = DispatchSemaphore(value: 0)
  let group = DispatchGroup()
  for index in 0..<count {
    group.enter()
    let thread = Thread {
      gate.wait()
      CensusScope.$current.withValue(scope) { body(index) }
      group.leave()
    }
    thread.stackSize = 1 << 20
    thread.start()
  }
  for _ in 0..<count { gate.signal() }
  group.wait()
}

import ConduitTesting
import Dispatch
import Synchronization
import Testing

@testable import Conduit

/// A subject's backlog is bounded: senders that are not delivering wait while more values than
/// the bound are queued, as Combine's senders wait on a subject's lock. CI runs this suite under
/// ThreadSanitizer with the other stress tests.
@Suite(.leakChecked, .serialized)
struct SubjectBacklogStressTests {
  private static let senders = 4
  private static let valuesPerSender = 10_000
  private static let bound = BacklogBound.limit

  @Test func fourSendersToASlowSubscriberKeepTheBacklogWithinTheBoundAndLoseNothing() {
    let subject = PassthroughSubject<Int, Never>()
    // Much slower than a send, so that without the bound the queue would grow to most of what
    // the senders send.
    let slow = StressSubscriber(workPerValue: 400)
    subject.subscribe(slow)
    // Sends started, counted before each send: started minus received is what is queued, plus
    // at most one value in each sender's hands and one in the subscriber's.
    let started = Atomic<Int>(0)
    let largestBacklog = Atomic<Int>(0)

    runOnThreads(Self.senders) { sender in
      for index in 0..<Self.valuesPerSender {
        started.wrappingAdd(1, ordering: .sequentiallyConsistent)
        subject.send(stamp(sender, index, stride: Self.valuesPerSender))
        raise(largestBacklog, to: started.load(ordering: .sequentiallyConsistent) - slow.count)
      }
    }
    subject.send(completion: .finished)

    #expect(largestBacklog.load(ordering: .relaxed) <= Self.bound + Self.senders + 1)
    #expect(slow.values.count == Self.senders * Self.valuesPerSender)
    #expect(everySenderInOrder(slow.values, consecutive: true, stride: Self.valuesPerSender))
    #expect(slow.overlaps == 0)
    #expect(slow.completed)
  }

  /// A subscriber that sends into its own subject from inside `receive(_:)` queues those values
  /// for the delivery it is inside of: its sends must not wait for room, or each send beyond the
  /// bound would wait out the patience for an owner that is waiting on it.
  @Test func reentrantSendsBeyondTheBoundDoNotWaitForTheirOwnDelivery() {
    let subject = PassthroughSubject<Int, Never>()
    let extra = 3 * Self.bound
    var received: [Int] = []
    let started = ContinuousClock.now
    let cancellable = subject.sink { value in
      received.append(value)
      if value == 0 {
        for next in 1...extra { subject.send(next) }
      }
    }
    subject.send(0)
    let elapsed = ContinuousClock.now - started

    #expect(received == Array(0...extra))
    // Each stalled send would wait out the patience (a second): 2,048 of them, 34 minutes.
    // Under ThreadSanitizer the sends take about 7 s.
    #expect(elapsed < .seconds(60))
    cancellable.cancel()
  }

  /// A `share(replay:)` subscriber with demand that is slower than the senders keeps its queue
  /// within the bound: here a thread that asked for more owns its delivery while four others send,
  /// so every value they send waits in that subscriber's queue, and without the bound the queue
  /// would grow to most of what they send.
  @Test func aSlowShareReplaySubscriberWithDemandKeepsItsQueueWithinTheBound() {
    let subject = PassthroughSubject<Int, Never>()
    let shared = subject.share(replay: 1)
    let slow = SlowSubscriber(workPerValue: 400)
    shared.subscribe(slow)
    subject.send(-2)  // takes the first demand
    subject.send(-1)  // waits for more
    let asked = DispatchGroup()
    let scope = CensusScope.current
    DispatchQueue.global().async(group: asked) {
      // Delivers -1, then whatever the senders leave, for as long as they outpace it.
      CensusScope.$current.withValue(scope) { slow.request(.unlimited) }
    }
    slow.reachedFirstWaitingValue.wait()
    let started = Atomic<Int>(2)
    let largestBacklog = Atomic<Int>(0)
    // The subscriber holds on to delivery until the senders have queued some values behind it,
    // fewer than the bound: so the thread that lets it go on is not waiting for room, nor is it
    // a sender that owns the subject's delivery and waits for room at the subscriber, which
    // would wait on the subscriber as the subscriber waits on it.
    let releaseAt = 2 + 100 * Self.senders

    runOnThreads(Self.senders) { sender in
      for index in 0..<Self.valuesPerSender {
        if started.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue == releaseAt {
          slow.releaseFirstWaitingValue.signal()
        }
        subject.send(stamp(sender, index, stride: Self.valuesPerSender))
        raise(largestBacklog, to: started.load(ordering: .sequentiallyConsistent) - slow.count)
      }
    }
    asked.wait()
    subject.send(completion: .finished)

    // The subscriber's queue and the subject's (whose owner moves values into it) are each
    // bounded; the replay keeps one value more, and each sender and the subscriber hold one.
    #expect(largestBacklog.load(ordering: .relaxed) <= 2 * Self.bound + 1 + Self.senders + 1)
    #expect(slow.values.count == 2 + Self.senders * Self.valuesPerSender)
    #expect(slow.values.prefix(2) == [-2, -1])
    #expect(everySenderInOrder(slow.values, consecutive: true, stride: Self.valuesPerSender))
    #expect(slow.overlaps == 0)
    #expect(slow.completed)
  }
}

/// Raises `largest` to `value` when `value` is larger.
private func raise(_ largest: borrowing Atomic<Int>, to value: Int) {
  var current = largest.load(ordering: .relaxed)
  while value > current {
    let (exchanged, found) = largest.compareExchange(expected: current, desired: value, ordering: .relaxed)
    if exchanged { return }
    current = found
  }
}

/// A subscriber that asks for one value, then for what the test asks, and does some work per
/// value; when the value -1 reaches it, it signals, and waits to be let go on.
private final class SlowSubscriber: Subscriber, @unchecked Sendable {
  let reachedFirstWaitingValue = DispatchSemaphore(value: 0)
  let releaseFirstWaitingValue = DispatchSemaphore(value: 0)
  private let workPerValue: Int
  private let work = Atomic<Int>(0)
  private let received = Atomic<Int>(0)
  private let inFlight = Atomic<Int>(0)
  private let overlapCount = Atomic<Int>(0)
  private let completion = Atomic<Bool>(false)
  private let subscription = Locked<(any Subscription)?>(nil)
  // Written by whichever thread delivers (deliveries are serialized); read once they are over.
  private(set) var values: [Int] = []

  init(workPerValue: Int) {
    self.workPerValue = workPerValue
  }

  var count: Int { received.load(ordering: .acquiring) }
  var overlaps: Int { overlapCount.load(ordering: .relaxed) }
  var completed: Bool { completion.load(ordering: .relaxed) }

  func request(_ demand: Subscribers.Demand) {
    subscription.withLock { $0 }?.request(demand)
  }

  func receive(subscription: any Subscription) {
    self.subscription.withLock { $0 = subscription }
    subscription.request(.max(1))
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    if inFlight.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue != 1 {
      overlapCount.wrappingAdd(1, ordering: .relaxed)
    }
    if input == -1 {
      reachedFirstWaitingValue.signal()
      releaseFirstWaitingValue.wait()
    }
    for step in 0..<workPerValue { work.wrappingAdd(step & 1, ordering: .relaxed) }
    values.append(input)
    received.wrappingAdd(1, ordering: .acquiringAndReleasing)
    inFlight.wrappingSubtract(1, ordering: .acquiringAndReleasing)
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    self.completion.store(true, ordering: .relaxed)
  }
}

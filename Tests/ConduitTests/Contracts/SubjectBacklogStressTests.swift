import ConduitTesting
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
  private static let bound = Serializer<Int>.backlogBound

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
        let backlog = started.load(ordering: .sequentiallyConsistent) - slow.count
        var largest = largestBacklog.load(ordering: .relaxed)
        while backlog > largest {
          let (exchanged, found) = largestBacklog.compareExchange(
            expected: largest, desired: backlog, ordering: .relaxed)
          if exchanged { break }
          largest = found
        }
      }
    }
    subject.send(completion: .finished)

    #expect(largestBacklog.load(ordering: .relaxed) <= Self.bound + Self.senders + 1)
    #expect(slow.values.count == Self.senders * Self.valuesPerSender)
    #expect(everySenderInOrder(slow.values, consecutive: true, stride: Self.valuesPerSender))
    #expect(slow.overlaps == 0)
    #expect(slow.completed)
  }
}

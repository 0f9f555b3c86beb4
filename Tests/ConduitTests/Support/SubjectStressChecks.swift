import Conduit
import Synchronization
import Testing

/// Subscribes a `StressSubscriber` through `subscribe` to a subject that two threads send to
/// while two others cancel once values flow, many times over; checks that nothing arrives after
/// the cancel but the value already on its way, that calls never overlap, and that no completion
/// follows the cancel.
func expectCancelRacingValuesStopsDelivery(
  _ subscribe: (PassthroughSubject<Int, Never>, StressSubscriber) -> Void
) {
  for _ in 0..<200 {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = StressSubscriber()
    subscribe(subject, subscriber)
    let sendersDone = Atomic<Int>(0)
    runOnThreads(4) { thread in
      if thread < 2 {
        for index in 0..<500 { subject.send(index) }
        sendersDone.wrappingAdd(1, ordering: .releasing)
        return
      }
      while subscriber.count < 100 && sendersDone.load(ordering: .acquiring) < 2 {}
      subscriber.cancelAndRecord()
    }
    subject.send(completion: .finished)
    #expect(subscriber.count <= subscriber.countWhenCancelReturned + 1)
    #expect(subscriber.overlaps == 0)
    #expect(!subscriber.completed)
  }
}

/// Subscribes, through `subscribe`, a `StressSubscriber` that asks for one value at a time from
/// inside `receive` and cancels from there at the 150th, to a subject two threads send to; checks
/// that delivery stops at the cancel and calls never overlap.
func expectRequestAndCancelFromInsideReceiveStopsAtTheCancel(
  _ subscribe: (PassthroughSubject<Int, Never>, StressSubscriber) -> Void
) {
  for _ in 0..<200 {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = StressSubscriber(demand: .max(1), cancelAt: 150)
    subscribe(subject, subscriber)
    runOnThreads(2) { _ in
      for index in 0..<1_000 { subject.send(index) }
    }
    // Subjects drop what comes without demand: a slow run may not reach the count that cancels.
    subscriber.cancelAndRecord()
    #expect(subscriber.count <= 150)
    #expect(subscriber.overlaps == 0)
    #expect(!subscriber.completed)
  }
}

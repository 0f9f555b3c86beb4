import ConduitTesting
import Testing

@testable import Conduit

private typealias Machine = ReplayConduitStateMachine<TestSubscriber<Int, Never>>

/// The decisions of one `share(replay:)` subscriber, without threads or publishers.
@Suite(.leakChecked)
struct ReplayConduitStateMachineTests {
  @Test func valuesBeforeTheReplayIsSetUpAreNeverDropped() {
    let subject = ReplaySubject<Int, Never>(bufferSize: 2)
    let downstream = TestSubscriber<Int, Never>()
    var machine = Machine(parent: subject, downstream: downstream)
    for value in 1...4 {
      let arrival = machine.enqueue(value, capacity: 2)
      #expect(describe(arrival) == "wait, dropped [], beyond \(value - 2)")
    }
    #expect(machine.queue == [1, 2, 3, 4])
    guard case .subscribe(let receiver, nil) = machine.start(replaying: [0], then: nil) else {
      Issue.record("the subscriber gets its subscription, and the subject stays")
      return
    }
    #expect(receiver.downstream === downstream)
    #expect(machine.queue == [0, 1, 2, 3, 4])
    #expect(machine.parent === subject)
  }

  @Test func onceTheReplayIsSetUpASubscriberWithNoDemandDropsTheOldestBeyondCapacity() {
    let subject = ReplaySubject<Int, Never>(bufferSize: 2)
    var machine = Machine(parent: subject, downstream: TestSubscriber())
    let arrival = machine.enqueue(1, capacity: 2)
    #expect(describe(arrival) == "wait, dropped [], beyond -1")
    _ = machine.start(replaying: [-1, 0], then: nil)
    // The thread that started the replay still delivers: the values wait for it.
    let arrival2 = machine.enqueue(2, capacity: 2)
    #expect(describe(arrival2) == "wait, dropped [-1, 0], beyond 0")
    let next = machine.nextDelivery(adding: .none)
    #expect(describe(next) == "stop")
    let arrival3 = machine.enqueue(3, capacity: 2)
    #expect(describe(arrival3) == "drain, dropped [1]")
    #expect(machine.queue == [2, 3])
  }

  @Test func aCompletionWaitsForTheQueueToDrainThenLetsGoOfTheReceiver() {
    let subject = ReplaySubject<Int, Never>(bufferSize: 2)
    let downstream = TestSubscriber<Int, Never>()
    var machine = Machine(parent: subject, downstream: downstream)
    _ = machine.enqueue(1, capacity: 2)
    _ = machine.start(replaying: [0], then: nil)
    let delivers = machine.request(.max(1))
    #expect(!delivers)
    let next = machine.nextDelivery(adding: .none)
    #expect(describe(next) == "value 0")
    guard case .wait(let parent) = machine.finish(.finished) else {
      Issue.record("the completion waits for the thread that delivers")
      return
    }
    #expect(parent === subject)
    #expect(machine.parent == nil)
    let again = machine.finish(.finished)
    #expect(describe(again) == "none")
    // A value still waits, with no demand for it: the completion waits too.
    let next2 = machine.nextDelivery(adding: .none)
    #expect(describe(next2) == "stop")
    #expect(machine.receiver?.downstream === downstream)
    let delivers2 = machine.request(.max(1))
    #expect(delivers2)
    let next3 = machine.nextDelivery(adding: .none)
    #expect(describe(next3) == "value 1")
    guard case .performAndStop(.completion(let receiver, .finished)) = machine.nextDelivery(adding: .none) else {
      Issue.record("the queue drained: the completion follows")
      return
    }
    #expect(receiver.downstream === downstream)
    #expect(machine.receiver == nil)
    let delivers3 = machine.request(.max(1))
    #expect(!delivers3)
    let arrival = machine.enqueue(2, capacity: 2)
    #expect(describe(arrival) == "wait, dropped [], beyond 0")
    #expect(machine.queue.isEmpty)
  }

  @Test func aCompletionBeforeTheReplayIsSetUpFollowsTheReplay() {
    let subject = ReplaySubject<Int, Never>(bufferSize: 2)
    var machine = Machine(parent: subject, downstream: TestSubscriber())
    guard case .wait(let parent) = machine.finish(.finished) else {
      Issue.record("the completion waits for the replay")
      return
    }
    #expect(parent === subject)
    guard case .subscribe(_, nil) = machine.start(replaying: [7], then: nil) else {
      Issue.record("the subscriber gets its subscription")
      return
    }
    let next = machine.nextDelivery(adding: .max(1))
    #expect(describe(next) == "value 7")
    let next2 = machine.nextDelivery(adding: .none)
    #expect(describe(next2) == "complete")
  }

  @Test func aCancelLetsGoOfEverythingOnceAndLaterEventsDoNothing() {
    let subject = ReplaySubject<Int, Never>(bufferSize: 2)
    let downstream = TestSubscriber<Int, Never>()
    var machine = Machine(parent: subject, downstream: downstream)
    _ = machine.start(replaying: [0, 1], then: nil)
    guard case .release(let parent, let receiver, let queue) = machine.cancel() else {
      Issue.record("a cancel lets go of the subject, the subscriber and the values")
      return
    }
    #expect(parent === subject)
    #expect(receiver.downstream === downstream)
    #expect(queue == [0, 1])
    #expect(machine.parent == nil && machine.receiver == nil && machine.queue.isEmpty)
    let cancelling = machine.cancel()
    #expect(describe(cancelling) == "none")
    let arrival = machine.enqueue(2, capacity: 2)
    #expect(describe(arrival) == "wait, dropped [], beyond 0")
    let delivers = machine.request(.max(1))
    #expect(!delivers)
    let finishing = machine.finish(.finished)
    #expect(describe(finishing) == "none")
    let next = machine.nextDelivery(adding: .max(1))
    #expect(describe(next) == "stop")
    #expect(machine.queue.isEmpty && machine.demand == .none)
  }

  @Test func demandPostedWhileDeliveryIsOwnedDoesNotClaim() {
    let subject = ReplaySubject<Int, Never>(bufferSize: 2)
    var machine = Machine(parent: subject, downstream: TestSubscriber())
    _ = machine.start(replaying: [], then: nil)
    // The thread that started the replay owns delivery until it finds nothing to deliver.
    let delivers = machine.request(.max(2))
    #expect(!delivers)
    #expect(machine.demand == .max(2))
    let arrival = machine.enqueue(0, capacity: 2)
    #expect(describe(arrival) == "wait, dropped [], beyond -1")
    let next = machine.nextDelivery(adding: .none)
    #expect(describe(next) == "value 0")
    let next2 = machine.nextDelivery(adding: .none)
    #expect(describe(next2) == "stop")
    // Delivery was given back: a value with demand for it goes straight down, and the thread
    // that sends it owns delivery until it finds nothing to deliver.
    let arrival2 = machine.enqueue(1, capacity: 2)
    #expect(describe(arrival2) == "deliver 1")
    let delivers2 = machine.request(.max(1))
    #expect(!delivers2)
    #expect(machine.demand == .max(1))
    let next3 = machine.nextDelivery(adding: .none)
    #expect(describe(next3) == "stop")
    let delivers3 = machine.request(.max(1))
    #expect(delivers3)
  }
}

/// A short description of an arrival, for the expectations above; releases the receiver that a
/// value going straight down comes with.
private func describe(_ arrival: Machine.Arrival) -> String {
  switch arrival {
  case .deliver(let receiver, let value):
    receiver.release()
    return "deliver \(value)"
  case .drain(let dropped):
    return "drain, dropped \(values(dropped))"
  case .nothing(let dropped, let beyondReplay):
    return "wait, dropped \(values(dropped)), beyond \(beyondReplay)"
  }
}

private func values(_ dropped: Machine.Dropped) -> [Int] {
  switch dropped {
  case .none: return []
  case .one(let value): return [value]
  case .many(let values): return values
  }
}

/// A short description of the next delivery; releases the receiver that a value comes with.
private func describe(_ next: NextDelivery<Machine.Delivery>) -> String {
  switch next {
  case .perform(.value(let receiver, let value)):
    receiver.release()
    return "value \(value)"
  case .performAndStop(.completion):
    return "complete"
  case .stop:
    return "stop"
  case .perform(.completion), .performAndStop(.value):
    return "unexpected"
  }
}

private func describe(_ action: Machine.FinishAction) -> String {
  switch action {
  case .none: return "none"
  case .wait: return "wait"
  case .drain: return "drain"
  }
}

private func describe(_ action: Machine.CancelAction) -> String {
  switch action {
  case .none: return "none"
  case .release: return "release"
  }
}

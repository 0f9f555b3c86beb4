import Testing

@testable import Conduit

/// The decisions behind `values`, driven without a publisher or threads.
@Suite(.leakChecked)
struct AsyncIterationStateMachineTests {
  typealias Machine = AsyncIterationStateMachine<Int, Oops>

  private func take(_ machine: inout Machine) -> (Machine.Take, Int?, Oops?, Bool) {
    var value: Int?
    var failure: Oops?
    var requesting: (any Subscription)?
    let take = machine.take(value: &value, failure: &failure, requesting: &requesting)
    return (take, value, failure, requesting != nil)
  }

  @Test func withoutABufferEachTakeAsksForOneElementOnce() {
    var machine = Machine(limit: .one)
    #expect(machine.receive(subscription: Subscriptions.empty) == .none)
    #expect(take(&machine) == (.request, nil, nil, true))
    #expect(take(&machine) == (.suspend, nil, nil, false))
    var dropped: Int?
    #expect(machine.receive(1, dropped: &dropped) == nil)
    #expect(take(&machine) == (.value, 1, nil, false))
    #expect(take(&machine) == (.request, nil, nil, true))
  }

  @Test func aBufferAsksForEverythingWhenSubscribed() {
    var machine = Machine(limit: .unbounded)
    #expect(machine.receive(subscription: Subscriptions.empty) == .request(.unlimited))
    #expect(take(&machine) == (.suspend, nil, nil, false))
  }

  @Test func aSecondSubscriptionOrOneAfterTheEndIsCancelled() {
    var machine = Machine(limit: .one)
    #expect(machine.receive(subscription: Subscriptions.empty) == .none)
    #expect(machine.receive(subscription: Subscriptions.empty) == .cancel)
    var released = Machine.Released()
    var cancelled = Machine(limit: .one)
    #expect(cancelled.cancel(released: &released) == true)
    #expect(cancelled.receive(subscription: Subscriptions.empty) == .cancel)
  }

  @Test func aTaskParkedBeforeTheSubscriptionIsAskedForOnArrival() async {
    var machine = Machine(limit: .one)
    #expect(take(&machine) == (.suspend, nil, nil, false))
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      #expect(machine.park(continuation) == true)
      #expect(machine.receive(subscription: Subscriptions.empty) == .request(.max(1)))
      var dropped: Int?
      let waiter = machine.receive(1, dropped: &dropped)
      #expect(waiter != nil)
      waiter?.resume()
    }
    #expect(take(&machine) == (.value, 1, nil, false))
  }

  @Test func parkingAfterSomethingArrivedReturnsFalse() async {
    var machine = Machine(limit: .unbounded)
    _ = machine.receive(subscription: Subscriptions.empty)
    var dropped: Int?
    _ = machine.receive(1, dropped: &dropped)
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      #expect(machine.park(continuation) == false)
      continuation.resume()
    }
    var completed = Machine(limit: .one)
    _ = completed.receive(subscription: Subscriptions.empty)
    _ = completed.receive(completion: .finished)
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      #expect(completed.park(continuation) == false)
      continuation.resume()
    }
  }

  @Test func theNewestPolicyDropsTheOldestAndTheOldestPolicyTheNewcomer() {
    var newest = Machine(limit: .newest(2))
    var oldest = Machine(limit: .oldest(2))
    _ = newest.receive(subscription: Subscriptions.empty)
    _ = oldest.receive(subscription: Subscriptions.empty)
    var droppedNewest: [Int] = []
    var droppedOldest: [Int] = []
    for value in 1...4 {
      var dropped: Int?
      _ = newest.receive(value, dropped: &dropped)
      if let dropped { droppedNewest.append(dropped) }
      dropped = nil
      _ = oldest.receive(value, dropped: &dropped)
      if let dropped { droppedOldest.append(dropped) }
    }
    #expect(droppedNewest == [1, 2])
    #expect(droppedOldest == [3, 4])
    #expect(newest.ready.elements == [3, 4])
    #expect(oldest.ready.elements == [1, 2])
  }

  @Test func aBufferWithNoRoomStillHandsAValueToAParkedTask() async {
    var machine = Machine(limit: .newest(0))
    _ = machine.receive(subscription: Subscriptions.empty)
    var dropped: Int?
    _ = machine.receive(1, dropped: &dropped)
    #expect(dropped == 1)
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      #expect(machine.park(continuation) == true)
      var dropped: Int?
      let waiter = machine.receive(2, dropped: &dropped)
      #expect(dropped == nil)
      waiter?.resume()
    }
    #expect(take(&machine) == (.value, 2, nil, false))
  }

  @Test func elementsKeptGoOutBeforeTheFailureThenTheSequenceEnds() {
    var machine = Machine(limit: .unbounded)
    _ = machine.receive(subscription: Subscriptions.empty)
    var dropped: Int?
    _ = machine.receive(1, dropped: &dropped)
    #expect(machine.receive(completion: .failure(Oops())) == nil)
    _ = machine.receive(2, dropped: &dropped)
    #expect(dropped == 2)
    #expect(take(&machine) == (.value, 1, nil, false))
    #expect(take(&machine) == (.failure, nil, Oops(), false))
    #expect(take(&machine) == (.end, nil, nil, false))
  }

  @Test func aCancelReleasesWhatTheIterationHeldAndEndsIt() async {
    var machine = Machine(limit: .unbounded)
    _ = machine.receive(subscription: Subscriptions.empty)
    var dropped: Int?
    _ = machine.receive(1, dropped: &dropped)
    var released = Machine.Released()
    #expect(machine.cancel(released: &released) == true)
    #expect(released.upstream != nil)
    #expect(released.ready.elements == [1])
    #expect(take(&machine) == (.end, nil, nil, false))
    var again = Machine.Released()
    #expect(machine.cancel(released: &again) == false)
    _ = machine.receive(2, dropped: &dropped)
    #expect(dropped == 2)
  }
}

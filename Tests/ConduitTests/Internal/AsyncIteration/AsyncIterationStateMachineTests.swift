import Testing

@testable import Conduit

/// The decisions behind `values`, driven without a publisher or threads.
@Suite(.leakChecked)
struct AsyncIterationStateMachineTests {
  typealias Machine = AsyncIterationStateMachine<Int, Oops>
  typealias Waiters = ValueQueue<UnsafeContinuation<Bool, Never>>

  /// One `take`, for a call that has (`asked`) or has not yet asked for its element.
  private func take(_ machine: inout Machine, asked: inout Bool) -> (Machine.Take, Int?, Oops?, Bool) {
    var value: Int?
    var failure: Oops?
    var requesting: (any Subscription)?
    let take = machine.take(asked: &asked, value: &value, failure: &failure, requesting: &requesting)
    return (take, value, failure, requesting != nil)
  }

  private func take(_ machine: inout Machine) -> (Machine.Take, Int?, Oops?, Bool) {
    var asked = false
    return take(&machine, asked: &asked)
  }

  private func send(_ value: Int, to machine: inout Machine) -> (woken: Bool, dropped: Int?) {
    var dropped: Int?
    var ending = Waiters()
    let woken = machine.receive(value, dropped: &dropped, ending: &ending)
    woken?.resume(returning: true)
    return (woken != nil, dropped)
  }

  @Test func withoutABufferEachCallAsksForOneElementAndTakesOnlyOnceItHas() {
    var machine = Machine(limit: .one)
    #expect(machine.receive(subscription: Subscriptions.empty) == .none)
    var asked = false
    #expect(take(&machine, asked: &asked) == (.request, nil, nil, true))
    #expect(asked)
    #expect(take(&machine, asked: &asked) == (.suspend, nil, nil, false))
    #expect(send(1, to: &machine) == (false, nil))
    // A call that has not asked yet asks for its own element rather than take another's.
    #expect(take(&machine) == (.request, nil, nil, true))
    #expect(take(&machine, asked: &asked) == (.value, 1, nil, false))
    #expect(machine.outstanding == 1)
  }

  @Test func requestsMadeBeforeTheSubscriptionGoOutWithIt() {
    var machine = Machine(limit: .one)
    #expect(take(&machine) == (.suspend, nil, nil, false))
    #expect(take(&machine) == (.suspend, nil, nil, false))
    #expect(machine.receive(subscription: Subscriptions.empty) == .request(.max(2)))
    #expect(machine.outstanding == 2)
  }

  @Test func aBufferAsksForEverythingWhenSubscribed() {
    var machine = Machine(limit: .unbounded)
    #expect(machine.receive(subscription: Subscriptions.empty) == .request(.unlimited))
    #expect(take(&machine) == (.suspend, nil, nil, false))
    #expect(send(1, to: &machine) == (false, nil))
    #expect(take(&machine) == (.value, 1, nil, false))
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

  @Test func anElementWakesTheFirstParkedCallToTakeAgain() async {
    var machine = Machine(limit: .one)
    _ = machine.receive(subscription: Subscriptions.empty)
    var asked = false
    #expect(take(&machine, asked: &asked) == (.request, nil, nil, true))
    let takesAgain = await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
      #expect(machine.park(continuation) == true)
      #expect(send(1, to: &machine) == (true, nil))
    }
    #expect(takesAgain)
    #expect(take(&machine, asked: &asked) == (.value, 1, nil, false))
  }

  @Test func anElementBeforeTheSubscriptionWakesEveryParkedCallToEnd() async {
    var machine = Machine(limit: .one)
    #expect(take(&machine) == (.suspend, nil, nil, false))
    let takesAgain = await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
      #expect(machine.park(continuation) == true)
      var dropped: Int?
      var ending = Waiters()
      #expect(machine.receive(1, dropped: &dropped, ending: &ending) == nil)
      #expect(dropped == 1)
      AsyncIterationInner<Int, Oops>.end(&ending)
    }
    #expect(!takesAgain)
    #expect(machine.receive(subscription: Subscriptions.empty) == .request(.max(1)))
  }

  @Test func theCompletionWakesTheFirstParkedCallToTakeIt() async {
    var machine = Machine(limit: .one)
    _ = machine.receive(subscription: Subscriptions.empty)
    var asked = false
    _ = take(&machine, asked: &asked)
    let takesAgain = await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
      #expect(machine.park(continuation) == true)
      var ending = Waiters()
      let first = machine.receive(completion: .failure(Oops()), ending: &ending)
      #expect(ending.isEmpty)
      first?.resume(returning: true)
    }
    #expect(takesAgain)
    #expect(take(&machine, asked: &asked) == (.failure, nil, Oops(), false))
    #expect(take(&machine, asked: &asked) == (.end, nil, nil, false))
  }

  @Test func parkingAfterSomethingArrivedReturnsFalse() async {
    var machine = Machine(limit: .unbounded)
    _ = machine.receive(subscription: Subscriptions.empty)
    _ = send(1, to: &machine)
    _ = await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
      #expect(machine.park(continuation) == false)
      continuation.resume(returning: true)
    }
    var completed = Machine(limit: .one)
    _ = completed.receive(subscription: Subscriptions.empty)
    var ending = Waiters()
    _ = completed.receive(completion: .finished, ending: &ending)
    _ = await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
      #expect(completed.park(continuation) == false)
      continuation.resume(returning: true)
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
      if let dropped = send(value, to: &newest).dropped { droppedNewest.append(dropped) }
      if let dropped = send(value, to: &oldest).dropped { droppedOldest.append(dropped) }
    }
    #expect(droppedNewest == [1, 2])
    #expect(droppedOldest == [3, 4])
    #expect(newest.ready.elements == [3, 4])
    #expect(oldest.ready.elements == [1, 2])
  }

  @Test func aBufferWithNoRoomStillHandsAValueToAParkedCall() async {
    var machine = Machine(limit: .newest(0))
    _ = machine.receive(subscription: Subscriptions.empty)
    #expect(send(1, to: &machine) == (false, 1))
    _ = await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
      #expect(machine.park(continuation) == true)
      #expect(send(2, to: &machine) == (true, nil))
    }
    #expect(take(&machine) == (.value, 2, nil, false))
  }

  @Test func elementsKeptGoOutBeforeTheFailureThenTheSequenceEnds() {
    var machine = Machine(limit: .unbounded)
    _ = machine.receive(subscription: Subscriptions.empty)
    _ = send(1, to: &machine)
    var ending = Waiters()
    #expect(machine.receive(completion: .failure(Oops()), ending: &ending) == nil)
    #expect(send(2, to: &machine) == (false, 2))
    #expect(take(&machine) == (.value, 1, nil, false))
    #expect(take(&machine) == (.failure, nil, Oops(), false))
    #expect(take(&machine) == (.end, nil, nil, false))
  }

  @Test func aCancelReleasesWhatTheIterationHeldAndEndsIt() {
    var machine = Machine(limit: .unbounded)
    _ = machine.receive(subscription: Subscriptions.empty)
    _ = send(1, to: &machine)
    var released = Machine.Released()
    #expect(machine.cancel(released: &released) == true)
    #expect(released.upstream != nil)
    #expect(released.ready.elements == [1])
    #expect(take(&machine) == (.end, nil, nil, false))
    var again = Machine.Released()
    #expect(machine.cancel(released: &again) == false)
    #expect(send(2, to: &machine) == (false, 2))
  }
}

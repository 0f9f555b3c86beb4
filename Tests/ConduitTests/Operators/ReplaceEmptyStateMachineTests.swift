import ConduitTesting
import Testing

@testable import Conduit

/// `replaceEmpty`'s decisions, without threads or a downstream.
@Suite(.leakChecked)
struct ReplaceEmptyStateMachineTests {
  fileprivate typealias Machine = ReplaceEmptyStateMachine<TestSubscriber<Int, ReplaceEmptyMachineTestError>>

  private func subscribed(replacement: Int = 42) -> Machine {
    var machine = Machine(downstream: TestSubscriber(), replacement: replacement)
    guard case .handDown = machine.receive(subscription: SpySubscription()) else {
      Issue.record("the first subscription is handed down")
      return machine
    }
    let asked = machine.handedDown()
    #expect(asked != nil, "once handed down, upstream is asked for everything")
    return machine
  }

  @Test func aValueWithDemandAndNothingHeldGoesStraightThrough() {
    var machine = subscribed()
    requestNothingHeld(&machine)
    guard case .deliver(1, _) = machine.receive(1) else {
      Issue.record("with demand and nothing held, a value goes straight through")
      return
    }
    #expect(machine.demand == .none)
    expectIdle(&machine)
  }

  @Test func valuesBeyondTheDemandWaitAndGoOutInOrder() {
    var machine = subscribed()
    guard case .absorbed = machine.receive(1), case .absorbed = machine.receive(2) else {
      Issue.record("values without demand are held")
      return
    }
    expectDrain(machine.request(.max(5)))
    guard case .deliver(1, _) = machine.nextDelivery(adding: .none),
      case .deliver(2, _) = machine.nextDelivery(adding: .none)
    else {
      Issue.record("the held values go out in order")
      return
    }
    expectIdle(&machine)
    #expect(machine.demand == .max(3))
  }

  @Test func theCompletionWaitsBehindTheValuesHeld() {
    var machine = subscribed()
    _ = machine.receive(1)
    let failureClaims = machine.receive(completion: .failure(ReplaceEmptyMachineTestError()))
    #expect(failureClaims)
    expectIdle(&machine)  // the failure waits behind the value
    expectDrain(machine.request(.max(1)))
    guard case .deliver(1, _) = machine.nextDelivery(adding: .none),
      case .complete(.failure, replacement: nil, _) = machine.nextDelivery(adding: .none)
    else {
      Issue.record("the value, then the failure")
      return
    }
    guard case .terminal = machine.state else {
      Issue.record("the stream has ended")
      return
    }
  }

  @Test func anEmptyFinishWaitsForDemandForTheReplacement() {
    var machine = subscribed(replacement: 9)
    let finishClaims = machine.receive(completion: .finished)
    #expect(finishClaims)
    expectIdle(&machine)
    expectDrain(machine.request(.max(1)))
    guard case .complete(.finished, replacement: 9, _) = machine.nextDelivery(adding: .none) else {
      Issue.record("the replacement and the finish go out once there is demand")
      return
    }
  }

  @Test func aFinishAfterValuesBringsNoReplacement() {
    var machine = subscribed()
    requestNothingHeld(&machine)
    _ = machine.receive(1)
    expectIdle(&machine)
    let finishClaims = machine.receive(completion: .finished)
    #expect(finishClaims)
    guard case .complete(.finished, replacement: nil, _) = machine.nextDelivery(adding: .none) else {
      Issue.record("a stream that sent values finishes without the replacement")
      return
    }
  }

  @Test func aCancelEndsTheStreamAndKeepsDeliveryClaimed() {
    var machine = subscribed()
    _ = machine.receive(1)
    let released = machine.cancel()
    #expect(released?.targets != nil)
    let request = machine.request(.max(1))
    #expect(!request.drain, "nothing reaches the downstream after the cancel")
    let again = machine.cancel()
    #expect(again == nil, "a second cancel does nothing")
  }
}

private struct ReplaceEmptyMachineTestError: Error, Equatable {}

/// Asks for one value with nothing held: the request claims delivery and finds nothing to send.
private func requestNothingHeld(
  _ machine: inout ReplaceEmptyStateMachine<TestSubscriber<Int, ReplaceEmptyMachineTestError>>
) {
  expectDrain(machine.request(.max(1)))
  expectIdle(&machine)
}

private func expectIdle(
  _ machine: inout ReplaceEmptyStateMachine<TestSubscriber<Int, ReplaceEmptyMachineTestError>>,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  let next = machine.nextDelivery(adding: .none)
  #expect(next.isIdle, "nothing may go out now", sourceLocation: sourceLocation)
}

private func expectDrain(
  _ action: ReplaceEmptyStateMachine<TestSubscriber<Int, ReplaceEmptyMachineTestError>>.RequestAction,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(action.drain, "the call claims delivery", sourceLocation: sourceLocation)
}

extension ReplaceEmptyStateMachine.Delivery {
  fileprivate var isIdle: Bool {
    if case .idle = self { true } else { false }
  }
}

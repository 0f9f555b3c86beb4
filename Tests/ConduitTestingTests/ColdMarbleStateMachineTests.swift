import Conduit
import Testing

@testable import ConduitTesting

/// The decisions of a cold marble publisher's subscription, without a scheduler.
@Suite(.leakChecked)
struct ColdMarbleStateMachineTests {
  struct Boom: Error {}

  typealias Machine = ColdMarbleStateMachine<Int, Boom>

  private func machine() -> Machine {
    Machine(downstream: AnySubscriber<Int, Boom>(receiveSubscription: nil, receiveValue: nil, receiveCompletion: nil))
  }

  /// Asks `machine` for deliveries until it has none, and spells them: a value as itself, `|`
  /// and `#` for the completion.
  private func drain(_ machine: inout Machine) -> String {
    var spelled = ""
    while true {
      switch machine.nextDelivery() {
      case .value(let value, _): spelled += "\(value)"
      case .completion(.finished, _): return spelled + "|"
      case .completion(.failure, _): return spelled + "#"
      case .none: return spelled
      }
    }
  }

  @Test func valuesWaitForDemandAndTheCompletionForTheValuesBeforeIt() {
    var machine = machine()
    let deliverNow = machine.arrive([.value(1), .value(2), .completion(.failure(Boom()))])
    let withoutDemand = drain(&machine)
    let freed = machine.request(.max(1))
    let afterOneRequest = drain(&machine)
    machine.add(.max(1))
    let afterMore = drain(&machine)
    #expect(deliverNow)
    #expect(withoutDemand == "")
    #expect(freed)
    #expect(afterOneRequest == "1")
    #expect(afterMore == "2#")
    guard case .terminal = machine.state else {
      Issue.record("the completion ends the subscription")
      return
    }
    let deliverAfterTheEnd = machine.arrive([.value(3)])
    let freedAfterTheEnd = machine.request(.unlimited)
    #expect(!deliverAfterTheEnd)
    #expect(!freedAfterTheEnd)
  }

  @Test func aRequestWithNothingHeldAsksForNoDelivery() {
    var machine = machine()
    let freed = machine.request(.unlimited)
    let deliverNow = machine.arrive([.value(1), .value(2)])
    let delivered = drain(&machine)
    #expect(!freed)
    #expect(deliverNow)
    #expect(delivered == "12")
  }

  @Test func cancelReleasesTheDownstreamAndWhatIsHeld() {
    var machine = machine()
    _ = machine.arrive([.value(1)])
    guard case .running(_, let held, _) = machine.cancel() else {
      Issue.record("cancel hands out the running state to release")
      return
    }
    let delivered = drain(&machine)
    let deliverAfterCancel = machine.arrive([.value(2)])
    #expect(held.count == 1)
    #expect(delivered == "")
    #expect(!deliverAfterCancel)
  }
}

import ConduitTesting
import Testing

@testable import Conduit

/// The buffer's decisions, without threads or a downstream.
@Suite(.leakChecked)
struct BufferStateMachineTests {
  fileprivate typealias Machine = BufferStateMachine<Int, BufferTestError>

  private func subscribed(size: Int, whenFull: Publishers.BufferingStrategy<BufferTestError>) -> Machine {
    var machine = Machine(size: size, prefetch: .byRequest, whenFull: whenFull)
    #expect(machine.receive(subscription: SpySubscription()) == .unlimited)
    // The subscribing call owns the downstream until it has drained.
    guard case .idle = machine.nextStep(adding: .none) else {
      Issue.record("a fresh buffer has nothing to deliver")
      return machine
    }
    return machine
  }

  @Test func aSecondSubscriptionIsRefused() {
    var machine = subscribed(size: 1, whenFull: .dropNewest)
    #expect(machine.receive(subscription: SpySubscription()) == nil)
  }

  @Test func anElementWithDemandAndAnEmptyBufferGoesStraightThrough() {
    var machine = subscribed(size: 2, whenFull: .dropNewest)
    guard case .none = machine.request(.max(1)) else { return }
    Issue.record("the request should have claimed the downstream")
  }

  @Test func elementsWaitForDemandAndGoOutInOrder() {
    var machine = subscribed(size: 2, whenFull: .dropNewest)
    guard case .absorbed = machine.receive(1), case .absorbed = machine.receive(2), case .absorbed = machine.receive(3)
    else {
      Issue.record("elements without demand are held")
      return
    }
    guard case .drain = machine.request(.max(5)) else {
      Issue.record("a request claims the downstream")
      return
    }
    guard case .deliver(1) = machine.nextStep(adding: .none), case .deliver(2) = machine.nextStep(adding: .none),
      case .idle = machine.nextStep(adding: .none)
    else {
      Issue.record("the held elements go out in order, the third was dropped")
      return
    }
    #expect(machine.demand == .max(3))
    guard case .deliver(4) = machine.receive(4) else {
      Issue.record("with demand and an empty buffer an element goes straight through")
      return
    }
  }

  @Test func aFinishWaitsForDemandAndAnEmptyBuffer() {
    var machine = subscribed(size: 2, whenFull: .dropNewest)
    _ = machine.receive(1)
    guard case .drain = machine.receive(completion: .finished), case .idle = machine.nextStep(adding: .none) else {
      Issue.record("the finish waits")
      return
    }
    _ = machine.request(.max(1))
    guard case .deliver(1) = machine.nextStep(adding: .none), case .idle = machine.nextStep(adding: .none) else {
      Issue.record("the element goes first, and the finish waits for more demand")
      return
    }
    _ = machine.request(.max(1))
    guard case .complete(.finished, _) = machine.nextStep(adding: .none) else {
      Issue.record("the finish goes out with demand and an empty buffer")
      return
    }
    guard case .release = machine.nextStep(adding: .none) else {
      Issue.record("nothing after the end")
      return
    }
  }

  @Test func aFailureGoesOutAtOnceWithoutDemandAndDropsTheBuffer() {
    var machine = subscribed(size: 2, whenFull: .dropNewest)
    _ = machine.receive(1)
    guard case .drain = machine.receive(completion: .failure(.failed)),
      case .complete(.failure(.failed), let released) = machine.nextStep(adding: .none)
    else {
      Issue.record("a failure without demand goes out at once")
      return
    }
    #expect(released.values.elements == [1])
    #expect(machine.values.isEmpty)
  }

  @Test func anOverflowFailsAtTheNextRequest() {
    var machine = subscribed(size: 1, whenFull: .customError { .full })
    _ = machine.receive(1)
    guard case .overflow(let makeError) = machine.receive(2) else {
      Issue.record("a full buffer overflows")
      return
    }
    guard case .absorbed = machine.receive(3) else {
      Issue.record("elements are ignored while the error is made")
      return
    }
    #expect(machine.overflowed(with: makeError()) != nil)
    guard case .absorbed = machine.receive(4) else {
      Issue.record("elements are ignored once the failure waits")
      return
    }
    guard case .drain = machine.claimDelivery(refill: nil), case .idle = machine.nextStep(adding: .none) else {
      Issue.record("the failure waits for a request, even for the owner of the delivery")
      return
    }
    _ = machine.request(.max(1))
    guard case .deliver(1) = machine.nextStep(adding: .none),
      case .complete(.failure(.full), _) = machine.nextStep(adding: .none)
    else {
      Issue.record("the buffered element, then the failure")
      return
    }
  }

  @Test func aCancelBeforeTheSubscriptionIsIgnored() {
    var machine = Machine(size: 1, prefetch: .keepFull, whenFull: .dropNewest)
    #expect(machine.cancel() == nil)
    #expect(machine.receive(subscription: SpySubscription()) == .max(1))
    let cancelled = machine.cancel()
    #expect(cancelled?.ownsDelivery == false)
    #expect(cancelled?.released.upstream != nil)
    #expect(machine.cancel() == nil)
  }
}

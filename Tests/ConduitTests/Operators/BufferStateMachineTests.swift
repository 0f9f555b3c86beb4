import ConduitTesting
import Testing

@testable import Conduit

/// The buffer's decisions, without threads or a downstream.
@Suite(.leakChecked)
struct BufferStateMachineTests {
  fileprivate typealias Machine = BufferStateMachine<Int, BufferTestError>

  private func subscribed(size: Int, whenFull: Publishers.BufferingStrategy<BufferTestError>) -> Machine {
    var machine = Machine(size: size, prefetch: .byRequest, whenFull: whenFull)
    guard case .accept(initial: .unlimited) = machine.receive(subscription: SpySubscription()) else {
      Issue.record("with `.byRequest`, the upstream is asked for everything")
      return machine
    }
    // The subscribing call gives the downstream back as it hands the subscription down, and
    // owns it again once that returns, until it has drained.
    machine.handingDown()
    let owns = machine.handDownReturned()
    #expect(owns)
    guard case .idle = machine.nextDelivery(adding: .none) else {
      Issue.record("a fresh buffer has nothing to deliver")
      return machine
    }
    return machine
  }

  // As in Combine, a request from inside `receive(subscription:)` is answered at once; the
  // completion that came before the hand-down waits until it has returned (§7).
  @Test func aRequestDuringTheHandDownIsAnsweredAtOnce() {
    var machine = Machine(size: 2, prefetch: .byRequest, whenFull: .dropOldest)
    _ = machine.receive(subscription: SpySubscription())
    _ = machine.receive(1)
    _ = machine.receive(completion: .finished)
    machine.handingDown()
    guard case .drain = machine.request(.max(5)) else {
      Issue.record("a request from inside `receive(subscription:)` claims the downstream")
      return
    }
    guard case .deliver(1) = machine.nextDelivery(adding: .none), case .idle = machine.nextDelivery(adding: .none)
    else {
      Issue.record("the element goes out at once; the finish waits for the hand-down to return")
      return
    }
    let owns = machine.handDownReturned()
    #expect(owns)
    guard case .complete(.finished, _) = machine.nextDelivery(adding: .none) else {
      Issue.record("once the hand-down has returned, the finish goes out")
      return
    }
  }

  @Test func aSecondSubscriptionIsRefused() {
    var machine = subscribed(size: 1, whenFull: .dropNewest)
    guard case .cancel = machine.receive(subscription: SpySubscription()) else {
      Issue.record("a second subscription is cancelled")
      return
    }
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
    guard case .deliver(1) = machine.nextDelivery(adding: .none),
      case .deliver(2) = machine.nextDelivery(adding: .none),
      case .idle = machine.nextDelivery(adding: .none)
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
    guard case .drain = machine.receive(completion: .finished), case .idle = machine.nextDelivery(adding: .none) else {
      Issue.record("the finish waits")
      return
    }
    _ = machine.request(.max(1))
    guard case .deliver(1) = machine.nextDelivery(adding: .none), case .idle = machine.nextDelivery(adding: .none)
    else {
      Issue.record("the element goes first, and the finish waits for more demand")
      return
    }
    _ = machine.request(.max(1))
    guard case .complete(.finished, _) = machine.nextDelivery(adding: .none) else {
      Issue.record("the finish goes out with demand and an empty buffer")
      return
    }
    guard case .release = machine.nextDelivery(adding: .none) else {
      Issue.record("nothing after the end")
      return
    }
  }

  @Test func aFailureGoesOutAtOnceWithoutDemandAndDropsTheBuffer() {
    var machine = subscribed(size: 2, whenFull: .dropNewest)
    _ = machine.receive(1)
    guard case .drain = machine.receive(completion: .failure(.failed)),
      case .complete(.failure(.failed), let released) = machine.nextDelivery(adding: .none)
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
    guard case .cancelUpstream = machine.overflowed(with: makeError()) else {
      Issue.record("the upstream is cancelled once the error is made")
      return
    }
    guard case .absorbed = machine.receive(4) else {
      Issue.record("elements are ignored once the failure waits")
      return
    }
    guard case .drain = machine.claimDelivery(refill: nil), case .idle = machine.nextDelivery(adding: .none) else {
      Issue.record("the failure waits for a request, even for the owner of the delivery")
      return
    }
    _ = machine.request(.max(1))
    guard case .deliver(1) = machine.nextDelivery(adding: .none),
      case .complete(.failure(.full), _) = machine.nextDelivery(adding: .none)
    else {
      Issue.record("the buffered element, then the failure")
      return
    }
  }

  @Test func aCancelBeforeTheSubscriptionIsIgnored() {
    var machine = Machine(size: 1, prefetch: .keepFull, whenFull: .dropNewest)
    guard case .none = machine.cancel() else {
      Issue.record("a cancel before the subscription is ignored")
      return
    }
    guard case .accept(initial: .max(1)) = machine.receive(subscription: SpySubscription()) else {
      Issue.record("with `.keepFull`, the upstream is asked for as many as fit")
      return
    }
    guard case .cancel(let released) = machine.cancel(), released.upstream != nil else {
      Issue.record("the subscribing call owns the downstream, so the cancel leaves it to that call")
      return
    }
    guard case .none = machine.cancel() else {
      Issue.record("a second cancel does nothing")
      return
    }
  }

  @Test func theWaitingCompletionIsTheOverflowsOnceMadeUntilItGoesOut() {
    var machine = subscribed(size: 1, whenFull: .customError { .full })
    _ = machine.receive(1)
    guard case .overflow(let makeError) = machine.receive(2) else {
      Issue.record("a full buffer overflows")
      return
    }
    #expect(machine.completion == nil)
    guard case .none = machine.receive(completion: .finished) else {
      Issue.record("the upstream's completion while the error is made is ignored")
      return
    }
    _ = machine.overflowed(with: makeError())
    #expect(machine.completion == .failure(.full))
    guard case .drain = machine.request(.max(1)), case .deliver(1) = machine.nextDelivery(adding: .none),
      case .complete(.failure(.full), let released) = machine.nextDelivery(adding: .none)
    else {
      Issue.record("the buffered element, then the failure")
      return
    }
    #expect(released.upstream != nil)
    #expect(machine.completion == nil)
  }
}

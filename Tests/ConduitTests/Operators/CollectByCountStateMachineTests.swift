import ConduitTesting
import Testing

@testable import Conduit

/// The decisions of `collect(_:)`, without threads, publishers or a downstream.
@Suite(.leakChecked)
struct CollectByCountStateMachineTests {
  /// A machine collecting by `count` whose upstream has subscribed.
  private func collecting(count: Int = 2, upstream: SpySubscription = SpySubscription()) -> Machine {
    var machine = Machine(downstream: "downstream", count: count)
    guard case .handDown(let downstream) = machine.receiveSubscription(upstream) else {
      Issue.record("the first subscription is handed down")
      return machine
    }
    #expect(downstream == "downstream")
    return machine
  }

  @Test func aValueBeforeTheSubscriptionIsIgnoredAndASecondSubscriptionCancelled() {
    var machine = Machine(downstream: "downstream", count: 1)
    #expect(describe(machine.receive(1)) == "none")
    let upstream = SpySubscription()
    _ = machine.receiveSubscription(upstream)
    let second = SpySubscription()
    guard case .cancel(let cancelled) = machine.receiveSubscription(second) else {
      Issue.record("a second subscription is cancelled")
      return
    }
    #expect(same(cancelled, second))
    #expect(same(machine.request(), upstream))
  }

  @Test func aFullBufferGoesOutAndTheNextOneStartsEmpty() {
    var machine = collecting(count: 3)
    #expect(describe(machine.receive(1)) == "none")
    #expect(describe(machine.receive(2)) == "none")
    #expect(describe(machine.receive(3)) == "publish [1, 2, 3]")
    #expect(describe(machine.receive(4)) == "none")
    guard case .collecting(_, _, let buffer) = machine.state else {
      Issue.record("still collecting")
      return
    }
    #expect(buffer == [4])
  }

  @Test func aFinishSendsTheRemainderThenTheFinish() {
    var machine = collecting()
    _ = machine.receive(1)
    #expect(describe(machine.receive(completion: Subscribers.Completion<Oops>.finished)) == "publish remainder [1]")
    #expect(machine.request() == nil)
    #expect(machine.remainderPublished() == "downstream")
    #expect(machine.remainderPublished() == nil)
    #expect(describe(machine.receive(completion: Subscribers.Completion<Oops>.finished)) == "none")
  }

  @Test func aFailureDropsTheRemainder() {
    var machine = collecting()
    _ = machine.receive(1)
    #expect(describe(machine.receive(completion: Subscribers.Completion<Oops>.failure(Oops()))) == "complete")
    #expect(describe(machine.receive(2)) == "none")
  }

  @Test func aCompletionBeforeTheSubscriptionPassesOn() {
    var machine = Machine(downstream: "downstream", count: 2)
    #expect(describe(machine.receive(completion: Subscribers.Completion<Oops>.finished)) == "complete")
  }

  @Test func aCancelBeforeTheSubscriptionChangesNothing() {
    var machine = Machine(downstream: "downstream", count: 2)
    #expect(describe(machine.cancel()) == "none")
    let upstream = SpySubscription()
    guard case .handDown = machine.receiveSubscription(upstream) else {
      Issue.record("the subscription arriving after the cancel is taken as the first")
      return
    }
  }

  @Test func aCancelReleasesTheUpstreamTheDownstreamAndTheBuffer() {
    let upstream = SpySubscription()
    var machine = collecting(upstream: upstream)
    _ = machine.receive(1)
    guard case .cancel(let cancelled, .collecting(_, let downstream, let buffer)) = machine.cancel() else {
      Issue.record("a cancel while collecting cancels the upstream and lets go of the rest")
      return
    }
    #expect(same(cancelled, upstream))
    #expect(downstream == "downstream")
    #expect(buffer == [1])
    #expect(describe(machine.receive(2)) == "none")
    #expect(describe(machine.cancel()) == "none")
  }

  @Test func aCancelWhileTheRemainderGoesOutStopsTheFinish() {
    var machine = collecting()
    _ = machine.receive(1)
    _ = machine.receive(completion: Subscribers.Completion<Oops>.finished)
    guard case .cancel(nil, .finishing) = machine.cancel() else {
      Issue.record("a cancel while the remainder goes out lets go of the downstream")
      return
    }
    #expect(machine.remainderPublished() == nil)
  }
}

private typealias Machine = CollectByCountStateMachine<Int, String>

private func describe(_ action: Machine.ValueAction) -> String {
  switch action {
  case .none: "none"
  case .publish(let buffer, _): "publish \(buffer)"
  }
}

private func describe(_ action: Machine.CompletionAction) -> String {
  switch action {
  case .none: "none"
  case .complete: "complete"
  case .publishRemainder(let buffer, _): "publish remainder \(buffer)"
  }
}

private func describe(_ action: Machine.CancelAction) -> String {
  switch action {
  case .none: "none"
  case .cancel: "cancel"
  }
}

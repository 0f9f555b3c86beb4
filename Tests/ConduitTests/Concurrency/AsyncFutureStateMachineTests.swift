import ConduitTesting
import Testing

@testable import Conduit

/// The decisions of an `AsyncFuture` subscription, without tasks or threads: the subscriber is a
/// `String`, the operation and the task handle are `Int`s.
@Suite(.leakChecked)
struct AsyncFutureStateMachineTests {
  fileprivate typealias Machine = AsyncFutureStateMachine<String, Int, Int, Int, Oops>

  /// A machine whose subscriber's `receive(subscription:)` returned without requesting.
  private func subscribed() -> Machine {
    var machine = Machine(downstream: "downstream", operation: 7)
    guard case .none = machine.subscribed() else {
      Issue.record("nothing starts without demand")
      return machine
    }
    return machine
  }

  private func running() -> Machine {
    var machine = subscribed()
    _ = machine.request()
    _ = machine.taskStarted(99)
    return machine
  }

  @Test func nothingStartsBeforeTheFirstRequest() {
    var machine = subscribed()
    guard case .awaitingDemand = machine.state else {
      Issue.record("a new subscription waits for demand, found \(machine.state)")
      return
    }
    guard case .start(let operation) = machine.request() else {
      Issue.record("the first request starts the operation")
      return
    }
    #expect(operation == 7)
    guard case .none = machine.request() else {
      Issue.record("a later request starts nothing more")
      return
    }
  }

  @Test func valueThenFinished() {
    var machine = running()
    guard case .deliver(let downstream, let value) = machine.operationFinished(.success(5)) else {
      Issue.record("a value goes out")
      return
    }
    #expect(downstream == "downstream")
    #expect(value == 5)
    let finishes = machine.valueDelivered()
    #expect(finishes)
    guard case .terminal = machine.state else {
      Issue.record("finished after the value, found \(machine.state)")
      return
    }
  }

  @Test func failure() {
    var machine = running()
    guard case .fail(let downstream, _) = machine.operationFinished(.failure(Oops())) else {
      Issue.record("a failure goes out")
      return
    }
    #expect(downstream == "downstream")
    guard case .none = machine.cancel() else {
      Issue.record("a cancel after the failure does nothing")
      return
    }
  }

  @Test func cancelWhileRunningCancelsTheTaskAndReleasesTheSubscriber() {
    var machine = running()
    guard case .cancel(let handle, let released) = machine.cancel() else {
      Issue.record("cancel cancels the task")
      return
    }
    #expect(handle == 99)
    #expect(released == "downstream")
    guard case .none = machine.operationFinished(.success(5)) else {
      Issue.record("nothing is delivered after cancel")
      return
    }
    guard case .none = machine.cancel() else {
      Issue.record("cancel is idempotent")
      return
    }
  }

  @Test func cancelBeforeDemandReleasesEverything() {
    var machine = subscribed()
    guard case .release(let downstream, let operation) = machine.cancel() else {
      Issue.record("cancel releases the subscriber and the operation")
      return
    }
    #expect(downstream == "downstream")
    #expect(operation == 7)
    guard case .none = machine.request() else {
      Issue.record("a request after cancel starts nothing")
      return
    }
  }

  @Test func cancelWhileTheTaskIsBeingCreatedCancelsItOnceItExists() {
    var machine = subscribed()
    _ = machine.request()
    guard case .release(let downstream, nil) = machine.cancel() else {
      Issue.record("cancel releases the subscriber before the task exists")
      return
    }
    #expect(downstream == "downstream")
    guard case .cancel(let handle, nil) = machine.taskStarted(99) else {
      Issue.record("the task is cancelled as soon as its handle is known")
      return
    }
    #expect(handle == 99)
  }

  @Test func theTaskMayFinishBeforeItsHandleIsRecorded() {
    var machine = subscribed()
    _ = machine.request()
    guard case .deliver(_, 5) = machine.operationFinished(.success(5)) else {
      Issue.record("the value goes out")
      return
    }
    guard case .none = machine.taskStarted(99) else {
      Issue.record("a handle that arrives during delivery changes nothing")
      return
    }
    let finishes = machine.valueDelivered()
    #expect(finishes)
  }

  @Test func cancelDuringDeliveryHoldsBackFinished() {
    var machine = running()
    _ = machine.operationFinished(.success(5))
    guard case .none = machine.cancel() else {
      Issue.record("the subscriber holds its own reference during delivery")
      return
    }
    let finishes = machine.valueDelivered()
    #expect(!finishes)
  }

  @Test func demandDuringReceiveSubscriptionStartsTheTaskOnlyOnceItReturns() {
    var machine = Machine(downstream: "downstream", operation: 7)
    guard case .subscribing(_, _, demanded: false) = machine.state else {
      Issue.record("a new subscription is being subscribed, found \(machine.state)")
      return
    }
    guard case .none = machine.request() else {
      Issue.record("a request inside receive(subscription:) starts nothing yet")
      return
    }
    guard case .none = machine.request() else {
      Issue.record("a second request inside receive(subscription:) starts nothing either")
      return
    }
    guard case .subscribing(_, _, demanded: true) = machine.state else {
      Issue.record("the request is recorded, found \(machine.state)")
      return
    }
    guard case .start(let operation) = machine.subscribed() else {
      Issue.record("the task starts once receive(subscription:) has returned")
      return
    }
    #expect(operation == 7)
    guard case .none = machine.request() else {
      Issue.record("a request after the start starts nothing more")
      return
    }
    guard case .none = machine.taskStarted(99) else {
      Issue.record("the task's handle is recorded")
      return
    }
    guard case .running(_, 99) = machine.state else {
      Issue.record("the task runs, found \(machine.state)")
      return
    }
  }

  @Test func cancelDuringReceiveSubscriptionNeverStarts() {
    var machine = Machine(downstream: "downstream", operation: 7)
    _ = machine.request()
    guard case .release(let downstream, let operation) = machine.cancel() else {
      Issue.record("cancel releases the subscriber and the operation")
      return
    }
    #expect(downstream == "downstream")
    #expect(operation == 7)
    guard case .none = machine.subscribed() else {
      Issue.record("nothing starts once receive(subscription:) returns after a cancel")
      return
    }
  }

  @Test func cancelWhileStartingThenTheOperationFinishesDeliversNothing() {
    var machine = subscribed()
    _ = machine.request()
    guard case .release(_, nil) = machine.cancel() else {
      Issue.record("cancel releases the subscriber before the task exists")
      return
    }
    guard case .none = machine.operationFinished(.success(5)) else {
      Issue.record("a result after the cancel is dropped")
      return
    }
    guard case .cancel(99, nil) = machine.taskStarted(99) else {
      Issue.record("the late handle is still cancelled, which changes nothing for a finished task")
      return
    }
  }

  @Test func aHandleReportedAfterANormalFinishChangesNothing() {
    var machine = subscribed()
    _ = machine.request()
    _ = machine.operationFinished(.success(5))
    let finishes = machine.valueDelivered()
    #expect(finishes)
    guard case .cancel(99, nil) = machine.taskStarted(99) else {
      Issue.record("a handle reported after the end is handed back to be cancelled")
      return
    }
    guard case .terminal = machine.state else {
      Issue.record("still finished, found \(machine.state)")
      return
    }
    guard case .none = machine.cancel() else {
      Issue.record("a cancel after the end does nothing")
      return
    }
  }

  @Test func aHandleReportedAfterAFailureChangesNothing() {
    var machine = subscribed()
    _ = machine.request()
    guard case .fail = machine.operationFinished(.failure(Oops())) else {
      Issue.record("the failure goes out")
      return
    }
    guard case .cancel(99, nil) = machine.taskStarted(99) else {
      Issue.record("a handle reported after the end is handed back to be cancelled")
      return
    }
  }
}

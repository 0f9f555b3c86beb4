import ConduitTesting
import Testing

@testable import Conduit

/// The timeout's decisions, without threads, a scheduler or a downstream; time is an `Int`.
@Suite(.leakChecked)
struct TimeoutStateMachineTests {
  fileprivate typealias Machine = TimeoutStateMachine<Int, Oops, Int>

  private func subscribed(customError: (() -> Oops)? = nil, deadline: Int = 13) -> (Machine, UInt64) {
    var machine = Machine(customError: customError)
    let timer = machine.receive(subscription: SpySubscription(), deadline: deadline)
    #expect(timer != nil)
    guard case .idle = machine.nextDelivery(adding: .none).step else {
      Issue.record("a fresh timeout has nothing to deliver")
      return (machine, timer ?? 0)
    }
    return (machine, timer ?? 0)
  }

  /// An element arrives, the clock starting again with `deadline`: whether its delivery is
  /// scheduled, and the timer to arm.
  private func receive(_ machine: inout Machine, _ input: Int, deadline: Int) -> (schedules: Bool, arming: UInt64?) {
    switch machine.receive(input, deadline: deadline) {
    case .release: (false, nil)
    case .scheduleDelivery(let arming): (true, arming)
    }
  }

  /// What the owner of delivery would deliver now, completions as `nil`.
  private func drained(_ machine: inout Machine) -> [Int?] {
    var delivered: [Int?] = []
    while true {
      switch machine.nextDelivery(adding: .none).step {
      case .deliver(let value): delivered.append(value)
      case .complete: delivered.append(nil)
      case .idle: return delivered
      }
    }
  }

  @Test func aSecondSubscriptionIsRefused() {
    var (machine, _) = subscribed()
    #expect(machine.receive(subscription: SpySubscription(), deadline: 20) == nil)
  }

  @Test func onlyTheFirstRequestRestartsTheClockAndEveryRequestIsForwarded() {
    var (machine, _) = subscribed()
    guard case .restartClockAndForward = machine.request() else {
      Issue.record("the first request restarts the clock and goes to the upstream")
      return
    }
    #expect(machine.restartClock(deadline: 20) == nil)
    #expect(machine.timer.deadline == 20)
    guard case .forward = machine.request() else {
      Issue.record("a later request only goes to the upstream")
      return
    }
  }

  @Test func elementsMoveTheDeadlineWithoutANewTimer() {
    var (machine, timer) = subscribed()
    for value in 1...100 {
      #expect(receive(&machine, value, deadline: 13 + value) == (true, nil))
    }
    #expect(machine.timer.deadline == 113)
    guard case .rearm(_, deadline: 113, _) = machine.timerFired(timer, at: 13) else {
      Issue.record("the timer fired before the moved deadline: it is replaced")
      return
    }
  }

  @Test func elementsAndTheCompletionGoOutOnePerScheduledDeliveryInOrder() {
    var (machine, _) = subscribed()
    _ = machine.receive(1, deadline: 14)
    _ = machine.receive(2, deadline: 15)
    guard case .scheduleDelivery = machine.receive(completion: .finished) else {
      Issue.record("the completion's delivery is scheduled")
      return
    }
    // As in Combine, the upstream is kept until the completion has gone out.
    #expect(machine.upstream != nil)
    #expect(machine.deliveryCameDue() == true)
    #expect(drained(&machine) == [1])
    #expect(machine.deliveryCameDue() == true)
    #expect(machine.deliveryCameDue() == false)
    #expect(drained(&machine) == [2, nil])
    guard case .terminal = machine.state else {
      Issue.record("the stream has ended")
      return
    }
    #expect(machine.upstream == nil)
  }

  @Test func theDeadlinePassingCancelsTheUpstreamDropsTheQueueAndCompletesAtOnce() {
    var (machine, timer) = subscribed(customError: { Oops() })
    _ = machine.receive(1, deadline: 13)
    let fired = machine.timerFired(timer, at: 13)
    guard case .timeOut(_, _, let makeError?, let dropped) = fired else {
      Issue.record("the deadline passed, got \(fired)")
      return
    }
    #expect(dropped.elements == [1])
    // Nothing more is taken while the error is made.
    #expect(receive(&machine, 2, deadline: 30) == (false, nil))
    #expect(machine.deliveryCameDue() == false)
    #expect(machine.timedOut(with: .failure(makeError())) == true)
    guard case .complete(let completion, releasing: nil) = machine.nextDelivery(adding: .none).step else {
      Issue.record("the timeout's failure goes out")
      return
    }
    #expect(completion == .failure(Oops()))
  }

  @Test func theDemandAnElementReturnsGoesToTheUpstream() {
    var (machine, _) = subscribed()
    _ = machine.receive(1, deadline: 14)
    #expect(machine.deliveryCameDue() == true)
    let delivering = machine.nextDelivery(adding: .none)
    guard case .deliver = delivering.step else { return }
    #expect(delivering.forwardingTo == nil)
    let idle = machine.nextDelivery(adding: .max(1))
    guard case .idle = idle.step else { return }
    #expect(idle.forwardingTo != nil)
  }

  @Test func aCancelReleasesEverything() {
    var (machine, timer) = subscribed(customError: { Oops() })
    let spy = SpySubscription()
    #expect(machine.timer.armed(timer, spy) == nil)
    _ = machine.receive(1, deadline: 14)
    guard case .release(let bundle) = machine.cancel() else {
      Issue.record("the cancel ends the stream")
      return
    }
    #expect(bundle.upstream != nil)
    #expect(bundle.timer as? SpySubscription === spy)
    #expect(bundle.queued.elements == [1])
    #expect(bundle.customError != nil)
    guard case .none = machine.timerFired(timer, at: 14) else {
      Issue.record("nothing after cancel")
      return
    }
    #expect(machine.deliveryCameDue() == false)
  }
}

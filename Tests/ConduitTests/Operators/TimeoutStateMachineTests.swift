import ConduitTesting
import Testing

@testable import Conduit

/// The timeout's decisions, without threads, a scheduler or a downstream; time is an `Int`.
@Suite(.leakChecked)
struct TimeoutStateMachineTests {
  fileprivate typealias Machine = TimeoutStateMachine<Int, Oops, Int>

  private struct Fired {
    var action: Machine.TimerAction
    var cancelling: (any Cancellable)?
    var upstream: (any Subscription)?
    var makeError: (() -> Oops)?
    var dropped: [Int]
  }

  private func subscribed(customError: (() -> Oops)? = nil, deadline: Int = 13) -> (Machine, UInt64) {
    var machine = Machine(customError: customError)
    let timer = machine.receive(subscription: SpySubscription(), deadline: deadline)
    #expect(timer != nil)
    var forward: (any Subscription)?
    var value: Int?
    var completion: Subscribers.Completion<Oops>?
    var retired: (any Subscription)?
    guard
      case .idle = machine.nextStep(
        adding: .none, forwardingTo: &forward, value: &value, completion: &completion, releasing: &retired)
    else {
      Issue.record("a fresh timeout has nothing to deliver")
      return (machine, timer ?? 0)
    }
    return (machine, timer ?? 0)
  }

  private func fire(_ machine: inout Machine, _ timer: UInt64, at now: Int) -> Fired {
    var fired = Fired(action: .none, dropped: [])
    var dropped = ValueQueue<Int>()
    fired.action = machine.timerFired(
      timer, at: now, cancelling: &fired.cancelling, cancellingUpstream: &fired.upstream,
      makeError: &fired.makeError, dropped: &dropped)
    fired.dropped = dropped.elements
    return fired
  }

  /// What the owner of delivery would deliver now, completions as `nil`.
  private func drained(_ machine: inout Machine) -> [Int?] {
    var delivered: [Int?] = []
    var forward: (any Subscription)?
    var value: Int?
    var completion: Subscribers.Completion<Oops>?
    var retired: (any Subscription)?
    while true {
      switch machine.nextStep(
        adding: .none, forwardingTo: &forward, value: &value, completion: &completion, releasing: &retired)
      {
      case .deliver: delivered.append(value.take()!)
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
    var forward: (any Subscription)?
    #expect(machine.request(forwardingTo: &forward) == true)
    #expect(forward != nil)
    #expect(machine.restartClock(deadline: 20) == nil)
    #expect(machine.timer.deadline == 20)
    forward = nil
    #expect(machine.request(forwardingTo: &forward) == false)
    #expect(forward != nil)
  }

  @Test func elementsMoveTheDeadlineWithoutANewTimer() {
    var (machine, timer) = subscribed()
    var arming: UInt64?
    var released: Int?
    for value in 1...100 {
      #expect(machine.receive(value, deadline: 13 + value, arming: &arming, released: &released) == true)
      #expect(arming == nil)
    }
    #expect(machine.timer.deadline == 113)
    guard case .rearm = fire(&machine, timer, at: 13).action else {
      Issue.record("the timer fired before the moved deadline: it is replaced")
      return
    }
  }

  @Test func elementsAndTheCompletionGoOutOnePerScheduledDeliveryInOrder() {
    var (machine, _) = subscribed()
    var arming: UInt64?
    var released: Int?
    _ = machine.receive(1, deadline: 14, arming: &arming, released: &released)
    _ = machine.receive(2, deadline: 15, arming: &arming, released: &released)
    var cancelling: (any Cancellable)?
    #expect(machine.receive(completion: .finished, cancelling: &cancelling) == true)
    // As in Combine, the upstream is kept until the completion has gone out.
    #expect(machine.upstream != nil)
    #expect(machine.deliveryCameDue() == true)
    #expect(drained(&machine) == [1])
    #expect(machine.deliveryCameDue() == true)
    #expect(machine.deliveryCameDue() == false)
    #expect(drained(&machine) == [2, nil])
    #expect(machine.phase == .terminal)
    #expect(machine.upstream == nil)
  }

  @Test func theDeadlinePassingCancelsTheUpstreamDropsTheQueueAndCompletesAtOnce() {
    var (machine, timer) = subscribed(customError: { Oops() })
    var arming: UInt64?
    var released: Int?
    _ = machine.receive(1, deadline: 13, arming: &arming, released: &released)
    let fired = fire(&machine, timer, at: 13)
    guard case .timeOut = fired.action else {
      Issue.record("the deadline passed, got \(fired.action)")
      return
    }
    #expect(fired.upstream != nil)
    #expect(fired.makeError != nil)
    #expect(fired.dropped == [1])
    // Nothing more is taken while the error is made.
    #expect(machine.receive(2, deadline: 30, arming: &arming, released: &released) == false)
    #expect(machine.deliveryCameDue() == false)
    #expect(machine.timedOut(with: .failure(fired.makeError!())) == true)
    var forward: (any Subscription)?
    var value: Int?
    var completion: Subscribers.Completion<Oops>?
    var retired: (any Subscription)?
    guard
      case .complete = machine.nextStep(
        adding: .none, forwardingTo: &forward, value: &value, completion: &completion, releasing: &retired)
    else {
      Issue.record("the timeout's failure goes out")
      return
    }
    #expect(completion == .failure(Oops()))
  }

  @Test func theDemandAnElementReturnsGoesToTheUpstream() {
    var (machine, _) = subscribed()
    var arming: UInt64?
    var released: Int?
    _ = machine.receive(1, deadline: 14, arming: &arming, released: &released)
    #expect(machine.deliveryCameDue() == true)
    var forward: (any Subscription)?
    var value: Int?
    var completion: Subscribers.Completion<Oops>?
    var retired: (any Subscription)?
    guard
      case .deliver = machine.nextStep(
        adding: .none, forwardingTo: &forward, value: &value, completion: &completion, releasing: &retired)
    else { return }
    #expect(forward == nil)
    guard
      case .idle = machine.nextStep(
        adding: .max(1), forwardingTo: &forward, value: &value, completion: &completion, releasing: &retired)
    else { return }
    #expect(forward != nil)
  }

  @Test func aCancelReleasesEverything() {
    var (machine, timer) = subscribed(customError: { Oops() })
    let spy = SpySubscription()
    #expect(machine.timer.armed(timer, spy) == nil)
    var arming: UInt64?
    var released: Int?
    _ = machine.receive(1, deadline: 14, arming: &arming, released: &released)
    var bundle = Machine.Released()
    #expect(machine.cancel(released: &bundle) == true)
    #expect(bundle.upstream != nil)
    #expect(bundle.timer as? SpySubscription === spy)
    #expect(bundle.queued.elements == [1])
    #expect(bundle.customError != nil)
    guard case .none = fire(&machine, timer, at: 14).action else {
      Issue.record("nothing after cancel")
      return
    }
    #expect(machine.deliveryCameDue() == false)
  }
}

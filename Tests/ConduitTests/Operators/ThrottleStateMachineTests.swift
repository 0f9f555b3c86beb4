import ConduitTesting
import Testing

@testable import Conduit

/// The throttle's decisions, without threads, a scheduler or a downstream; time is an `Int`.
@Suite(.leakChecked)
struct ThrottleStateMachineTests {
  fileprivate typealias Machine = ThrottleStateMachine<Int, Oops, Int>

  private func subscribed(interval: Int = 500, latest: Bool, demand: Subscribers.Demand = .unlimited) -> Machine {
    var machine = Machine(interval: interval, latest: latest)
    #expect(machine.receive(subscription: SpySubscription()) == true)
    guard case .idle = machine.nextDelivery(adding: .none) else {
      Issue.record("a fresh throttle has nothing to deliver")
      return machine
    }
    machine.request(demand)
    return machine
  }

  /// Everything the owner of delivery would deliver now.
  private func drained(_ machine: inout Machine) -> [Int] {
    var delivered: [Int] = []
    while case .deliver(let value) = machine.nextDelivery(adding: .none) {
      delivered.append(value)
    }
    return delivered
  }

  /// Runs `script` (value at time, in order) through the machine in virtual time, running each
  /// emission at the time the machine asked for: what reaches the downstream.
  private func emitted(by script: [(value: Int, at: Int)], latest: Bool) -> [Int] {
    var machine = subscribed(latest: latest)
    var emissionDue: Int?
    var delivered: [Int] = []
    func runEmission(upTo time: Int) {
      guard let due = emissionDue, due <= time else { return }
      emissionDue = nil
      if machine.emit(at: machine.emissionNeedsTime ? due : nil) { delivered += drained(&machine) }
    }
    for (value, time) in script {
      runEmission(upTo: time)
      switch machine.receive(value, at: time) {
      case .release: break
      case .scheduleEmissionNow: emissionDue = time
      case .scheduleEmission(let emissionTime): emissionDue = emissionTime
      }
      // An immediate emission runs on the scheduler's next turn, before the next element.
      runEmission(upTo: time)
    }
    runEmission(upTo: .max)
    return delivered
  }

  private let script = [(-1, 0), (1, 100), (2, 200), (3, 600), (4, 700), (5, 900), (6, 1200)].map {
    (value: $0.0, at: $0.1)
  }

  @Test func theFirstOfEachIntervalGoesOut() {
    #expect(emitted(by: script, latest: false) == [-1, 1, 3, 6])
  }

  @Test func theLatestOfEachIntervalGoesOut() {
    #expect(emitted(by: script, latest: true) == [-1, 2, 5, 6])
  }

  @Test func theFirstElementIsEmittedImmediatelyAndTheNextOneIntervalAfterTheEmission() {
    var machine = subscribed(interval: 60, latest: false)
    guard case .scheduleEmissionNow = machine.receive(0, at: 0) else {
      Issue.record("the first element goes out on the scheduler's next turn")
      return
    }
    #expect(machine.emissionNeedsTime)
    #expect(machine.emit(at: 0) == true)
    #expect(drained(&machine) == [0])
    guard case .scheduleEmission(at: 60) = machine.receive(1, at: 45) else {
      Issue.record("within the interval, the emission waits, until one interval after the last")
      return
    }
    #expect(machine.emit(at: 60) == true)
    #expect(drained(&machine) == [1])
    // After a gap longer than the interval, the element goes out at once again.
    guard case .scheduleEmissionNow = machine.receive(2, at: 121) else {
      Issue.record("after a gap, the emission is immediate")
      return
    }
  }

  @Test func anElementWithoutDemandIsDroppedEvenWhenLatestWouldKeepIt() {
    var machine = subscribed(latest: true, demand: .max(1))
    _ = machine.receive(1, at: 0)
    #expect(machine.demand == .none)
    guard case .release(.some(2)) = machine.receive(2, at: 1) else {
      Issue.record("without demand, the element is dropped")
      return
    }
    #expect(machine.pending == 1)
  }

  @Test func theCompletionFollowsTheWaitingElement() {
    var machine = subscribed(latest: true)
    _ = machine.receive(1, at: 0)
    #expect(machine.receive(completion: .finished) == false)
    #expect(!machine.emissionNeedsTime)
    // Elements after the completion are ignored.
    guard case .release(.some(2)) = machine.receive(2, at: 1) else { return }
    #expect(machine.emit(at: nil) == true)
    guard case .deliver(1) = machine.nextDelivery(adding: .none),
      case .complete(.finished, _) = machine.nextDelivery(adding: .none)
    else {
      Issue.record("the element, then the completion")
      return
    }
    guard case .terminal = machine.state else {
      Issue.record("the stream has ended")
      return
    }
  }

  @Test func aCompletionWithNothingWaitingIsScheduledOnItsOwn() {
    var machine = subscribed(latest: false)
    #expect(machine.receive(completion: .failure(Oops())) == true)
    // As in Combine, the upstream is kept until the completion has gone out.
    guard case .completing = machine.state else {
      Issue.record("the completion waits")
      return
    }
    #expect(machine.upstream != nil, "the upstream is kept while the completion waits")
    #expect(machine.emit(at: nil) == true)
    guard case .complete(let completion, let released) = machine.nextDelivery(adding: .none) else {
      Issue.record("the failure goes out, and the upstream with it")
      return
    }
    #expect(completion == .failure(Oops()))
    #expect(released != nil)
    guard case .terminal = machine.state else {
      Issue.record("the stream has ended")
      return
    }
    #expect(machine.upstream == nil, "the upstream is let go of")
  }

  @Test func requestingNothingIsIgnored() {
    var machine = subscribed(latest: false, demand: .none)
    machine.request(.none)
    #expect(machine.demand == .none)
    machine.request(.max(2))
    #expect(machine.demand == .max(2))
  }

  @Test func aCancelBeforeTheSubscriptionRefusesIt() {
    var machine = Machine(interval: 1, latest: true)
    guard case .release = machine.cancel() else {
      Issue.record("a cancel before the subscription ends the stream, as in Combine")
      return
    }
    #expect(machine.receive(subscription: SpySubscription()) == false)
  }

  @Test func aCancelReleasesTheWaitingElementAndStopsTheEmission() {
    var machine = subscribed(latest: false)
    _ = machine.receive(1, at: 0)
    guard case .release(let released) = machine.cancel() else {
      Issue.record("the cancel ends the stream")
      return
    }
    #expect(released.pending == 1)
    #expect(released.upstream != nil)
    #expect(machine.emit(at: 0) == false)
  }
}

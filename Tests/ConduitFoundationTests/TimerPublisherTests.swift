import ConduitTesting
import Foundation
import Testing

@testable import ConduitFoundation

/// A subscriber that requests `initial` at subscription and `perValue` after each value.
private final class DemandingSubscriber: Subscriber, @unchecked Sendable {
  typealias Input = Date
  typealias Failure = Never

  let received = Recorder<Date>()
  let completions = Recorder<Void>()
  private let initial: Subscribers.Demand
  private let perValue: Subscribers.Demand
  // Written once in `receive(subscription:)`, before any value.
  private(set) var subscription: (any Subscription)?

  init(initial: Subscribers.Demand, perValue: Subscribers.Demand = .none) {
    self.initial = initial
    self.perValue = perValue
  }

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    subscription.request(initial)
  }

  func receive(_ input: Date) -> Subscribers.Demand {
    received.record(input)
    return perValue
  }

  func receive(completion: Subscribers.Completion<Never>) { completions.record() }
}

@Suite(.leakChecked)
struct TimerPublisherTests {
  @Test func publishKeepsItsSettingsAndDropsTheToleranceAsCombine() {
    let mode = RunLoop.Mode("TimerPublisherTests")
    let publisher = Timer.publish(every: 0.25, tolerance: 0.02, on: .current, in: mode, options: nil)
    #expect(publisher.interval == 0.25)
    #expect(publisher.tolerance == nil)
    #expect(publisher.runLoop === RunLoop.current)
    #expect(publisher.mode == mode)
    #expect(publisher.options == nil)
    let direct = Timer.TimerPublisher(interval: 1, tolerance: 0.5, runLoop: .current, mode: .default)
    #expect(direct.tolerance == 0.5)
  }

  @Test func autoconnectTicksIncreasingDatesOnTheRunLoop() {
    let loop = RunLoopThread()
    defer { loop.stop() }
    let onLoop = Recorder<Bool>()
    let dates = Recorder<Date>()
    let start = Date()
    let token = Timer.publish(every: 0.01, on: loop.runLoop, in: .default).autoconnect().sink { date in
      onLoop.record(loop.isCurrent)
      dates.record(date)
    }
    dates.wait(forCount: 4)
    loop.sync { token.cancel() }
    let recorded = dates.recorded
    #expect(recorded.allSatisfy { $0 >= start })
    #expect(zip(recorded, recorded.dropFirst()).allSatisfy { $1 > $0 })
    #expect(onLoop.recorded.allSatisfy { $0 })
  }

  @Test func cancellingTheLastSubscriberStopsTheTicks() {
    let loop = RunLoopThread()
    defer { loop.stop() }
    let dates = Recorder<Date>()
    let token = Timer.publish(every: 0.01, on: loop.runLoop, in: .default).autoconnect().sink { dates.record($0) }
    dates.wait(forCount: 2)
    loop.sync { token.cancel() }
    let afterCancel = dates.count
    let marker = Recorder<Void>()
    loop.runLoop.schedule(after: loop.runLoop.now.advanced(by: .milliseconds(40))) { marker.record() }
    marker.wait(forCount: 1)
    #expect(dates.count == afterCancel)
  }

  @Test func nothingTicksBeforeConnectAndCancellingTheConnectionInvalidatesTheTimer() throws {
    let loop = RunLoopThread()
    defer { loop.stop() }
    let publisher = Timer.TimerPublisher(interval: 0.01, runLoop: loop.runLoop, mode: .default)
    let subscriber = DemandingSubscriber(initial: .unlimited)
    publisher.subscribe(subscriber)
    let beforeConnect = Recorder<Void>()
    loop.runLoop.schedule(after: loop.runLoop.now.advanced(by: .milliseconds(30))) { beforeConnect.record() }
    beforeConnect.wait(forCount: 1)
    #expect(subscriber.received.count == 0)

    let connection = publisher.connect()
    let timer = try #require((connection as? TimerConnection)?.timer)
    subscriber.received.wait(forCount: 3)
    loop.sync { connection.cancel() }
    #expect(!timer.isValid)
    #expect((connection as? TimerConnection)?.timer == nil)
    let afterCancel = subscriber.received.count
    // As in Combine, the subscription ends without a completion, and a new connection does not
    // reach it.
    let again = publisher.connect()
    let marker = Recorder<Void>()
    loop.runLoop.schedule(after: loop.runLoop.now.advanced(by: .milliseconds(40))) { marker.record() }
    marker.wait(forCount: 1)
    again.cancel()
    #expect(subscriber.received.count == afterCancel)
    #expect(subscriber.completions.count == 0)
  }

  @Test func eachTickGoesOnlyToSubscribersWithDemand() {
    let loop = RunLoopThread()
    defer { loop.stop() }
    let publisher = Timer.TimerPublisher(interval: 0.01, runLoop: loop.runLoop, mode: .default)
    let two = DemandingSubscriber(initial: .max(2))
    let oneThenOneMore = DemandingSubscriber(initial: .max(1), perValue: .max(1))
    let unlimited = DemandingSubscriber(initial: .unlimited)
    publisher.subscribe(two)
    publisher.subscribe(oneThenOneMore)
    publisher.subscribe(unlimited)
    let connection = publisher.connect()
    unlimited.received.wait(forCount: 6)
    loop.sync { connection.cancel() }
    #expect(two.received.count == 2)
    // Every tick goes out with the same date to all who have demand.
    #expect(two.received.recorded == Array(unlimited.received.recorded.prefix(2)))
    #expect(oneThenOneMore.received.recorded == unlimited.received.recorded)
  }

  @Test func aSubscriberThatCancelsLeavesTheOthersTicking() {
    let loop = RunLoopThread()
    defer { loop.stop() }
    let publisher = Timer.TimerPublisher(interval: 0.01, runLoop: loop.runLoop, mode: .default)
    let leaving = DemandingSubscriber(initial: .unlimited)
    let staying = DemandingSubscriber(initial: .unlimited)
    publisher.subscribe(leaving)
    publisher.subscribe(staying)
    let connection = publisher.connect()
    leaving.received.wait(forCount: 1)
    loop.sync { leaving.subscription?.cancel() }
    let leftAt = leaving.received.count
    let stayingAt = staying.received.count
    staying.received.wait(forCount: stayingAt + 3)
    loop.sync { connection.cancel() }
    #expect(leaving.received.count == leftAt)
  }

  // MARK: - The state machine

  @Test func machineDropsTicksWithoutDemand() {
    var machine = TimerSubscriptionStateMachine(downstream: "down")
    guard case .drop = machine.tick() else { return #expect(Bool(false), "a tick without demand went out") }
    machine.request(.max(1))
    guard case .deliver("down") = machine.tick() else { return #expect(Bool(false), "a demanded tick was dropped") }
    machine.delivered(additional: .none)
    guard case .drop = machine.tick() else { return #expect(Bool(false), "the demand was spent") }
  }

  @Test func machineDropsATickThatComesDuringADelivery() {
    var machine = TimerSubscriptionStateMachine(downstream: "down")
    machine.request(.unlimited)
    _ = machine.tick()
    guard case .drop = machine.tick() else { return #expect(Bool(false), "deliveries overlapped") }
    machine.delivered(additional: .none)
    guard case .deliver = machine.tick() else { return #expect(Bool(false), "unlimited demand ran out") }
  }

  @Test func machineEndsOnce() {
    var machine = TimerSubscriptionStateMachine(downstream: "down")
    machine.request(.unlimited)
    #expect(machine.end() == "down")
    #expect(machine.end() == nil)
    guard case .drop = machine.tick() else { return #expect(Bool(false), "a tick went out after the end") }
  }
}

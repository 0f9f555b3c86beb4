import ConduitTesting
import Dispatch
import Testing

@testable import Conduit

/// `debounce` in virtual time, on `DispatchQueue.test`, and in a few integration tests with
/// generous bounds on a real `DispatchQueue`.
@Suite(.leakChecked)
struct DebounceTests {
  @Test func marblesOnlyTheLastElementOfEachBurstGoesOutAfterTheQuietPeriod() {
    let scheduler = DispatchQueue.test
    let frame: DispatchQueue.SchedulerTimeType.Stride = .milliseconds(100)
    let values: [Character: Int] = ["a": 1, "b": 2, "c": 3, "d": 4, "e": 5]
    let keystrokes = scheduler.hot("-ab---c-de----|", values: values, frame: frame)
    let debounced = keystrokes.debounce(for: .milliseconds(300), scheduler: scheduler)
    #expect(scheduler.marbles(of: debounced, values: values, frame: frame, frames: 20) == "-----b------e-|")
  }

  @Test func anElementGoesOutOnceTheQuietPeriodHasPassed() {
    let scheduler = DispatchQueue.test
    let upstream = PassthroughSubject<Int, Oops>()
    let subscriber = TestSubscriber<Int, Oops>()
    upstream.debounce(for: .milliseconds(300), scheduler: scheduler).subscribe(subscriber)
    upstream.send(1)
    scheduler.advance(by: .milliseconds(100))
    upstream.send(2)
    scheduler.advance(by: .milliseconds(299))
    #expect(subscriber.values.isEmpty)
    scheduler.advance(by: .milliseconds(1))
    #expect(subscriber.values == [2])
    upstream.send(3)
    scheduler.advance(by: .milliseconds(300))
    #expect(subscriber.values == [2, 3])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func aBurstOfAHundredElementsSchedulesAtMostTwoActions() {
    let scheduler = DispatchQueue.test
    let upstream = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.debounce(for: .milliseconds(300), scheduler: scheduler).subscribe(subscriber)
    for value in 1...100 {
      upstream.send(value)
      scheduler.advance(by: .milliseconds(1))
    }
    // The last element came at 99 ms: it is due at 399 ms.
    scheduler.advance(by: .milliseconds(298))
    #expect(subscriber.values.isEmpty)
    scheduler.advance(by: .milliseconds(1))
    #expect(subscriber.values == [100])
    // Combine schedules a timer per element: a hundred.
    #expect(scheduler.scheduledActionCount <= 2)
    #expect(scheduler.pendingActionCount == 0)
    subscriber.cancel()
  }

  @Test func theElementStillWaitingIsDroppedAndTheFinishGoesThroughTheScheduler() {
    let scheduler = DispatchQueue.test
    let upstream = PassthroughSubject<Int, Oops>()
    let subscriber = TestSubscriber<Int, Oops>()
    upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(subscriber.completion == nil)
    scheduler.advance()
    #expect(subscriber.events.count == 2)
    #expect(subscriber.values.isEmpty)
    #expect(subscriber.completion == .finished)
    scheduler.advance(by: .seconds(2))
    #expect(subscriber.values.isEmpty)
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func aFailureGoesThroughTheScheduler() {
    let scheduler = DispatchQueue.test
    let upstream = PassthroughSubject<Int, Oops>()
    let subscriber = TestSubscriber<Int, Oops>()
    upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
    upstream.send(1)
    scheduler.advance(by: .seconds(1))
    upstream.send(completion: .failure(Oops()))
    #expect(subscriber.completion == nil)
    scheduler.advance()
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == .failure(Oops()))
  }

  @Test func anElementThatComesDueWithoutDemandIsDropped() {
    let scheduler = DispatchQueue.test
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
    // As in Combine: the upstream is asked for everything, whatever the downstream asked.
    #expect(upstream.link?.requests == [.unlimited])
    upstream.send(1)
    scheduler.advance(by: .seconds(1))
    upstream.send(2)
    scheduler.advance(by: .seconds(1))
    #expect(subscriber.values == [1])
    subscriber.request(.max(1))
    // The dropped element does not come back with the demand.
    #expect(subscriber.values == [1])
    upstream.send(3)
    scheduler.advance(by: .seconds(1))
    #expect(subscriber.values == [1, 3])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func aCancelStopsTheTimerCancelsTheUpstreamAndDeliversNothingMore() {
    let scheduler = DispatchQueue.test
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
    upstream.send(1)
    #expect(scheduler.pendingActionCount == 1)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    // The timer is cancelled, and the scheduler lets go of its action at once.
    #expect(scheduler.pendingActionCount == 0)
    scheduler.advance(by: .seconds(2))
    #expect(subscriber.events.count == 1)
  }

  @Test func aSubscriberMaySendToTheUpstreamFromInsideADelivery() {
    // The immediate scheduler fires the timer inside the send: the element sent from inside the
    // delivery goes out after it returns, in order.
    let upstream = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { value in
      if value < 5 { upstream.send(value + 1) }
    }
    upstream.debounce(for: .seconds(1), scheduler: ImmediateScheduler.shared).subscribe(subscriber)
    upstream.send(0)
    #expect(subscriber.values == [0, 1, 2, 3, 4, 5])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func aSubscriberMayCancelFromInsideADelivery() {
    let scheduler = DispatchQueue.test
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { _ in subscriber.cancel() }
    upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
    upstream.send(1)
    scheduler.advance(by: .seconds(1))
    upstream.send(2)
    scheduler.advance(by: .seconds(1))
    #expect(subscriber.values == [1])
    #expect(upstream.link?.isCancelled == true)
  }

  @Test func itDescribesItselfAsCombineDoes() {
    let scheduler = DispatchQueue.test
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
    let subscription = subscriber.subscription
    #expect(subscription.map { String(describing: $0) } == "Debounce")
    upstream.send(7)
    let children = subscription.map { Mirror(reflecting: $0).children.map { $0.label ?? "" } }
    #expect(children == ["downstream", "downstreamDemand", "currentValue"])
    subscriber.cancel()
  }

  // MARK: On a real DispatchQueue

  @Test func onARealQueueABurstGoesOutAsItsLastElementOnly() {
    let queue = DispatchQueue(label: "DebounceTests.burst")
    let upstream = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    let lastArrived = DispatchSemaphore(value: 0)
    subscriber.onValue { if $0 == 10 { lastArrived.signal() } }
    upstream.debounce(for: .milliseconds(200), scheduler: queue).subscribe(subscriber)
    for value in 1...10 { upstream.send(value) }
    #expect(lastArrived.wait(timeout: .now() + 5) == .success)
    // Another quiet period passes without a second delivery.
    waitOnTheClock(of: queue, for: .milliseconds(300))
    #expect(subscriber.values == [10])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func onARealQueueEachElementFollowedByAQuietPeriodGoesOut() {
    let queue = DispatchQueue(label: "DebounceTests.quiet")
    let upstream = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    let arrived = DispatchSemaphore(value: 0)
    subscriber.onValue { _ in arrived.signal() }
    upstream.debounce(for: .milliseconds(5), scheduler: queue).subscribe(subscriber)
    for value in 1...3 {
      upstream.send(value)
      #expect(arrived.wait(timeout: .now() + 5) == .success)
    }
    upstream.send(completion: .finished)
    // The finish goes through the queue, after what the queue already holds.
    queue.sync {}
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func onARealQueueACancelStopsTheTimer() {
    let queue = DispatchQueue(label: "DebounceTests.cancel")
    let upstream = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.debounce(for: .milliseconds(10), scheduler: queue).subscribe(subscriber)
    upstream.send(1)
    subscriber.cancel()
    waitOnTheClock(of: queue, for: .milliseconds(50))
    #expect(subscriber.events == [.subscription])
  }
}

/// Returns once `queue` has run an action scheduled `interval` from now: a wait on the real
/// clock that leaves the queue free to run what is due meanwhile.
private func waitOnTheClock(of queue: DispatchQueue, for interval: DispatchTimeInterval) {
  let elapsed = DispatchSemaphore(value: 0)
  queue.asyncAfter(deadline: .now() + interval) { elapsed.signal() }
  elapsed.wait()
}

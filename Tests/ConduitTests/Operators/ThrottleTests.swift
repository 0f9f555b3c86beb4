import ConduitTesting
import Dispatch
import Testing

@testable import Conduit

/// `throttle` in virtual time, on `DispatchQueue.test`, and in a few integration tests with
/// generous bounds on a real `DispatchQueue`.
@Suite(.leakChecked)
struct ThrottleTests {
  @Test func marblesTheFirstElementAtOnceThenOnePerIntervalTheLatestOrTheFirst() {
    let scheduler = DispatchQueue.test
    let frame: DispatchQueue.SchedulerTimeType.Stride = .milliseconds(100)
    let values: [Character: Int] = ["a": 1, "b": 2, "c": 3, "d": 4, "e": 5]
    let scrolls = scheduler.cold("-abc-d---e|", values: values, frame: frame)
    let latest = scrolls.throttle(for: .milliseconds(300), scheduler: scheduler, latest: true)
    let first = scrolls.throttle(for: .milliseconds(300), scheduler: scheduler, latest: false)
    #expect(scheduler.marbles(of: latest, values: values, frame: frame, frames: 15) == "-a--c--d--(e|)")
    #expect(scheduler.marbles(of: first, values: values, frame: frame, frames: 15) == "-a--b--d--(e|)")
  }

  /// Sends -1 at 0, 1 at 100, 2 at 200, 3 at 600, 4 at 700, 5 at 900 and 6 at 1200 ms through a
  /// throttle of 500 ms, and returns what went out.
  private func throttledScript(latest: Bool) -> [Int] {
    let scheduler = DispatchQueue.test
    let start = scheduler.now
    let upstream = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.throttle(for: .milliseconds(500), scheduler: scheduler, latest: latest).subscribe(subscriber)
    for (value, time) in [(-1, 0), (1, 100), (2, 200), (3, 600), (4, 700), (5, 900), (6, 1200)] {
      scheduler.advance(to: start.advanced(by: .milliseconds(time)))
      upstream.send(value)
    }
    scheduler.advance(by: .seconds(1))
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
    return subscriber.values
  }

  @Test func theFirstElementOfEachIntervalGoesOut() {
    #expect(throttledScript(latest: false) == [-1, 1, 3, 6])
  }

  @Test func theLatestElementOfEachIntervalGoesOut() {
    #expect(throttledScript(latest: true) == [-1, 2, 5, 6])
  }

  @Test func theFirstElementGoesOutOnTheSchedulersNextTurn() {
    let scheduler = DispatchQueue.test
    let upstream = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(subscriber)
    upstream.send(1)
    #expect(subscriber.values.isEmpty)
    scheduler.advance()
    #expect(subscriber.values == [1])
    subscriber.cancel()
  }

  @Test func theElementWaitingGoesOutBeforeTheFinish() {
    let scheduler = DispatchQueue.test
    let upstream = PassthroughSubject<Int, Oops>()
    let subscriber = TestSubscriber<Int, Oops>()
    upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(subscriber)
    upstream.send(1)
    scheduler.advance()
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(subscriber.values == [1])
    scheduler.advance(by: .seconds(1))
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion == .finished)
  }

  @Test func aFailureWithNothingWaitingGoesOutOnTheNextTurn() {
    let scheduler = DispatchQueue.test
    let upstream = PassthroughSubject<Int, Oops>()
    let subscriber = TestSubscriber<Int, Oops>()
    upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: false).subscribe(subscriber)
    upstream.send(completion: .failure(Oops()))
    #expect(subscriber.completion == nil)
    scheduler.advance()
    #expect(subscriber.completion == .failure(Oops()))
  }

  @Test func anElementWithoutDemandIsDropped() {
    let scheduler = DispatchQueue.test
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: false).subscribe(subscriber)
    #expect(upstream.link?.requests == [.unlimited])
    upstream.send(1)
    scheduler.advance(by: .seconds(2))
    upstream.send(2)
    scheduler.advance(by: .seconds(2))
    #expect(subscriber.values == [1])
    subscriber.request(.max(1))
    upstream.send(3)
    scheduler.advance(by: .seconds(2))
    #expect(subscriber.values == [1, 3])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func aCancelCancelsTheUpstreamAndTheWaitingElementNeverGoesOut() {
    let scheduler = DispatchQueue.test
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(subscriber)
    upstream.send(1)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    scheduler.advance(by: .seconds(2))
    #expect(subscriber.events.count == 1)
  }

  @Test func aSubscriberMaySendToTheUpstreamFromInsideADelivery() {
    // As in Combine's suite (ThrottleTests.testReceiveInputRecursively), on the immediate
    // scheduler, whose interval is zero.
    let upstream = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { value in
      if value > -5 { upstream.send(value - 1) }
    }
    upstream.throttle(for: .seconds(60), scheduler: ImmediateScheduler.shared, latest: true).subscribe(subscriber)
    upstream.send(0)
    #expect(subscriber.values == [0, -1, -2, -3, -4, -5])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  // MARK: On a real DispatchQueue

  @Test func onARealQueueTheFirstElementGoesOutWithoutWaitingForTheInterval() {
    let queue = DispatchQueue(label: "ThrottleTests.first")
    let upstream = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    let firstArrived = DispatchSemaphore(value: 0)
    subscriber.onValue { if $0 == 1 { firstArrived.signal() } }
    upstream.throttle(for: .seconds(10), scheduler: queue, latest: false).subscribe(subscriber)
    for value in 1...3 { upstream.send(value) }
    // Well before the interval is over.
    #expect(firstArrived.wait(timeout: .now() + 5) == .success)
    queue.sync {}
    #expect(subscriber.values == [1])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func onARealQueueWithLatestTheLastElementOfABurstGoesOutAfterTheFirst() {
    let queue = DispatchQueue(label: "ThrottleTests.latest")
    let upstream = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    let arrived = DispatchSemaphore(value: 0)
    subscriber.onValue { if $0 == 1 || $0 == 10 { arrived.signal() } }
    upstream.throttle(for: .milliseconds(50), scheduler: queue, latest: true).subscribe(subscriber)
    upstream.send(1)
    #expect(arrived.wait(timeout: .now() + 5) == .success)
    for value in 2...10 { upstream.send(value) }
    #expect(arrived.wait(timeout: .now() + 5) == .success)
    upstream.send(completion: .finished)
    queue.sync {}
    // How many of the burst go out depends on the machine; the first and the last always do.
    let values = subscriber.values
    #expect(values.first == 1)
    #expect(values.last == 10)
    #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 })
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }
}

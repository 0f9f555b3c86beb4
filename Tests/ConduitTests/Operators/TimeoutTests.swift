import ConduitTesting
import Dispatch
import Testing

@testable import Conduit

/// `timeout` in virtual time, on `DispatchQueue.test`, and in a few integration tests with
/// generous bounds on a real `DispatchQueue`.
@Suite(.leakChecked)
struct TimeoutTests {
  @Test func marblesAQuietIntervalCountedFromTheLastElementEndsTheStream() {
    let scheduler = DispatchQueue.test
    let frame: DispatchQueue.SchedulerTimeType.Stride = .milliseconds(100)
    let values: [Character: Int] = ["a": 1, "b": 2]
    let slow = scheduler.cold("-a-b------|", values: values, failure: Oops(), frame: frame)
    let failing = slow.timeout(.milliseconds(300), scheduler: scheduler, customError: { Oops() })
    let finishing = slow.timeout(.milliseconds(300), scheduler: scheduler)
    #expect(scheduler.marbles(of: failing, values: values, frame: frame, frames: 15) == "-a-b--#")
    #expect(scheduler.marbles(of: finishing, values: values, frame: frame, frames: 15) == "-a-b--|")
  }

  @Test func aQuietIntervalFailsWithTheCustomErrorAndCancelsTheUpstream() {
    let scheduler = DispatchQueue.test
    let upstream = HandDrivenUpstream<Int, Oops>()
    let subscriber = TestSubscriber<Int, Oops>()
    upstream.timeout(.seconds(5), scheduler: scheduler, customError: { Oops() }).subscribe(subscriber)
    scheduler.advance(by: .seconds(4))
    upstream.send(1)
    scheduler.advance()
    #expect(subscriber.values == [1])
    // The element restarted the clock.
    scheduler.advance(by: .seconds(4))
    #expect(subscriber.completion == nil)
    scheduler.advance(by: .seconds(1))
    #expect(subscriber.completion == .failure(Oops()))
    #expect(upstream.link?.isCancelled == true)
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func withoutACustomErrorItFinishes() {
    let scheduler = DispatchQueue.test
    let upstream = PassthroughSubject<Int, Oops>()
    let subscriber = TestSubscriber<Int, Oops>()
    upstream.timeout(.seconds(1), scheduler: scheduler).subscribe(subscriber)
    scheduler.advance(by: .seconds(1))
    #expect(subscriber.completion == .finished)
  }

  @Test func elementsAndTheCompletionGoOutThroughTheSchedulerInOrder() {
    let scheduler = DispatchQueue.test
    let upstream = PassthroughSubject<Int, Oops>()
    let subscriber = TestSubscriber<Int, Oops>()
    upstream.timeout(.seconds(1), scheduler: scheduler).subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .failure(Oops()))
    #expect(subscriber.events.count == 1)
    scheduler.advance()
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion == .failure(Oops()))
    // The completion stopped the clock.
    scheduler.advance(by: .seconds(2))
    #expect(subscriber.events.count == 4)
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func aBurstOfAHundredElementsKeepsOneTimer() {
    let scheduler = DispatchQueue.test
    let upstream = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.timeout(.milliseconds(300), scheduler: scheduler).subscribe(subscriber)
    for value in 1...100 {
      upstream.send(value)
    }
    // One timer, and one delivery per element (Combine delivers each element on the scheduler).
    #expect(scheduler.scheduledActionCount == 101)
    scheduler.advance()
    #expect(subscriber.values == Array(1...100))
    subscriber.cancel()
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func demandGoesStraightToTheUpstreamAndTheFirstRequestRestartsTheClock() {
    let scheduler = DispatchQueue.test
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none, demandPerValue: .max(1))
    upstream.timeout(.seconds(1), scheduler: scheduler).subscribe(subscriber)
    scheduler.advance(by: .milliseconds(900))
    subscriber.request(.max(1))
    #expect(upstream.link?.requests == [.max(1)])
    scheduler.advance(by: .milliseconds(900))
    #expect(subscriber.completion == nil)
    upstream.send(1)
    scheduler.advance()
    #expect(subscriber.values == [1])
    // The demand the element returned goes to the upstream.
    #expect(upstream.link?.requests == [.max(1), .max(1)])
    scheduler.advance(by: .seconds(1))
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aCancelStopsTheTimerAndTheDeliveriesInFlight() {
    let scheduler = DispatchQueue.test
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.timeout(.seconds(1), scheduler: scheduler, customError: nil).subscribe(subscriber)
    upstream.send(1)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    scheduler.advance(by: .seconds(2))
    #expect(subscriber.events.count == 1)
  }

  @Test func onTheImmediateSchedulerItTimesOutAtOnceInsteadOfCrashing() {
    let upstream = HandDrivenUpstream<Int, Oops>()
    let subscriber = TestSubscriber<Int, Oops>()
    upstream.timeout(.seconds(1), scheduler: ImmediateScheduler.shared, customError: { Oops() })
      .subscribe(subscriber)
    #expect(subscriber.events.count == 2)
    #expect(subscriber.completion == .failure(Oops()))
    #expect(upstream.link?.isCancelled == true)
  }

  @Test func aSubscriberMayCancelFromInsideADelivery() {
    let scheduler = DispatchQueue.test
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { _ in subscriber.cancel() }
    upstream.timeout(.seconds(1), scheduler: scheduler).subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    scheduler.advance()
    #expect(subscriber.values == [1])
    #expect(upstream.link?.isCancelled == true)
  }

  // MARK: On a real DispatchQueue

  @Test func onARealQueueASilentUpstreamFailsWithTheCustomErrorOnceTheIntervalHasPassed() {
    let queue = DispatchQueue(label: "TimeoutTests.silent")
    let upstream = PassthroughSubject<Int, Oops>()
    let subscriber = TestSubscriber<Int, Oops>()
    let completed = DispatchSemaphore(value: 0)
    let start = DispatchTime.now()
    upstream.timeout(.milliseconds(10), scheduler: queue, customError: { Oops() })
      .handleEvents(receiveCompletion: { _ in completed.signal() })
      .subscribe(subscriber)
    #expect(completed.wait(timeout: .now() + 5) == .success)
    let elapsed = DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds
    #expect(elapsed >= 10_000_000)
    // The completion reaches the subscriber on the queue, right after the signal.
    queue.sync {}
    #expect(subscriber.events == [.subscription, .completion(.failure(Oops()))])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func onARealQueueValuesFasterThanTheIntervalKeepItFromFiring() {
    let queue = DispatchQueue(label: "TimeoutTests.values")
    let sender = DispatchQueue(label: "TimeoutTests.sender")
    let upstream = PassthroughSubject<Int, Oops>()
    let subscriber = TestSubscriber<Int, Oops>()
    let completed = DispatchSemaphore(value: 0)
    upstream.timeout(.seconds(1), scheduler: queue, customError: { Oops() })
      .handleEvents(receiveCompletion: { _ in completed.signal() })
      .subscribe(subscriber)
    // One value every 5 ms for 100 ms, then the finish: the gaps stay far below the interval.
    let start = DispatchTime.now()
    for value in 0..<20 {
      sender.asyncAfter(deadline: start + .milliseconds(5 * value)) { upstream.send(value) }
    }
    sender.asyncAfter(deadline: start + .milliseconds(100)) { upstream.send(completion: .finished) }
    #expect(completed.wait(timeout: .now() + 5) == .success)
    queue.sync {}
    #expect(subscriber.values == Array(0..<20))
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func onARealQueueACancelStopsTheTimer() {
    let queue = DispatchQueue(label: "TimeoutTests.cancel")
    let upstream = PassthroughSubject<Int, Oops>()
    let subscriber = TestSubscriber<Int, Oops>()
    upstream.timeout(.milliseconds(10), scheduler: queue, customError: { Oops() }).subscribe(subscriber)
    subscriber.cancel()
    let elapsed = DispatchSemaphore(value: 0)
    queue.asyncAfter(deadline: .now() + .milliseconds(50)) { elapsed.signal() }
    elapsed.wait()
    #expect(subscriber.events == [.subscription])
  }
}

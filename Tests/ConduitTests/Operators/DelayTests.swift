import ConduitTesting
import Dispatch
import Testing

@testable import Conduit

@Suite(.leakChecked)
struct DelayTests {
  @Test func marblesElementsAndTheCompletionAFailureTooComeOneIntervalLater() {
    let scheduler = DispatchQueue.test
    let frame: DispatchQueue.SchedulerTimeType.Stride = .milliseconds(100)
    let values: [Character: Int] = ["a": 1, "b": 2]
    let finishing = scheduler.cold("-a(ab)|", values: values, frame: frame)
    let failing = scheduler.cold("ab#", values: values, failure: Oops(), frame: frame)
    let delay = DispatchQueue.SchedulerTimeType.Stride.milliseconds(200)
    #expect(
      scheduler.marbles(of: finishing.delay(for: delay, scheduler: scheduler), values: values, frame: frame, frames: 10)
        == "---a(ab)|")
    #expect(
      scheduler.marbles(of: failing.delay(for: delay, scheduler: scheduler), values: values, frame: frame, frames: 10)
        == "--ab#")
  }

  @Test func everyValueAndTheCompletionAreShiftedByTheInterval() {
    let scheduler = DispatchQueue.test
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.delay(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
    #expect(subscriber.subscriptionCount == 1)
    subject.send(1)
    scheduler.advance(by: .milliseconds(500))
    subject.send(2)
    subject.send(completion: .finished)
    scheduler.advance(by: .milliseconds(499))
    #expect(subscriber.values.isEmpty)
    scheduler.advance(by: .milliseconds(1))
    #expect(subscriber.values == [1])
    scheduler.advance(by: .milliseconds(499))
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == nil)
    scheduler.advance(by: .milliseconds(1))
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion?.isFinished == true)
  }

  @Test func aFailureIsDelayedToo() {
    let scheduler = DispatchQueue.test
    let subject = PassthroughSubject<Int, Oops>()
    let subscriber = TestSubscriber<Int, Oops>()
    subject.delay(for: .seconds(2), scheduler: scheduler).subscribe(subscriber)
    subject.send(completion: .failure(Oops()))
    scheduler.advance(by: .seconds(1))
    #expect(subscriber.completion == nil)
    scheduler.advance(by: .seconds(1))
    #expect(subscriber.completion?.isFinished == false)
  }

  @Test func demandIsPassedThrough() {
    let scheduler = DispatchQueue.test
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: .max(3))
    upstream.delay(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
    #expect(upstream.events == [.requested(.max(2))])
    upstream.send(1)
    scheduler.advance(by: .seconds(1))
    #expect(upstream.events == [.requested(.max(2)), .requested(.max(3))])
    subscriber.cancel()
    upstream.detach()
  }

  @Test func cancelStopsWhatIsPendingAndReleasesTheSubscriber() {
    let scheduler = DispatchQueue.test
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.delay(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
    subject.send(1)
    subscriber.cancel()
    scheduler.advance(by: .seconds(2))
    #expect(subscriber.values.isEmpty)
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func itNeitherDescribesNorReflectsItselfAsCombine() throws {
    let scheduler = DispatchQueue.test
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.delay(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
    let subscription = try #require(subscriber.subscription)
    #expect(!(subscription is any CustomStringConvertible))
    #expect(!(subscription is any CustomReflectable))
    #expect(!(subscription is any CustomPlaygroundDisplayConvertible))
    subscriber.cancel()
  }
}

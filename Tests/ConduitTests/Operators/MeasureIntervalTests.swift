import ConduitTesting
import Dispatch
import Testing

@testable import Conduit

@Suite(.leakChecked)
struct MeasureIntervalTests {
  @Test func emitsTheTimeSinceThePreviousValueTheFirstSinceTheSubscription() {
    let scheduler = DispatchQueue.test
    let subject = PassthroughSubject<String, Oops>()
    let subscriber = TestSubscriber<DispatchQueue.SchedulerTimeType.Stride, Oops>()
    subject.measureInterval(using: scheduler).subscribe(subscriber)
    scheduler.advance(by: .milliseconds(300))
    subject.send("a")
    scheduler.advance(by: .seconds(2))
    subject.send("b")
    subject.send("c")
    #expect(subscriber.values == [.milliseconds(300), .seconds(2), .zero])
    subject.send(completion: .failure(Oops()))
    #expect(subscriber.completion?.isFinished == false)
    #expect(scheduler.scheduledActionCount == 0)
  }

  @Test func demandTheSubscriberReturnsIsRequestedOfUpstream() {
    let scheduler = DispatchQueue.test
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<DispatchQueue.SchedulerTimeType.Stride, Never>(
      initialDemand: .max(1), demandPerValue: .max(2))
    upstream.measureInterval(using: scheduler).subscribe(subscriber)
    #expect(upstream.send(1) == .none)
    #expect(upstream.events == [.requested(.max(1)), .requested(.max(2))])
    subscriber.cancel()
    #expect(upstream.events.last == .cancelled)
    #expect(upstream.send(2) == .none)
    #expect(subscriber.values.count == 1)
    upstream.detach()
  }
}

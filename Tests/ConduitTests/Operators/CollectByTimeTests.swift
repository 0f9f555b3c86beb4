import ConduitTesting
import Dispatch
import Testing

@testable import Conduit

@Suite(.leakChecked)
struct CollectByTimeTests {
  @Test func marblesEachTickPublishesWhatCameSinceTheLastAndTheFinishFlushesTheRest() {
    let scheduler = DispatchQueue.test
    let frame: DispatchQueue.SchedulerTimeType.Stride = .milliseconds(100)
    let clicks = scheduler.cold("-ab-c--d|", values: ["a": 1, "b": 2, "c": 3, "d": 4], frame: frame)
    let groups = clicks.collect(.byTime(scheduler, .milliseconds(300)))
    #expect(
      scheduler.marbles(of: groups, values: ["x": [1, 2], "y": [3], "z": [4]], frame: frame, frames: 15)
        == "---x--y-(z|)")
  }

  @Test func publishesWhatArrivedInEachWindow() {
    let scheduler = DispatchQueue.test
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<[Int], Never>()
    subject.collect(.byTime(scheduler, .seconds(1))).subscribe(subscriber)
    subject.send(1)
    subject.send(2)
    scheduler.advance(by: .seconds(1))
    #expect(subscriber.values == [[1, 2]])
    // An empty window publishes nothing.
    scheduler.advance(by: .seconds(1))
    #expect(subscriber.values == [[1, 2]])
    subject.send(3)
    subject.send(completion: .finished)
    #expect(subscriber.values == [[1, 2], [3]])
    #expect(subscriber.completion?.isFinished == true)
    // The finished stream stopped its timer.
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func byTimeOrCountPublishesAFullGroupAtOnce() {
    let scheduler = DispatchQueue.test
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<[Int], Never>(initialDemand: .max(2))
    upstream.collect(.byTimeOrCount(scheduler, .seconds(1), 3)).subscribe(subscriber)
    #expect(upstream.events == [.requested(.max(6))])
    for value in 1...4 { upstream.send(value) }
    #expect(subscriber.values == [[1, 2, 3]])
    scheduler.advance(by: .seconds(1))
    #expect(subscriber.values == [[1, 2, 3], [4]])
    subscriber.cancel()
    #expect(upstream.events.last == .cancelled)
    #expect(scheduler.pendingActionCount == 0)
    upstream.detach()
  }

  @Test func aFailureDropsWhatWasCollected() {
    let scheduler = DispatchQueue.test
    let subject = PassthroughSubject<Int, Oops>()
    let subscriber = TestSubscriber<[Int], Oops>()
    subject.collect(.byTime(scheduler, .seconds(1))).subscribe(subscriber)
    subject.send(1)
    subject.send(completion: .failure(Oops()))
    #expect(subscriber.values.isEmpty)
    #expect(subscriber.completion?.isFinished == false)
  }

  @Test func groupsWaitForDemand() {
    let scheduler = DispatchQueue.test
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<[Int], Never>(initialDemand: .none)
    subject.collect(.byTime(scheduler, .seconds(1))).subscribe(subscriber)
    subject.send(1)
    scheduler.advance(by: .seconds(1))
    subject.send(2)
    scheduler.advance(by: .seconds(1))
    #expect(subscriber.values.isEmpty)
    subscriber.request(.max(1))
    #expect(subscriber.values == [[1]])
    subscriber.request(.max(1))
    #expect(subscriber.values == [[1], [2]])
    subscriber.cancel()
  }
}

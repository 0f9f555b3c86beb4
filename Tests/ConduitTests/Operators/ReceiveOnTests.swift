import ConduitTesting
import Dispatch
import Testing

@testable import Conduit

@Suite(.leakChecked)
struct ReceiveOnTests {
  @Test func valuesAndTheCompletionGoDownWhenTheSchedulerRunsThemInOrder() {
    let scheduler = DispatchQueue.test
    let subject = PassthroughSubject<Int, Oops>()
    let subscriber = TestSubscriber<Int, Oops>()
    subject.receive(on: scheduler).subscribe(subscriber)
    // The subscription goes down on the subscribing thread.
    #expect(subscriber.subscriptionCount == 1)
    subject.send(1)
    subject.send(2)
    subject.send(completion: .finished)
    #expect(subscriber.values.isEmpty)
    #expect(scheduler.scheduledActionCount == 3)
    scheduler.advance()
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion?.isFinished == true)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aFailureGoesThroughTheSchedulerToo() {
    let scheduler = DispatchQueue.test
    let subject = PassthroughSubject<Int, Oops>()
    let subscriber = TestSubscriber<Int, Oops>()
    subject.receive(on: scheduler).subscribe(subscriber)
    subject.send(completion: .failure(Oops()))
    #expect(subscriber.completion == nil)
    scheduler.advance()
    #expect(subscriber.completion?.isFinished == false)
  }

  @Test func demandGoesStraightUpstreamAndWhatTheSubscriberReturnsIsRequested() {
    let scheduler = DispatchQueue.test
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    upstream.receive(on: scheduler).subscribe(subscriber)
    #expect(upstream.events == [.requested(.max(1))])
    #expect(upstream.send(7) == .none)
    #expect(upstream.events == [.requested(.max(1))])
    scheduler.advance()
    #expect(subscriber.values == [7])
    #expect(upstream.events == [.requested(.max(1)), .requested(.max(1))])
    subscriber.cancel()
    #expect(upstream.events.last == .cancelled)
    upstream.detach()
  }

  @Test func cancelCancelsUpstreamAtOnceAndNothingScheduledGoesDownAfterIt() {
    let scheduler = DispatchQueue.test
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.receive(on: scheduler).subscribe(subscriber)
    subject.send(1)
    subscriber.cancel()
    subject.send(2)
    scheduler.advance()
    #expect(subscriber.values.isEmpty)
    #expect(subscriber.completion == nil)
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func aSubscriberThatCancelsInsideReceiveGetsNothingMore() {
    let scheduler = DispatchQueue.test
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { _ in subscriber.cancel() }
    subject.receive(on: scheduler).subscribe(subscriber)
    subject.send(1)
    subject.send(2)
    scheduler.advance()
    #expect(subscriber.values == [1])
  }

  @Test func runsOnTheGivenQueue() {
    let queue = DispatchQueue(label: "receive-on-tests")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 7)
    let done = DispatchSemaphore(value: 0)
    let seen = Locked<[Int?]>([])
    let cancellable = [1, 2, 3].publisher.receive(on: queue).sink { _ in
      done.signal()
    } receiveValue: { _ in
      seen.withLock { $0.append(DispatchQueue.getSpecific(key: key)) }
    }
    #expect(done.wait(timeout: .now() + 10) == .success)
    #expect(seen.withLock { $0 } == [7, 7, 7])
    cancellable.cancel()
  }

  @Test func valuesFromManyThreadsArriveOneAtATime() {
    let queue = DispatchQueue(label: "receive-on-tests.concurrent", attributes: .concurrent)
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.receive(on: queue).subscribe(subscriber)
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      for value in 0..<250 { subject.send(thread * 1000 + value) }
    }
    let drained = DispatchSemaphore(value: 0)
    queue.async(flags: .barrier) { drained.signal() }
    #expect(drained.wait(timeout: .now() + 10) == .success)
    #expect(subscriber.values.count == 1000)
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func itDescribesItselfAsCombineDoes() {
    let scheduler = DispatchQueue.test
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.receive(on: scheduler).subscribe(subscriber)
    let subscription = subscriber.subscription
    #expect(subscription.map { String(describing: $0) } == "ReceiveOn")
    #expect(subscription.map { Mirror(reflecting: $0).children.count } == 0)
    subscriber.cancel()
  }
}

import ConduitTesting
import Dispatch
import Testing

@testable import Conduit

@Suite(.leakChecked)
struct SubscribeOnTests {
  @Test func theSubscriptionRequestsAndCancelHappenOnTheScheduler() {
    let scheduler = DispatchQueue.test
    let upstream = RecordingUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    upstream.subscribe(on: scheduler).subscribe(subscriber)
    #expect(upstream.subscriptionCount == 0)
    scheduler.advance()
    #expect(upstream.subscriptionCount == 1)
    #expect(subscriber.subscriptionCount == 1)
    // The first request, made from inside `receive(subscription:)`, was scheduled in the same
    // window and ran in the same `advance`.
    #expect(upstream.events == [.requested(.max(2))])
    #expect(scheduler.scheduledActionCount == 2)
    subscriber.cancel()
    #expect(upstream.events == [.requested(.max(2))])
    scheduler.advance()
    #expect(upstream.events == [.requested(.max(2)), .cancelled])
    upstream.detach()
  }

  @Test func valuesAndTheCompletionPassStraightThrough() {
    let scheduler = DispatchQueue.test
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.subscribe(on: scheduler).subscribe(subscriber)
    scheduler.advance()
    subject.send(1)
    #expect(subscriber.values == [1])
    subject.send(completion: .finished)
    #expect(subscriber.completion?.isFinished == true)
    subject.send(2)
    #expect(subscriber.values == [1])
  }

  @Test func subscribesOnTheGivenQueue() {
    let queue = DispatchQueue(label: "subscribe-on-tests")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 3)
    let done = DispatchSemaphore(value: 0)
    let seen = Locked<Int?>(nil)
    let cancellable = Deferred { () -> Just<Int> in
      seen.withLock { $0 = DispatchQueue.getSpecific(key: key) }
      return Just(1)
    }
    .subscribe(on: queue)
    .sink { _ in done.signal() } receiveValue: { _ in }
    #expect(done.wait(timeout: .now() + 10) == .success)
    #expect(seen.withLock { $0 } == 3)
    cancellable.cancel()
  }
}

import ConduitTesting
import Dispatch
import Testing

@testable import Conduit

@Suite(.leakChecked)
struct SubscribeOnTests {
  @Test func theSubscriptionRequestsAndCancelHappenOnTheScheduler() {
    let scheduler = DispatchQueue.test
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
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

  // A request that runs on the scheduler while the subscriber is still inside
  // `receive(subscription:)` (an immediate scheduler runs it at once, as a concurrent queue may
  // on another thread) is asked of the upstream only once that call has returned (DESIGN §2.3).
  @Test func aRequestThatRunsWhileTheSubscriberTakesItsSubscriptionWaitsForItToReturn() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    var insideReceiveSubscription = false
    var requestedInside = 0
    upstream.onRequest = { _ in if insideReceiveSubscription { requestedInside += 1 } }
    var downstreamSubscription: (any Subscription)?
    let subscriber = AnySubscriber<Int, Never>(
      receiveSubscription: { subscription in
        downstreamSubscription = subscription
        insideReceiveSubscription = true
        subscription.request(.max(2))
        subscription.request(.max(1))
        insideReceiveSubscription = false
      },
      receiveValue: { _ in .none },
      receiveCompletion: { _ in })
    upstream.subscribe(on: ImmediateScheduler.shared).subscribe(subscriber)
    #expect(requestedInside == 0)
    #expect(upstream.events == [.requested(.max(3))])
    downstreamSubscription?.request(.max(4))
    #expect(upstream.events == [.requested(.max(3)), .requested(.max(4))])
    downstreamSubscription?.cancel()
    downstreamSubscription = nil
    upstream.detach()
  }

  @Test func aSequenceOnAnImmediateSchedulerDeliversAfterReceiveSubscriptionReturns() {
    var inside = false
    var arrivedInside = 0
    var values: [Int] = []
    let subscriber = AnySubscriber<Int, Never>(
      receiveSubscription: { subscription in
        inside = true
        subscription.request(.unlimited)
        inside = false
      },
      receiveValue: { value in
        if inside { arrivedInside += 1 }
        values.append(value)
        return .none
      },
      receiveCompletion: { _ in })
    [1, 2, 3].publisher.subscribe(on: ImmediateScheduler.shared).subscribe(subscriber)
    #expect(arrivedInside == 0)
    #expect(values == [1, 2, 3])
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
    .sink { _ in
      done.signal()
    } receiveValue: { _ in
    }
    #expect(done.wait(timeout: .now() + 10) == .success)
    #expect(seen.withLock { $0 } == 3)
    cancellable.cancel()
  }
}

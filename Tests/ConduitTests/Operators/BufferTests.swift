import ConduitTesting
import Dispatch
import Testing

@testable import Conduit

private enum BufferTestError: Error, Equatable {
  case failed
  case full
}

private final class BufferProbe {}

@Suite(.leakChecked)
struct BufferTests {
  // MARK: Prefetching

  @Test func keepFullAsksTheUpstreamForTheBufferSizeAtSubscription() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.buffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest).subscribe(subscriber)
    #expect(upstream.link?.requests == [.max(3)])
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
  }

  @Test func byRequestAsksTheUpstreamForUnlimitedElementsAsCombineDoes() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.buffer(size: 3, prefetch: .byRequest, whenFull: .dropNewest).subscribe(subscriber)
    #expect(upstream.link?.requests == [.unlimited])
    subscriber.request(.max(2))
    #expect(upstream.link?.requests == [.unlimited])
    subscriber.cancel()
  }

  @Test func keepFullRefillsAsTheDownstreamDrains() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest).subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    #expect(upstream.link?.requests == [.max(2)])
    subscriber.request(.max(1))
    #expect(subscriber.values == [1])
    #expect(upstream.link?.requests == [.max(2), .max(1)])
    subscriber.request(.max(5))
    #expect(subscriber.values == [1, 2])
    #expect(upstream.link?.requests == [.max(2), .max(1), .max(1)])
    // With demand and an empty buffer, an element goes straight through and is replaced at once.
    #expect(upstream.send(3) == .max(1))
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func theUpstreamIsAskedBeforeTheDownstreamHasItsSubscription() {
    // A synchronous upstream fills the buffer before the downstream can ask for anything, as in
    // Combine: with `.byRequest` and a buffer of five, the rest of the elements are dropped.
    let byRequest = TestSubscriber<Int, Never>()
    (1...10).publisher.buffer(size: 5, prefetch: .byRequest, whenFull: .dropNewest).subscribe(byRequest)
    #expect(byRequest.values == [1, 2, 3, 4, 5])
    #expect(byRequest.completion == .finished)
    // With `.keepFull` the upstream is only asked for what fits, so nothing is lost.
    let keepFull = TestSubscriber<Int, Never>()
    (1...10).publisher.buffer(size: 5, prefetch: .keepFull, whenFull: .dropNewest).subscribe(keepFull)
    #expect(keepFull.values == Array(1...10))
    #expect(keepFull.completion == .finished)
    #expect(keepFull.violations.isEmpty)
  }

  // MARK: When full

  @Test func dropNewestKeepsTheOldestElements() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.buffer(size: 2, prefetch: .byRequest, whenFull: .dropNewest).subscribe(subscriber)
    for value in 1...4 { upstream.send(value) }
    subscriber.request(.max(5))
    #expect(subscriber.values == [1, 2])
    upstream.send(5)
    #expect(subscriber.values == [1, 2, 5])
    subscriber.cancel()
  }

  @Test func dropOldestKeepsTheNewestElements() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.buffer(size: 2, prefetch: .byRequest, whenFull: .dropOldest).subscribe(subscriber)
    for value in 1...4 { upstream.send(value) }
    subscriber.request(.max(5))
    #expect(subscriber.values == [3, 4])
    subscriber.cancel()
  }

  @Test func customErrorFailsAtOnceAndCancelsTheUpstream() {
    let upstream = HandDrivenPublisher<Int, BufferTestError>()
    let subscriber = TestSubscriber<Int, BufferTestError>(initialDemand: .none)
    var calls = 0
    upstream
      .buffer(
        size: 2, prefetch: .byRequest,
        whenFull: .customError {
          calls += 1
          return .full
        }
      )
      .subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    #expect(calls == 0)
    upstream.send(3)
    #expect(calls == 1)
    #expect(upstream.link?.isCancelled == true)
    // The failure is delivered at once; buffered elements are discarded.
    #expect(subscriber.events == [.subscription, .completion(.failure(.full))])
    subscriber.request(.max(3))
    #expect(subscriber.events.count == 2)
  }

  @Test func aBufferOfZeroAppliesTheStrategyToEveryHeldElement() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.buffer(size: 0, prefetch: .byRequest, whenFull: .dropOldest).subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    subscriber.request(.max(1))
    upstream.send(3)
    #expect(subscriber.values == [1, 3])
    subscriber.cancel()
  }

  // MARK: Completion

  @Test func finishesAfterTheBufferDrains() {
    let upstream = HandDrivenPublisher<Int, BufferTestError>()
    let subscriber = TestSubscriber<Int, BufferTestError>(initialDemand: .none)
    upstream.buffer(size: 5, prefetch: .keepFull, whenFull: .dropNewest).subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1)])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(upstream.link?.requests == [.max(5)])
  }

  @Test func finishesAtOnceWhenTheBufferIsEmpty() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Empty<Int, Never>().buffer(size: 5, prefetch: .byRequest, whenFull: .dropNewest).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func aFailureIsDeliveredAtOnceAndDiscardsTheBuffer() {
    let upstream = HandDrivenPublisher<Int, BufferTestError>()
    let subscriber = TestSubscriber<Int, BufferTestError>(initialDemand: .max(1))
    upstream.buffer(size: 5, prefetch: .byRequest, whenFull: .dropNewest).subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    upstream.send(3)
    upstream.send(completion: .failure(.failed))
    #expect(subscriber.events == [.subscription, .value(1), .completion(.failure(.failed))])
    subscriber.request(.max(5))
    #expect(subscriber.events.count == 3)
  }

  // MARK: Cancellation

  @Test func cancelCancelsTheUpstreamAndReleasesTheBufferedElements() {
    weak var weakProbe: BufferProbe?
    let upstream = HandDrivenPublisher<BufferProbe, Never>()
    let subscriber = TestSubscriber<BufferProbe, Never>(initialDemand: .none)
    upstream.buffer(size: 5, prefetch: .byRequest, whenFull: .dropNewest).subscribe(subscriber)
    do {
      let probe = BufferProbe()
      weakProbe = probe
      upstream.send(probe)
    }
    #expect(weakProbe != nil)
    subscriber.cancel()
    #expect(weakProbe == nil)
    #expect(upstream.link?.isCancelled == true)
    subscriber.request(.max(1))
    #expect(subscriber.values.isEmpty)
  }

  @Test func releasesTheCustomErrorClosureWhenItEnds() {
    weak var weakProbe: BufferProbe?
    let upstream = HandDrivenPublisher<Int, BufferTestError>()
    let subscriber = TestSubscriber<Int, BufferTestError>()
    do {
      let probe = BufferProbe()
      weakProbe = probe
      upstream.buffer(
        size: 1, prefetch: .byRequest,
        whenFull: .customError {
          _ = probe
          return .full
        }
      ).subscribe(subscriber)
    }
    upstream.send(completion: .finished)
    #expect(weakProbe == nil)
    #expect(subscriber.completion == .finished)
  }

  // MARK: Re-entrancy

  @Test func requestsFromInsideReceiveDrainTheBufferInOrder() {
    let count = 20_000
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none, demandPerValue: .max(1))
    upstream.buffer(size: count, prefetch: .byRequest, whenFull: .customError { fatalError("full") })
      .subscribe(subscriber)
    for value in 0..<count { upstream.send(value) }
    upstream.send(completion: .finished)
    subscriber.request(.max(1))
    #expect(subscriber.values == Array(0..<count))
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  /// A cancel, or a failure, lets go of the buffered values after the operator's lock: a value
  /// whose `deinit` cancels the same subscription stopped the process on the lock taken twice.
  @Test func bufferedValueMayCancelTheSubscriptionInItsDeinit() {
    struct Failed: Error {}
    for ending in ["cancel", "failure"] {
      let upstream = PassthroughSubject<DeinitProbe, Failed>()
      let holder = DeinitCancellingSubscriber<DeinitProbe, Failed>.Holder()
      upstream.buffer(size: 2, prefetch: .keepFull, whenFull: .dropOldest)
        .subscribe(DeinitCancellingSubscriber<DeinitProbe, Failed>(holder: holder))
      var cancelledInDeinit = false
      upstream.send(
        DeinitProbe {
          holder.subscription?.cancel()
          cancelledInDeinit = true
        })
      #expect(!cancelledInDeinit)
      if ending == "cancel" { holder.subscription?.cancel() } else { upstream.send(completion: .failure(Failed())) }
      #expect(cancelledInDeinit, "\(ending)")
      holder.subscription = nil
    }
  }
}

@Suite(.leakChecked(timeout: .seconds(3)))
struct BufferStressTests {
  @Test func aProducerAndAConsumerOnDifferentThreadsNeitherLoseNorOverlapValues() {
    let count = 50_000
    let upstream = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.buffer(size: count, prefetch: .byRequest, whenFull: .dropNewest).subscribe(subscriber)
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) {
      for value in 0..<count { upstream.send(value) }
      upstream.send(completion: .finished)
    }
    DispatchQueue.global().async(group: group) {
      for _ in 0..<(count / 10) { subscriber.request(.max(10)) }
    }
    group.wait()
    #expect(subscriber.values == Array(0..<count))
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }
}

/// The ring buffer behind `buffer` and the operators that hold values back.
@Suite(.leakChecked)
struct ValueQueueTests {
  @Test func keepsOrderAcrossWrapAroundAndGrowth() {
    var queue = ValueQueue<Int>()
    var expected: [Int] = []
    var popped: [Int] = []
    var next = 0
    // Uneven pushes and pops make the head wrap around and the storage grow while wrapped.
    for round in 0..<50 {
      for _ in 0..<(round % 7 + 1) {
        queue.append(next)
        expected.append(next)
        next += 1
      }
      for _ in 0..<(round % 5 + 1) {
        if let value = queue.popFirst() { popped.append(value) }
      }
      #expect(queue.count == expected.count - popped.count)
    }
    while let value = queue.popFirst() { popped.append(value) }
    #expect(popped == expected)
    #expect(queue.isEmpty)
    #expect(queue.popFirst() == nil)
  }

  @Test func releasesAPoppedElementAtOnce() {
    final class Token {}
    var queue = ValueQueue<Token>()
    weak var released: Token?
    do {
      let token = Token()
      released = token
      queue.append(token)
      queue.append(Token())
    }
    #expect(released != nil)
    _ = queue.popFirst()
    #expect(released == nil)
    queue.removeAll()
    #expect(queue.isEmpty)
  }
}

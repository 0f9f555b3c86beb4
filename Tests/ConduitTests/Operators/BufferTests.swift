import ConduitTesting
import Dispatch
import Testing

@testable import Conduit

private final class BufferProbe {}

@Suite(.leakChecked)
struct BufferTests {
  // As in Combine (BufferTests.testFailWhileSendingValues: a buffer delivers inside `request`),
  // a request from inside `receive(subscription:)` is answered at once: the lower buffer, still
  // handing down its own subscription, takes 0 and 1 from the upper one, then the 2 its refill
  // brings, dropping the oldest. Found by differential fuzzing (seed 15640).
  @Test func aRequestFromInsideReceiveSubscriptionIsAnsweredAtOnce() {
    let subscriber = TestSubscriber<Int, Never>()
    (0..<3).publisher
      .buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest)
      .buffer(size: 2, prefetch: .byRequest, whenFull: .dropOldest)
      .subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  // MARK: Prefetching

  @Test func keepFullAsksTheUpstreamForTheBufferSizeAtSubscription() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.buffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest).subscribe(subscriber)
    #expect(upstream.link?.requests == [.max(3)])
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
  }

  @Test func byRequestAsksTheUpstreamForUnlimitedElementsAsCombineDoes() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.buffer(size: 3, prefetch: .byRequest, whenFull: .dropNewest).subscribe(subscriber)
    #expect(upstream.link?.requests == [.unlimited])
    subscriber.request(.max(2))
    #expect(upstream.link?.requests == [.unlimited])
    subscriber.cancel()
  }

  @Test func keepFullRefillsAsTheDownstreamDrains() {
    let upstream = HandDrivenUpstream<Int, Never>()
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
    let upstream = HandDrivenUpstream<Int, Never>()
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
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.buffer(size: 2, prefetch: .byRequest, whenFull: .dropOldest).subscribe(subscriber)
    for value in 1...4 { upstream.send(value) }
    subscriber.request(.max(5))
    #expect(subscriber.values == [3, 4])
    subscriber.cancel()
  }

  // As in Combine (OpenCombine's BufferTests.swift `testBufferingInputFailingWhenBufferIsFull`):
  // the upstream is cancelled at once, the failure goes out at the next request, after the
  // buffered elements asked for.
  @Test func customErrorCancelsTheUpstreamAndFailsAfterTheBufferedElements() {
    let upstream = HandDrivenUpstream<Int, BufferTestError>()
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
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(3))
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.failure(.full))])
    subscriber.request(.max(1))
    #expect(subscriber.events.count == 4)
  }

  // DifferencesFromCombine §7: an upstream that fails during the buffer's initial request; Combine
  // sends the failure before the subscription, Conduit the subscription, the values asked for
  // from inside `receive(subscription:)`, then the failure.
  @Test func aFailureDuringTheInitialRequestComesAfterTheSubscriptionAndTheValuesAskedFor() {
    let subscriber = TestSubscriber<Int, BufferTestError>()
    [1, 2].publisher.setFailureType(to: BufferTestError.self).append(Fail(error: .full))
      .buffer(size: 5, prefetch: .byRequest, whenFull: .dropOldest)
      .subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.failure(.full))])
  }

  // As in Combine: an overflow during the buffer's initial request, before its subscriber has
  // asked for anything, fails at the first request, after the buffered elements it asks for.
  @Test func anOverflowBeforeAnyDemandFailsAtTheFirstRequest() {
    let subscriber = TestSubscriber<Int, BufferTestError>(initialDemand: .none)
    (2..<7).publisher.setFailureType(to: BufferTestError.self)
      .buffer(size: 3, prefetch: .byRequest, whenFull: .customError { .full })
      .subscribe(subscriber)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(2), .completion(.failure(.full))])
  }

  // As in Combine (OpenCombine's BufferTests.swift `testDeadlockWhenErroringOnFullBuffer`, where
  // a buffer of size zero makes its error at the first element despite the demand): a buffer of
  // size zero is always full, so every element meets the strategy.
  @Test func aBufferOfZeroIsAlwaysFull() {
    for whenFull in [Publishers.BufferingStrategy<BufferTestError>.dropOldest, .dropNewest] {
      let upstream = HandDrivenUpstream<Int, BufferTestError>()
      let subscriber = TestSubscriber<Int, BufferTestError>(initialDemand: .max(1))
      upstream.buffer(size: 0, prefetch: .byRequest, whenFull: whenFull).subscribe(subscriber)
      upstream.send(1)
      subscriber.request(.max(1))
      upstream.send(2)
      #expect(subscriber.values.isEmpty)
      subscriber.cancel()
    }
    let upstream = HandDrivenUpstream<Int, BufferTestError>()
    let subscriber = TestSubscriber<Int, BufferTestError>(initialDemand: .max(2))
    upstream.buffer(size: 0, prefetch: .keepFull, whenFull: .customError { .full }).subscribe(subscriber)
    #expect(upstream.link?.requests == [])
    upstream.send(1)
    #expect(upstream.link?.isCancelled == true)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .completion(.failure(.full))])
  }

  // MARK: Completion

  // As in Combine (OpenCombine's BufferTests.swift `testReceiveValueAfterFinishing`): the finish
  // goes out once the buffer is empty and the downstream has demand left, so after the last
  // element it waits for one more request; refills are asked of the upstream as it drains, as
  // Combine asks them, though it finished.
  @Test func finishesOnceTheBufferHasDrainedAndTheDownstreamAsks() {
    let upstream = HandDrivenUpstream<Int, BufferTestError>()
    let subscriber = TestSubscriber<Int, BufferTestError>(initialDemand: .none)
    upstream.buffer(size: 5, prefetch: .keepFull, whenFull: .dropNewest).subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1)])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .value(2)])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(upstream.link?.requests == [.max(5), .max(1), .max(1)])
  }

  // As in Combine (OpenCombine's BufferTests.swift `testReceiveValueAfterFinishing`): the finish
  // waits for demand, with an empty buffer too.
  @Test func aFinishWaitsForDemandEvenWithAnEmptyBuffer() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Empty<Int, Never>().buffer(size: 5, prefetch: .byRequest, whenFull: .dropNewest).subscribe(subscriber)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .completion(.finished)])
    let unlimited = TestSubscriber<Int, Never>()
    Empty<Int, Never>().buffer(size: 5, prefetch: .byRequest, whenFull: .dropNewest).subscribe(unlimited)
    #expect(unlimited.events == [.subscription, .completion(.finished)])
  }

  @Test func aFailureIsDeliveredAtOnceAndDiscardsTheBuffer() {
    let upstream = HandDrivenUpstream<Int, BufferTestError>()
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
    let upstream = HandDrivenUpstream<BufferProbe, Never>()
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
    let upstream = HandDrivenUpstream<Int, BufferTestError>()
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
    let upstream = HandDrivenUpstream<Int, Never>()
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

  /// `.keepFull` asks upstream for `size` before the downstream has its subscription, returns
  /// `.max(1)` for a value passed straight on, and requests as many as it hands out of the
  /// buffer; `.byRequest` asks for `.unlimited` once and never again.
  /// Evidence: OpenCombine Tests/OpenCombineTests/PublisherTests/BufferTests.swift
  /// `testInitialDemandWithByRequestPrefetchStrategy`, `testRequestingFiniteDemand`,
  /// `testRequestingUnlimitedDemand`.
  @Test func bufferDemandForBothPrefetchStrategies() {
    let full = HandDrivenUpstream<Int, Never>()
    let fullSubscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    full.buffer(size: 5, prefetch: .keepFull, whenFull: .dropNewest).subscribe(fullSubscriber)
    #expect(full.link?.requests == [.max(5)])
    for value in 0..<10 { #expect(full.send(value) == .none) }
    fullSubscriber.request(.max(3))
    fullSubscriber.request(.max(1))
    #expect(fullSubscriber.values == [0, 1, 2, 3])
    #expect(full.link?.requests == [.max(5), .max(3), .max(1)])
    fullSubscriber.cancel()

    let passing = HandDrivenUpstream<Int, Never>()
    let passingSubscriber = TestSubscriber<Int, Never>()
    passing.buffer(size: 5, prefetch: .keepFull, whenFull: .dropOldest).subscribe(passingSubscriber)
    for value in 0..<3 { #expect(passing.send(value) == .max(1)) }
    #expect(passing.link?.requests == [.max(5)])
    passingSubscriber.cancel()

    let byRequest = HandDrivenUpstream<Int, Never>()
    let byRequestSubscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    byRequest.buffer(size: 5, prefetch: .byRequest, whenFull: .dropOldest).subscribe(byRequestSubscriber)
    #expect(byRequest.link?.requests == [.unlimited])
    for value in 0..<10 { #expect(byRequest.send(value) == .none) }
    byRequestSubscriber.request(.max(3))
    byRequestSubscriber.request(.max(1))
    #expect(byRequestSubscriber.values == [5, 6, 7, 8])
    #expect(byRequest.link?.requests == [.unlimited])
    byRequestSubscriber.cancel()
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
    // The finish waits for demand beyond the last element, as in Combine.
    subscriber.request(.max(1))
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }
}

// MARK: As Combine (OpenCombine's BufferTests.swift)

extension BufferTests {
  // `testRecursion…`, `testRequestingFiniteDemand…`: a request for nothing is accepted; with a
  // failure waiting and no demand, it lets the failure out.
  @Test func aRequestForNothingIsAccepted() {
    let upstream = HandDrivenUpstream<Int, BufferTestError>()
    let subscriber = TestSubscriber<Int, BufferTestError>(initialDemand: .none)
    upstream.buffer(size: 1, prefetch: .byRequest, whenFull: .customError { .full }).subscribe(subscriber)
    subscriber.request(.none)
    upstream.send(1)
    subscriber.request(.none)
    #expect(subscriber.events == [.subscription])
    upstream.send(2)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.none)
    #expect(subscriber.events == [.subscription, .completion(.failure(.full))])
    #expect(subscriber.violations.isEmpty)
  }

  // `testRequestingFiniteDemandKeepFullCustomError`: the refill that follows the last elements is
  // asked of the upstream, though the overflow cancelled it, as Combine asks it.
  @Test func keepFullRefillsAfterTheOverflowAsCombineDoes() {
    let upstream = HandDrivenUpstream<Int, BufferTestError>(conduct: .careless)
    let subscriber = RecordingSubscriber<Int, BufferTestError>()
    upstream.buffer(size: 2, prefetch: .keepFull, whenFull: .customError { .full }).subscribe(subscriber)
    for value in 0..<4 { #expect(upstream.send(value) == .none) }
    #expect(upstream.events == [.requested(.max(2)), .cancelled])
    subscriber.subscription?.request(.max(3))
    subscriber.subscription?.request(.max(1))
    #expect(subscriber.history == ["subscription(Buffer)", "value(0)", "value(1)", "failure(full)"])
    #expect(upstream.events == [.requested(.max(2)), .cancelled, .requested(.max(2))])
    upstream.detach()
    subscriber.forget()
  }

  // `testReceiveValueAfterFinishing`, `testReceiveValueAfterFailing`: an element that comes after
  // the upstream finished goes out before the finish; after a failure, nothing is taken.
  @Test func anElementAfterTheFinishGoesOutBeforeIt() {
    let upstream = HandDrivenUpstream<Int, BufferTestError>(conduct: .careless)
    let subscriber = TestSubscriber<Int, BufferTestError>(initialDemand: .none)
    upstream.buffer(size: 3, prefetch: .byRequest, whenFull: .dropOldest).subscribe(subscriber)
    upstream.send(completion: .finished)
    upstream.send(completion: .failure(.failed))
    #expect(upstream.send(1) == .none)
    #expect(upstream.send(2) == .none)
    subscriber.request(.max(2))
    #expect(subscriber.events == [.subscription, .value(1), .value(2)])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    upstream.detach()

    let failing = HandDrivenUpstream<Int, BufferTestError>(conduct: .careless)
    let failed = TestSubscriber<Int, BufferTestError>(initialDemand: .none)
    failing.buffer(size: 3, prefetch: .byRequest, whenFull: .dropOldest).subscribe(failed)
    failing.send(completion: .failure(.failed))
    failing.send(completion: .finished)
    #expect(failing.send(1) == .none)
    failed.request(.max(2))
    #expect(failed.events == [.subscription, .completion(.failure(.failed))])
    #expect(failing.events == [.requested(.unlimited)])
    failing.detach()
  }

  // `testFailWhileSendingValues`: a failure that comes while the buffer drains goes out after the
  // elements the downstream asked for (Combine sends two of them after the failure, which the
  // contracts forbid).
  @Test func aFailureWhileDrainingGoesOutAfterTheElementsAskedFor() {
    let upstream = HandDrivenUpstream<Int, BufferTestError>(conduct: .careless)
    let subscriber = RecordingSubscriber<Int, BufferTestError>()
    upstream.buffer(size: 5, prefetch: .byRequest, whenFull: .dropOldest).subscribe(subscriber)
    subscriber.onValue = { _ in
      upstream.send(completion: .failure(.failed))
      return .none
    }
    for value in 1...5 { upstream.send(value) }
    subscriber.subscription?.request(.max(3))
    #expect(subscriber.history == ["subscription(Buffer)", "value(1)", "value(2)", "value(3)", "failure(failed)"])
    upstream.detach()
    subscriber.forget()
  }

  // `testBuffer…CancelBeforeSubscription`, `…ReceiveValueBeforeSubscription`,
  // `…ReceiveCompletionBeforeSubscription`: before the subscription, a cancel, a value and a
  // completion are ignored; the subscription, when it comes, is asked and handed on.
  @Test func whatComesBeforeTheSubscriptionIsIgnored() throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest).subscribe(subscriber)
    let early = try #require(upstream.subscriberAsSubscription)
    early.request(.max(1))
    early.cancel()
    #expect(upstream.send(0) == .none)
    upstream.send(completion: .finished)
    #expect(subscriber.history.isEmpty)
    upstream.sendSubscription()
    #expect(upstream.requests == [.max(2)])
    #expect(upstream.cancelCount == 0)
    #expect(subscriber.history == ["subscription(Buffer)"])
    #expect(upstream.send(1) == .max(1))
    #expect(subscriber.history == ["subscription(Buffer)", "value(1)"])
    subscriber.subscription?.cancel()
    #expect(upstream.cancelCount == 1)
    subscriber.forget()
  }

  // `testBufferReflection`.
  @Test func reflectsAsCombineDoes() throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.buffer(size: 13, prefetch: .keepFull, whenFull: .dropNewest).subscribe(subscriber)
    let inner = try #require(upstream.subscriberObject)
    #expect((inner as? any CustomStringConvertible)?.description == "Buffer")
    #expect((inner as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Buffer")
    let mirror = try #require((inner as? any CustomReflectable)?.customMirror)
    #expect(mirror.children.map(\.label) == ["values", "state", "downstreamDemand", "terminal"])
    #expect(
      mirror.children.map { String(describing: $0.value) }.enumerated().filter { $0.offset != 1 }.map(\.element) == [
        "[]", "max(0)", "nil",
      ])
    upstream.sendSubscription()
    upstream.send(7)
    let buffered = try #require((inner as? any CustomReflectable)?.customMirror)
    #expect(String(describing: buffered.children.first!.value) == "[7]")
    subscriber.cancel()
  }
}

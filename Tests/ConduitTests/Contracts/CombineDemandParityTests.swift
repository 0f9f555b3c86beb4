import Conduit
import ConduitTesting
import Testing

// The demand operators ask of their upstreams, pinned against Combine's. Each test cites where
// Combine's behaviour is recorded: OpenCombine's tests were run against Combine
// (`OPENCOMBINE_COMPATIBILITY_TEST`), so their expected histories are the oracle.

@Suite(.leakChecked)
struct CombineDemandParityTests {
  // MARK: merge

  /// Combine asks each upstream for one value on subscription, even before any downstream
  /// demand, and returns `.max(1)` for a value it delivers.
  /// Evidence: MergeTests.swift `testChildDemand`, `testMergeReceiveSubscriptionTwice`.
  @Test func mergeAsksEachUpstreamForOneBeforeDemandAndOneMorePerDeliveredValue() {
    let first = HandDrivenPublisher<Int, Never>()
    let second = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    first.merge(with: second).subscribe(subscriber)
    #expect(first.link?.requests == [.max(1)])
    subscriber.request(.max(1))
    #expect(first.link?.requests == [.max(1)])
    #expect(first.send(1) == .max(1))
    #expect(second.send(2) == .none)
    subscriber.request(.unlimited)
    #expect(subscriber.values == [1, 2])
    #expect(first.link?.requests == [.max(1), .unlimited])
    #expect(second.link?.requests == [.max(1), .unlimited])
    subscriber.cancel()
  }

  // MARK: combineLatest / zip

  @Test func combineLatestDoesNotCancelTheFailedUpstream() {
    let first = HandDrivenPublisher<Int, ParityError>()
    let second = HandDrivenPublisher<Int, ParityError>()
    let subscriber = TestSubscriber<Int, ParityError>()
    first.combineLatest(second) { $0 + $1 }.subscribe(subscriber)
    first.send(completion: .failure(ParityError()))
    #expect(subscriber.completion == .failure(ParityError()))
    #expect(second.link?.isCancelled == true)
    #expect(first.link?.isCancelled == false)
  }

  /// combineLatest finishes only when every upstream has finished, even if one finished
  /// without ever sending. Evidence: CombineLatestTests.swift
  /// `testImmediateFinishWhenOneChildFinishesWithNoSurplus`.
  @Test func combineLatestKeepsGoingWhenAnUpstreamFinishesEmpty() {
    let first = HandDrivenPublisher<Int, Never>()
    let second = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    first.combineLatest(second) { $0 + $1 }.subscribe(subscriber)
    first.send(completion: .finished)
    #expect(subscriber.events == [.subscription])
    #expect(second.link?.isCancelled == false)
    second.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  /// Zip with a surplus on the finished side keeps going until that surplus is used up, then
  /// finishes right after the last value. Evidence: ZipTests.swift
  /// `testZipCompletesOnlyAfterAllChildrenComplete`.
  @Test func zipFinishesOnceTheFinishedSidesSurplusIsUsedUp() {
    let first = HandDrivenPublisher<Int, Never>()
    let second = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    first.zip(second) { $0 + $1 }.subscribe(subscriber)
    first.send(100)
    first.send(200)
    first.send(300)
    second.send(1)
    first.send(completion: .finished)
    #expect(subscriber.values == [101])
    #expect(subscriber.completion == nil)
    second.send(2)
    second.send(3)
    #expect(subscriber.events == [.subscription, .value(101), .value(202), .value(303), .completion(.finished)])
    #expect(second.link?.isCancelled == true)
  }

  // MARK: flatMap

  /// Combine starts each inner publisher with `.max(1)`, returns `.max(1)` for each value it
  /// delivers (even the one that uses up the demand), `.none` for one it has to keep, and
  /// requests `.max(1)` of the inner for each kept value it delivers later.
  /// Evidence: OpenCombine Tests/OpenCombineTests/PublisherTests/FlatMapTests.swift
  /// `testChildDemandWhenLimited`.
  @Test func flatMapInnerDemandWhenLimited() {
    let outer = HandDrivenPublisher<HandDrivenPublisher<Int, Never>, Never>()
    let child1 = HandDrivenPublisher<Int, Never>()
    let child2 = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    outer.flatMap { $0 }.subscribe(subscriber)
    #expect(outer.link?.requests == [.unlimited])
    outer.send(child1)
    outer.send(child2)
    #expect(child1.link?.requests == [.max(1)])
    #expect(child2.link?.requests == [.max(1)])

    #expect(child1.send(666) == .max(1))
    #expect(child1.send(777) == .max(1))
    #expect(child1.send(888) == .none)
    #expect(subscriber.values == [666, 777])
    subscriber.request(.max(10))
    #expect(subscriber.values == [666, 777, 888])
    #expect(child1.link?.requests == [.max(1), .max(1)])
    #expect(child2.link?.requests == [.max(1)])
    subscriber.cancel()
  }

  /// With `maxPublishers: .max(1)` Combine asks upstream for one publisher, and for one more
  /// each time an inner publisher finishes. Evidence: FlatMapTests.swift
  /// `testOuterLockReentrance`, `testDownstreamFinishesWhenUpstreamAndChildFinishes`.
  @Test func flatMapMaxPublishersAsksForOneMoreWhenAChildFinishes() {
    let outer = HandDrivenPublisher<HandDrivenPublisher<Int, Never>, Never>()
    let child = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    outer.flatMap(maxPublishers: .max(1)) { $0 }.subscribe(subscriber)
    #expect(outer.link?.requests == [.max(1)])
    #expect(outer.send(child) == .none)
    #expect(child.link?.requests == [.max(1)])
    child.send(completion: .finished)
    #expect(outer.link?.requests == [.max(1), .max(1)])
    outer.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  // MARK: switchToLatest

  // MARK: output(in:)

  // MARK: aggregating operators

  /// The aggregating operators ask for `.unlimited` at once and hold the result until the
  /// downstream asks, also when it asks only after upstream finished.
  /// Evidence: OpenCombine Tests/OpenCombineTests/PublisherTests/CountTests.swift,
  /// ReduceTests.swift (ReduceProducer).
  @Test func aggregatesHoldTheResultUntilDemandAfterUpstreamFinished() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let counted = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.count().subscribe(counted)
    #expect(upstream.link?.requests == [.unlimited])
    #expect(upstream.send(1) == .none)
    #expect(upstream.send(2) == .none)
    upstream.send(completion: .finished)
    #expect(counted.events == [.subscription])
    counted.request(.max(1))
    #expect(counted.events == [.subscription, .value(2), .completion(.finished)])

    let collecting = HandDrivenPublisher<Int, Never>()
    let collected = TestSubscriber<[Int], Never>(initialDemand: .none)
    collecting.collect().subscribe(collected)
    collecting.send(completion: .finished)
    #expect(collected.events == [.subscription])
    collected.request(.max(1))
    #expect(collected.events == [.subscription, .value([]), .completion(.finished)])

    // An empty result's completion waits for demand too (LastTests.testLastFinishesImmediatelyWithoutDemand).
    let lastOf = HandDrivenPublisher<Int, Never>()
    let last = TestSubscriber<Int, Never>(initialDemand: .none)
    lastOf.last().subscribe(last)
    lastOf.send(completion: .finished)
    #expect(last.events == [.subscription])
    last.request(.max(1))
    #expect(last.events == [.subscription, .completion(.finished)])
  }

  /// `first()` cancels upstream at the first value and holds it until demand.
  @Test func firstCancelsUpstreamAndHoldsTheValue() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.first().subscribe(subscriber)
    #expect(upstream.link?.requests == [.unlimited])
    #expect(upstream.send(7) == .none)
    #expect(upstream.link?.isCancelled == true)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(7), .completion(.finished)])
  }

  // MARK: buffer

  /// `.keepFull` asks upstream for `size` before the downstream has its subscription, returns
  /// `.max(1)` for a value passed straight on, and requests as many as it hands out of the
  /// buffer; `.byRequest` asks for `.unlimited` once and never again.
  /// Evidence: OpenCombine Tests/OpenCombineTests/PublisherTests/BufferTests.swift
  /// `testInitialDemandWithByRequestPrefetchStrategy`, `testRequestingFiniteDemand`,
  /// `testRequestingUnlimitedDemand`.
  @Test func bufferDemandForBothPrefetchStrategies() {
    let full = HandDrivenPublisher<Int, Never>()
    let fullSubscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    full.buffer(size: 5, prefetch: .keepFull, whenFull: .dropNewest).subscribe(fullSubscriber)
    #expect(full.link?.requests == [.max(5)])
    for value in 0..<10 { #expect(full.send(value) == .none) }
    fullSubscriber.request(.max(3))
    fullSubscriber.request(.max(1))
    #expect(fullSubscriber.values == [0, 1, 2, 3])
    #expect(full.link?.requests == [.max(5), .max(3), .max(1)])
    fullSubscriber.cancel()

    let passing = HandDrivenPublisher<Int, Never>()
    let passingSubscriber = TestSubscriber<Int, Never>()
    passing.buffer(size: 5, prefetch: .keepFull, whenFull: .dropOldest).subscribe(passingSubscriber)
    for value in 0..<3 { #expect(passing.send(value) == .max(1)) }
    #expect(passing.link?.requests == [.max(5)])
    passingSubscriber.cancel()

    let byRequest = HandDrivenPublisher<Int, Never>()
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

  // MARK: retry / catch

  @Test func retryCarriesOutstandingDemandToEachResubscription() {
    let upstream = HandDrivenPublisher<Int, ParityError>()
    let subscriber = TestSubscriber<Int, ParityError>(initialDemand: .max(5))
    upstream.retry(3).subscribe(subscriber)
    upstream.send(1)
    upstream.send(completion: .failure(ParityError()))
    upstream.send(2)
    upstream.send(completion: .failure(ParityError()))
    #expect(upstream.links.map(\.requests) == [[.max(5)], [.max(4)], [.max(3)]])
    subscriber.cancel()
  }

  /// Catch returns the downstream's demand to upstream, and asks the replacement for all the
  /// demand outstanding. Evidence: OpenCombine
  /// Tests/OpenCombineTests/PublisherTests/CatchTests.swift `testPreservesDemand`
  /// (`send(i) == .max(3)`, replacement `[.requested(.max(33))]`).
  @Test func catchCarriesOutstandingDemandToTheReplacement() {
    let upstream = HandDrivenPublisher<Int, ParityError>()
    let replacement = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(12), demandPerValue: .max(3))
    upstream.catch { _ in replacement }.subscribe(subscriber)
    subscriber.request(.max(5))
    #expect(upstream.link?.requests == [.max(12), .max(5)])
    for value in 1...8 { #expect(upstream.send(value) == .max(3)) }
    upstream.send(completion: .failure(ParityError()))
    #expect(upstream.link?.requests == [.max(12), .max(5)])
    #expect(replacement.link?.requests == [.max(33)])
    subscriber.cancel()
  }

  // MARK: prefix(untilOutputFrom:) / drop(untilOutputFrom:)

  // MARK: filter / compactMap

  /// A value filtered out answers `.max(1)`; one passed on answers what the downstream returned.
  /// Evidence: OpenCombine Tests/OpenCombineTests/PublisherTests/FilterTests.swift,
  /// CompactMapTests.swift (`send` of a rejected value returns `.max(1)`).
  @Test func filteredOutValuesAskForOneMore() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: .max(3))
    upstream.filter { $0.isMultiple(of: 2) }.subscribe(subscriber)
    #expect(upstream.send(1) == .max(1))
    #expect(upstream.send(2) == .max(3))
    subscriber.cancel()

    let mapped = HandDrivenPublisher<Int, Never>()
    let mappedSubscriber = TestSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: .max(3))
    mapped.compactMap { $0.isMultiple(of: 2) ? $0 : nil }.subscribe(mappedSubscriber)
    #expect(mapped.send(1) == .max(1))
    #expect(mapped.send(2) == .max(3))
    mappedSubscriber.cancel()
  }
}

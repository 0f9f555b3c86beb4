import Conduit
import ConduitTesting
import Dispatch
import Synchronization
import Testing

private enum FlatMapTestError: Error, Equatable {
  case failed
  case other
}

/// Which inner subscribers carried the leak check's census scope when they were subscribed.
private final class AttributionLog: Sendable {
  let entries = Locked<[Bool]>([])
}

/// Subscribes its subscriber to `Just(value)` from a global Dispatch queue, where no leak check
/// is bound, and records whether the subscriber carried the census scope it expected.
private struct OffThreadJust: Publisher {
  typealias Output = Int
  typealias Failure = Never

  let value: Int
  let expectedScope: CensusScope?
  let group: DispatchGroup
  let log: AttributionLog

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    let (value, expectedScope, log, group) = (self.value, self.expectedScope, self.log, self.group)
    let work = OffThreadWork {
      let attributed =
        CensusScope.current == nil && expectedScope != nil
        && CensusToken.scope(inheritingFrom: subscriber)?.check === expectedScope
      log.entries.withLock { $0.append(attributed) }
      Just(value).subscribe(subscriber)
      group.leave()
    }
    group.enter()
    DispatchQueue.global().async { work.run() }
  }
}

/// Work a test hands to a Dispatch queue, known to be safe to run there.
private struct OffThreadWork: @unchecked Sendable {
  let run: () -> Void
}

@Suite(.leakChecked)
struct FlatMapTests {
  // `zip` subscribes its upstreams before its subscriber has asked for anything: the inner
  // publishers subscribed meanwhile are asked for nothing until then, and share what the
  // subscriber asks after.
  @Test func innersSubscribedWhileZipSubscribesItsUpstreamsGetTheLaterDemand() {
    let subscriber = TestSubscriber<[Int], Never>()
    (1...2).publisher.flatMap { (0..<$0).publisher }
      .zip((10...12).publisher).map { [$0, $1] }.subscribe(subscriber)
    #expect(subscriber.values.map { $0[1] } == [10, 11, 12])
    #expect(subscriber.values.map { $0[0] }.sorted() == [0, 0, 1])
    #expect(subscriber.completion == .finished)

    let limited = TestSubscriber<[Int], Never>()
    (1...2).publisher.flatMap(maxPublishers: .max(1)) { (0..<$0).publisher }
      .zip((10...12).publisher).map { [$0, $1] }.subscribe(limited)
    #expect(
      limited.events == [.subscription, .value([0, 10]), .value([0, 11]), .value([1, 12]), .completion(.finished)])
  }

  // MARK: Values and completion

  @Test func mergesTheValuesOfEveryInnerPublisher() {
    let subscriber = TestSubscriber<Int, Never>()
    [1, 2, 3].publisher.flatMap { [$0, $0 * 10].publisher }.subscribe(subscriber)
    #expect(subscriber.values == [1, 10, 2, 20, 3, 30])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func interleavesInnerPublishersInTheOrderTheySend() {
    let upstream = PassthroughSubject<Int, Never>()
    let inners = [PassthroughSubject<String, Never>(), PassthroughSubject<String, Never>()]
    let subscriber = TestSubscriber<String, Never>()
    upstream.flatMap { inners[$0] }.subscribe(subscriber)
    upstream.send(0)
    upstream.send(1)
    inners[1].send("b1")
    inners[0].send("a1")
    inners[1].send("b2")
    #expect(subscriber.values == ["b1", "a1", "b2"])
    upstream.send(completion: .finished)
    inners[0].send(completion: .finished)
    inners[1].send(completion: .finished)
    #expect(subscriber.completion == .finished)
  }

  @Test func finishesOnlyWhenUpstreamAndEveryInnerPublisherHaveFinished() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let inners = [HandDrivenUpstream<Int, Never>(), HandDrivenUpstream<Int, Never>()]
    let subscriber = TestSubscriber<Int, Never>()
    upstream.flatMap { inners[$0] }.subscribe(subscriber)
    upstream.send(0)
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(subscriber.completion == nil)
    inners[0].send(completion: .finished)
    #expect(subscriber.completion == nil)
    inners[1].send(7)
    inners[1].send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(7), .completion(.finished)])
  }

  @Test func waitsForTheUpstreamWhenTheInnerPublishersFinishFirst() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.flatMap { Just($0) }.subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion == nil)
    upstream.send(completion: .finished)
    #expect(subscriber.completion == .finished)
  }

  @Test func finishesAtOnceForAnEmptyUpstream() {
    let subscriber = TestSubscriber<Int, Never>()
    Empty<Int, Never>().flatMap { Just($0) }.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  // MARK: maxPublishers

  @Test func asksTheUpstreamForMaxPublishersElementsAtFirst() {
    let limited = HandDrivenUpstream<Int, Never>()
    let unlimited = HandDrivenUpstream<Int, Never>()
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    limited.flatMap(maxPublishers: .max(3)) { Just($0) }.subscribe(first)
    unlimited.flatMap { Just($0) }.subscribe(second)
    #expect(limited.link?.requests == [.max(3)])
    #expect(unlimited.link?.requests == [.unlimited])
    limited.send(completion: .finished)
    unlimited.send(completion: .finished)
    #expect(first.completion == .finished)
    #expect(second.completion == .finished)
  }

  @Test func neverSubscribesToMoreInnerPublishersThanAllowed() {
    let inners = (0..<5).map { _ in HandDrivenUpstream<Int, Never>() }
    let subscribed = { inners.filter { $0.subscriptionCount > 0 }.count }
    let active = { inners.filter { $0.isActive == true }.count }
    let subscriber = TestSubscriber<Int, Never>()
    // A sequence sends only what it is asked for, so it shows how much the flat map asks.
    (0..<5).publisher.flatMap(maxPublishers: .max(2)) { inners[$0] }.subscribe(subscriber)
    #expect(subscribed() == 2)
    inners[0].send(completion: .finished)
    #expect(subscribed() == 3)
    #expect(active() == 2)
    inners[2].send(completion: .finished)
    #expect(subscribed() == 4)
    #expect(active() == 2)
    inners[1].send(completion: .finished)
    inners[3].send(completion: .finished)
    #expect(subscribed() == 5)
    #expect(active() == 1)
    #expect(subscriber.completion == nil)
    inners[4].send(completion: .finished)
    #expect(subscriber.completion == .finished)
  }

  @Test func asksTheUpstreamForAReplacementEachTimeAnInnerPublisherFinishes() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let inners = (0..<3).map { _ in HandDrivenUpstream<Int, Never>() }
    let subscriber = TestSubscriber<Int, Never>()
    upstream.flatMap(maxPublishers: .max(2)) { inners[$0] }.subscribe(subscriber)
    upstream.send(0)
    upstream.send(1)
    #expect(upstream.link?.requests == [.max(2)])
    inners[1].send(completion: .finished)
    #expect(upstream.link?.requests == [.max(2), .max(1)])
    upstream.send(2)
    inners[0].send(completion: .finished)
    #expect(upstream.link?.requests == [.max(2), .max(1), .max(1)])
    upstream.send(completion: .finished)
    inners[2].send(completion: .finished)
    #expect(upstream.link?.requests == [.max(2), .max(1), .max(1)])
    #expect(subscriber.completion == .finished)
  }

  @Test func replacesAFinishedInnerPublisherEvenWhileItsValueWaitsForDemand() {
    // Combine asks for a replacement as soon as an inner publisher finishes, whether or not its
    // values have gone downstream yet: with no demand, the values waiting keep growing.
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.flatMap(maxPublishers: .max(1)) { Just($0) }.subscribe(subscriber)
    upstream.send(10)
    upstream.send(20)
    upstream.send(30)
    #expect(upstream.link?.requests == [.max(1), .max(1), .max(1), .max(1)])
    #expect(subscriber.values == [])
    subscriber.request(.max(2))
    #expect(subscriber.values == [10, 20])
    upstream.send(completion: .finished)
    #expect(subscriber.completion == nil)
    subscriber.request(.max(1))
    #expect(subscriber.values == [10, 20, 30])
    #expect(subscriber.completion == .finished)
  }

  // MARK: Demand

  @Test func sharesDownstreamDemandAcrossInnerPublishers() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let inners = [HandDrivenUpstream<Int, Never>(), HandDrivenUpstream<Int, Never>()]
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    upstream.flatMap { inners[$0] }.subscribe(subscriber)
    upstream.send(0)
    upstream.send(1)
    // Each inner publisher is asked for one value at a time.
    #expect(inners[0].link?.requests == [.max(1)])
    #expect(inners[1].link?.requests == [.max(1)])
    #expect(inners[0].send(1) == .max(1))
    #expect(inners[1].send(2) == .max(1))
    // No demand left: held, and the inner publisher is not asked for more.
    #expect(inners[0].send(3) == .none)
    #expect(inners[1].send(4) == .none)
    #expect(subscriber.values == [1, 2])
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2, 3])
    #expect(inners[0].link?.requests == [.max(1), .max(1)])
    #expect(inners[1].link?.requests == [.max(1)])
    subscriber.request(.max(5))
    #expect(subscriber.values == [1, 2, 3, 4])
    #expect(inners[1].link?.requests == [.max(1), .max(1)])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func heldValuesAreDeliveredBeforeTheCompletion() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let inner = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.flatMap { _ in inner }.subscribe(subscriber)
    upstream.send(0)
    inner.send(1)
    inner.send(2)
    inner.send(completion: .finished)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1)])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func asksInnerPublishersForUnlimitedValuesOnceDownstreamDemandIsUnlimited() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let inners = [HandDrivenUpstream<Int, Never>(), HandDrivenUpstream<Int, Never>()]
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.flatMap { inners[$0] }.subscribe(subscriber)
    upstream.send(0)
    #expect(inners[0].link?.requests == [.max(1)])
    subscriber.request(.unlimited)
    #expect(inners[0].link?.requests == [.max(1), .unlimited])
    upstream.send(1)
    #expect(inners[1].link?.requests == [.unlimited])
    #expect(inners[1].send(5) == .none)
    #expect(subscriber.values == [5])
    subscriber.cancel()
  }

  @Test func aSynchronousSourceAskedOneAtATimeDoesNotGrowTheStack() {
    let count = 20_000
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (0..<count).publisher.flatMap(maxPublishers: .max(1)) { [$0].publisher }.subscribe(subscriber)
    #expect(subscriber.values.count == count)
    #expect(subscriber.values.last == count - 1)
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  // MARK: Failure

  /// An inner failure cancels everything else, the upstream too. (Combine leaves the upstream
  /// running, OpenCombine `testAllSubscriptionsReleasedOnChildFailure`: the upstream would keep
  /// the failed subscription until it completes.)
  @Test func anInnerFailureCancelsEverythingAndFailsDownstream() {
    let upstream = HandDrivenUpstream<Int, FlatMapTestError>()
    let inners = [HandDrivenUpstream<Int, FlatMapTestError>(), HandDrivenUpstream<Int, FlatMapTestError>()]
    let subscriber = TestSubscriber<Int, FlatMapTestError>()
    upstream.flatMap { inners[$0] }.subscribe(subscriber)
    upstream.send(0)
    upstream.send(1)
    inners[0].send(1)
    inners[1].send(completion: .failure(.failed))
    #expect(subscriber.events == [.subscription, .value(1), .completion(.failure(.failed))])
    #expect(inners[0].link?.isCancelled == true)
    #expect(upstream.link?.isCancelled == true)
    #expect(inners[1].link?.isCancelled == false)
    // Nothing more reaches the subscriber.
    upstream.send(completion: .failure(.other))
    #expect(subscriber.events.count == 3)
  }

  @Test func theUpstreamFailureCancelsEveryInnerPublisher() {
    let upstream = HandDrivenUpstream<Int, FlatMapTestError>()
    let inner = HandDrivenUpstream<Int, FlatMapTestError>()
    let subscriber = TestSubscriber<Int, FlatMapTestError>()
    upstream.flatMap { _ in inner }.subscribe(subscriber)
    upstream.send(0)
    upstream.send(completion: .failure(.failed))
    #expect(inner.link?.isCancelled == true)
    #expect(upstream.link?.isCancelled == false)
    #expect(subscriber.completion == .failure(.failed))
  }

  @Test func aFailureDiscardsHeldValues() {
    let upstream = HandDrivenUpstream<Int, FlatMapTestError>()
    let inners = [HandDrivenUpstream<Int, FlatMapTestError>(), HandDrivenUpstream<Int, FlatMapTestError>()]
    let subscriber = TestSubscriber<Int, FlatMapTestError>(initialDemand: .none)
    upstream.flatMap { inners[$0] }.subscribe(subscriber)
    upstream.send(0)
    upstream.send(1)
    inners[0].send(1)
    inners[1].send(completion: .failure(.failed))
    #expect(subscriber.events == [.subscription, .completion(.failure(.failed))])
  }

  @Test func replaceErrorAfterFlatMapEndsThePipelineAtTheFirstInnerFailure() {
    let subscriber = TestSubscriber<Int, Never>()
    [1, 2, 3].publisher
      .flatMap { value in Result<Int, FlatMapTestError>.Publisher(value == 2 ? .failure(.failed) : .success(value)) }
      .replaceError(with: -1)
      .subscribe(subscriber)
    #expect(subscriber.values == [1, -1])
    #expect(subscriber.completion == .finished)
  }

  @Test func replaceErrorInsideTheTransformKeepsThePipelineGoing() {
    let subscriber = TestSubscriber<Int, Never>()
    [1, 2, 3].publisher
      .flatMap { value in
        Result<Int, FlatMapTestError>.Publisher(value == 2 ? .failure(.failed) : .success(value))
          .replaceError(with: -1)
      }
      .subscribe(subscriber)
    #expect(subscriber.values == [1, -1, 3])
    #expect(subscriber.completion == .finished)
  }

  // MARK: Cancellation

  /// The inner publishers are cancelled before the upstream, as in Combine (OpenCombine
  /// FlatMapTests `testCancelCancels`).
  @Test func cancelCancelsTheInnerPublishersAndThenTheUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let inner = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(42))
    upstream.flatMap { _ in inner }.subscribe(subscriber)
    var innerAtUpstreamCancel: [SubscriptionEvent] = []
    upstream.onCancel = { innerAtUpstreamCancel = inner.events }
    #expect(upstream.send(1) == .none)
    subscriber.cancel()
    #expect(innerAtUpstreamCancel == [.requested(.max(1)), .cancelled])
    #expect(upstream.events == [.requested(.unlimited), .cancelled])
    upstream.detach()
    inner.detach()
  }

  @Test func cancelCancelsTheUpstreamAndEveryInnerPublisher() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let inners = [HandDrivenUpstream<Int, Never>(), HandDrivenUpstream<Int, Never>()]
    let subscriber = TestSubscriber<Int, Never>()
    upstream.flatMap { inners[$0] }.subscribe(subscriber)
    upstream.send(0)
    upstream.send(1)
    inners[0].send(1)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    #expect(inners.allSatisfy { $0.link?.isCancelled == true })
    upstream.send(2)
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == nil)
  }

  @Test func cancelFromInsideReceiveStopsEverything() {
    let upstream = PassthroughSubject<Int, Never>()
    let inner = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { _ in subscriber.cancel() }
    upstream.flatMap { _ in inner }.subscribe(subscriber)
    upstream.send(0)
    inner.send(1)
    inner.send(2)
    upstream.send(0)
    inner.send(3)
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == nil)
  }

  @Test func anInnerSubscriptionArrivingAfterCancelIsCancelled() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    let late = HandDrivenUpstream<Int, Never>()
    var cancelLater: (() -> Void)?
    upstream.flatMap { _ in
      // The downstream cancels while the transform runs, before the inner publisher subscribes.
      cancelLater?()
      return late
    }.subscribe(subscriber)
    cancelLater = { subscriber.cancel() }
    upstream.send(0)
    #expect(late.link?.isCancelled == true)
    #expect(subscriber.completion == nil)
    cancelLater = nil
  }

  // MARK: Demand

  /// `maxPublishers: .none` asks the upstream for `.none`, as Combine does
  /// (`testSendsSubscriptionDownstreamBeforeSubscribingToUpstream`).
  @Test func noPublishersAllowedAsksTheUpstreamForNone() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>()
    upstream.flatMap(maxPublishers: .none) { Just($0) }.subscribe(subscriber)
    #expect(upstream.events == [.requested(.none)])
    subscriber.cancel()
    upstream.detach()
  }

  /// A value an inner publisher sends while the subscriber is receiving another one, with demand
  /// to spare, takes its demand at once and answers `.max(1)`, where Combine would deliver it
  /// then, nested in that call; it reaches the subscriber right after the call returns, and its
  /// inner publisher is not asked again (OpenCombine `testChildValueReceivedWhileSendingValue`).
  @Test func aValueSentWhileTheSubscriberReceivesAnotherIsAnsweredAtOnce() {
    let upstream = HandDrivenUpstream<HandDrivenUpstream<Int, Never>, Never>()
    let first = HandDrivenUpstream<Int, Never>()
    let second = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    var answers: [Subscribers.Demand] = []
    subscriber.onValue { _ in answers.append(second.send(777)) }
    upstream.flatMap { $0 }.subscribe(subscriber)
    upstream.send(first)
    upstream.send(second)
    #expect(first.send(666) == .max(1))
    #expect(subscriber.values == [666, 777])
    // The first 777 took the last demand; the one sent while it was received waits.
    #expect(answers == [.max(1), .none])
    #expect(first.link?.requests == [.max(1)])
    #expect(second.link?.requests == [.max(1)])
    subscriber.onValue { _ in }
    subscriber.request(.max(1))
    #expect(subscriber.values == [666, 777, 777])
    #expect(second.link?.requests == [.max(1), .max(1)])
    subscriber.cancel()
  }

  /// A value sent while the subscription asks an inner publisher for its next one is not
  /// answered at once: it waits, as in Combine, and is asked for again once delivered, so a
  /// synchronous inner publisher is asked one value at a time
  /// (OpenCombine `testSendsValuesUntilBufferIsEmpty`).
  @Test func aValueSentFromInsideTheRequestForItWaitsItsTurn() {
    let upstream = HandDrivenUpstream<HandDrivenUpstream<Int, Never>, Never>()
    let inner = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.flatMap { $0 }.subscribe(subscriber)
    upstream.send(inner)
    #expect(inner.send(1) == .none)
    #expect(inner.send(2) == .none)
    var answers: [Subscribers.Demand] = []
    inner.onRequest = { _ in answers.append(inner.send(-1)) }
    subscriber.request(.max(2))
    #expect(subscriber.values == [1, 2])
    #expect(answers == [.none, .none])
    #expect(inner.events == [.requested(.max(1)), .requested(.max(1)), .requested(.max(1))])
    subscriber.cancel()
    inner.detach()
  }

  // MARK: Re-entrancy

  @Test func valuesSentFromInsideReceiveStayInOrder() {
    let upstream = PassthroughSubject<Int, Never>()
    let inner = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { value in
      if value < 5 { inner.send(value + 1) }
    }
    upstream.flatMap { _ in inner }.subscribe(subscriber)
    upstream.send(0)
    inner.send(1)
    #expect(subscriber.values == [1, 2, 3, 4, 5])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func anUpstreamElementSentFromInsideReceiveAddsAnInnerPublisher() {
    let upstream = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { value in
      if value < 3 { upstream.send(value + 1) }
    }
    upstream.flatMap { Just($0) }.subscribe(subscriber)
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  // MARK: Census

  @Test func innerSubscribersCreatedOnOtherThreadsBelongToThePipeline() {
    let group = DispatchGroup()
    let log = AttributionLog()
    let scope = CensusScope.current
    #expect(scope != nil)
    let subscriber = TestSubscriber<Int, Never>()
    let done = DispatchSemaphore(value: 0)
    [1, 2, 3].publisher
      .flatMap { OffThreadJust(value: $0, expectedScope: scope, group: group, log: log) }
      .handleEvents(receiveCompletion: { _ in done.signal() })
      .subscribe(subscriber)
    group.wait()
    done.wait()
    #expect(subscriber.values.sorted() == [1, 2, 3])
    #expect(subscriber.completion == .finished)
    #expect(log.entries.withLock { $0 } == [true, true, true])
  }

  // MARK: Overloads for publishers that cannot fail

  @Test func innerPublishersThatCannotFailTakeTheUpstreamFailureType() {
    let upstream = HandDrivenUpstream<Int, FlatMapTestError>()
    let flatMap:
      Publishers.FlatMap<
        Publishers.SetFailureType<Just<Int>, FlatMapTestError>, HandDrivenUpstream<Int, FlatMapTestError>
      > =
        upstream.flatMap { Just($0 * 2) }
    let subscriber = TestSubscriber<Int, FlatMapTestError>()
    flatMap.subscribe(subscriber)
    upstream.send(4)
    upstream.send(completion: .failure(.failed))
    #expect(subscriber.events == [.subscription, .value(8), .completion(.failure(.failed))])
  }

  @Test func anUpstreamThatCannotFailTakesTheInnerFailureType() {
    let flatMap:
      Publishers.FlatMap<
        Fail<Int, FlatMapTestError>, Publishers.SetFailureType<Publishers.Sequence<[Int], Never>, FlatMapTestError>
      > = [1, 2].publisher.flatMap { _ in Fail<Int, FlatMapTestError>(error: .failed) }
    let subscriber = TestSubscriber<Int, FlatMapTestError>()
    flatMap.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.failure(.failed))])
  }

  @Test func publishersThatCannotFailKeepTheirTypes() {
    let neither: Publishers.FlatMap<Just<Int>, Publishers.Sequence<[Int], Never>> = [1, 2].publisher.flatMap {
      Just($0)
    }
    let same: Publishers.FlatMap<Fail<Int, FlatMapTestError>, Fail<Int, FlatMapTestError>> =
      Fail<Int, FlatMapTestError>(error: .other).flatMap { _ in Fail<Int, FlatMapTestError>(error: .failed) }
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, FlatMapTestError>()
    neither.subscribe(first)
    same.subscribe(second)
    #expect(first.values == [1, 2])
    #expect(first.completion == .finished)
    #expect(second.completion == .failure(.other))
    #expect(neither.maxPublishers == .unlimited)
  }

  /// A cancel lets go of the values waiting for demand, and of the transform, after the
  /// operator's lock: a value, or an object the transform captured, whose `deinit` cancels the
  /// same subscription stopped the process on the lock taken twice.
  // MARK: Reflection

  /// The subscription and the subscribers it gives the inner publishers describe themselves as
  /// Combine's do (OpenCombine `testFlatMapReflection`).
  @Test func describesItselfAsCombineDoes() throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let inner = SubscriberKeeper<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.flatMap { _ in inner }.subscribe(subscriber)
    upstream.send(0)
    let subscription = try #require(subscriber.subscription)
    #expect(upstream.subscriberDescription == "FlatMap")
    #expect((subscription as? any CustomStringConvertible)?.description == "FlatMap")
    #expect((subscription as? any CustomReflectable)?.customMirror.children.isEmpty == true)
    #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "FlatMap")
    let innerSubscriber = try #require(inner.subscriber)
    #expect(!(innerSubscriber is any Subscription))
    #expect((innerSubscriber as? any CustomStringConvertible)?.description == "FlatMap")
    let mirror = try #require((innerSubscriber as? any CustomReflectable)?.customMirror)
    #expect(mirror.children.map(\.label) == ["parentSubscription"])
    #expect(mirror.children.first?.value as? CombineIdentifier == subscription.combineIdentifier)
    #expect((innerSubscriber as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "FlatMap")
    subscriber.cancel()
    upstream.detach()
    inner.subscriber = nil
  }

  @Test func waitingValueAndTransformMayCancelTheSubscriptionInTheirDeinit() {
    let holder = DeinitCancellingSubscriber<DeinitProbe, Never>.Holder()
    var cancelledInDeinit: [String] = []
    let upstream = PassthroughSubject<Int, Never>()
    // A value waits for demand.
    upstream.flatMap { _ in
      Just(
        DeinitProbe {
          holder.subscription?.cancel()
          cancelledInDeinit.append("waiting")
        })
    }
    .subscribe(DeinitCancellingSubscriber<DeinitProbe, Never>(holder: holder))
    upstream.send(1)
    holder.subscription?.cancel()
    holder.subscription = nil
    // The transform holds the last reference to what it captured.
    let cancelling = {
      holder.subscription?.cancel()
      cancelledInDeinit.append("captured")
    }
    upstream.flatMap { [captured = DeinitProbe(onDeinit: cancelling)] _ in
      withExtendedLifetime(captured) {}
      return Empty<DeinitProbe, Never>()
    }
    .subscribe(DeinitCancellingSubscriber<DeinitProbe, Never>(holder: holder))
    holder.subscription?.cancel()
    holder.subscription = nil
    // The upstream finishes while an inner publisher goes on: the transform is let go of.
    let inner = PassthroughSubject<DeinitProbe, Never>()
    let finishing = PassthroughSubject<Int, Never>()
    finishing.flatMap { [captured = DeinitProbe(onDeinit: cancelling)] _ in
      withExtendedLifetime(captured) {}
      return inner
    }
    .subscribe(DeinitCancellingSubscriber<DeinitProbe, Never>(holder: holder))
    finishing.send(1)
    finishing.send(completion: .finished)
    holder.subscription = nil
    #expect(cancelledInDeinit == ["waiting", "captured", "captured"])
  }

  /// Combine starts each inner publisher with `.max(1)`, returns `.max(1)` for each value it
  /// delivers (even the one that uses up the demand), `.none` for one it has to keep, and
  /// requests `.max(1)` of the inner for each kept value it delivers later.
  /// Evidence: OpenCombine Tests/OpenCombineTests/PublisherTests/FlatMapTests.swift
  /// `testChildDemandWhenLimited`.
  @Test func flatMapInnerDemandWhenLimited() {
    let outer = HandDrivenUpstream<HandDrivenUpstream<Int, Never>, Never>()
    let child1 = HandDrivenUpstream<Int, Never>()
    let child2 = HandDrivenUpstream<Int, Never>()
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
  /// each time an inner publisher finishes. Evidence (OpenCombine): FlatMapTests.swift
  /// `testOuterLockReentrance`, `testDownstreamFinishesWhenUpstreamAndChildFinishes`.
  @Test func flatMapMaxPublishersAsksForOneMoreWhenAChildFinishes() {
    let outer = HandDrivenUpstream<HandDrivenUpstream<Int, Never>, Never>()
    let child = HandDrivenUpstream<Int, Never>()
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
}

/// Subscribes its subscriber to a range of integers from a global Dispatch queue, so that the
/// range is delivered on whichever thread asks for the next element.
private struct OffThreadRange: Publisher {
  typealias Output = Int
  typealias Failure = Never

  let range: Range<Int>

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    let range = self.range
    let work = OffThreadWork { range.publisher.subscribe(subscriber) }
    DispatchQueue.global().async { work.run() }
  }
}

@Suite(.leakChecked(timeout: .seconds(3)))
struct FlatMapStressTests {
  private static let senders = 8
  private static let valuesPerSender = 5_000

  @Test func innerPublishersSendingOnManyThreadsNeverOverlapDownstream() {
    let upstream = PassthroughSubject<Int, Never>()
    let inners = (0..<Self.senders).map { _ in PassthroughSubject<Int, Never>() }
    let subscriber = TestSubscriber<Int, Never>()
    upstream.flatMap { inners[$0] }.subscribe(subscriber)
    for sender in 0..<Self.senders { upstream.send(sender) }
    upstream.send(completion: .finished)
    DispatchQueue.concurrentPerform(iterations: Self.senders) { sender in
      for index in 0..<Self.valuesPerSender { inners[sender].send(sender * Self.valuesPerSender + index) }
      inners[sender].send(completion: .finished)
    }
    let values = subscriber.values
    #expect(values.count == Self.senders * Self.valuesPerSender)
    for sender in 0..<Self.senders {
      let own = values.filter { $0 / Self.valuesPerSender == sender }
      #expect(own == Array(sender * Self.valuesPerSender..<(sender + 1) * Self.valuesPerSender))
    }
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func limitedDemandWithInnerPublishersOnOtherThreadsDeliversEverythingOnce() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    let done = DispatchSemaphore(value: 0)
    (0..<Self.senders).publisher
      .flatMap(maxPublishers: .max(4)) { sender in
        OffThreadRange(range: sender * Self.valuesPerSender..<(sender + 1) * Self.valuesPerSender)
      }
      .handleEvents(receiveCompletion: { _ in done.signal() })
      .subscribe(subscriber)
    let finished = done.wait(timeout: .now() + 10) == .success
    #expect(finished)
    #expect(subscriber.values.sorted() == Array(0..<Self.senders * Self.valuesPerSender))
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancellingWhileInnerPublishersSendOnManyThreadsStopsEverything() {
    let upstream = PassthroughSubject<Int, Never>()
    let inners = (0..<Self.senders).map { _ in PassthroughSubject<Int, Never>() }
    let subscriber = TestSubscriber<Int, Never>()
    upstream.flatMap { inners[$0] }.subscribe(subscriber)
    for sender in 0..<Self.senders { upstream.send(sender) }
    let cancelled = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      while subscriber.values.count < 1_000 {}
      subscriber.cancel()
      cancelled.signal()
    }
    DispatchQueue.concurrentPerform(iterations: Self.senders) { sender in
      for index in 0..<Self.valuesPerSender { inners[sender].send(index) }
    }
    cancelled.wait()
    let count = subscriber.values.count
    for inner in inners { inner.send(0) }
    #expect(subscriber.values.count == count)
    #expect(count <= Self.senders * Self.valuesPerSender)
    #expect(subscriber.completion == nil)
    #expect(subscriber.violations.isEmpty)
  }
}

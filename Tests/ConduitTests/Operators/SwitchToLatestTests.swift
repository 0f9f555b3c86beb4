import Conduit
import ConduitTesting
import Synchronization
import Testing

private enum SwitchTestError: Error, Equatable {
  case failed
  case other
}

@Suite(.leakChecked)
struct SwitchToLatestTests {
  // `zip` subscribes its upstreams before its subscriber has asked for anything: the outer
  // publisher sends its three inner publishers meanwhile, each replacing the last with no demand;
  // the latest is asked for what the subscriber asks after.
  @Test func anInnerSubscribedWhileZipSubscribesItsUpstreamsGetsTheLaterDemand() {
    let subscriber = TestSubscriber<[Int], Never>()
    (1...3).publisher.map { (0..<$0).publisher }.switchToLatest()
      .zip((10...12).publisher).map { [$0, $1] }.subscribe(subscriber)
    #expect(
      subscriber.events == [
        .subscription, .value([0, 10]), .value([1, 11]), .value([2, 12]), .completion(.finished),
      ])
  }

  // MARK: Values and switching

  @Test func republishesTheLatestPublisherAndCancelsThePreviousOne() {
    let upstream = PassthroughSubject<HandDrivenUpstream<Int, Never>, Never>()
    let first = HandDrivenUpstream<Int, Never>()
    let second = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.switchToLatest().subscribe(subscriber)
    upstream.send(first)
    first.send(1)
    upstream.send(second)
    #expect(first.link?.isCancelled == true)
    #expect(second.link?.isCancelled == false)
    first.send(2)
    second.send(3)
    #expect(subscriber.values == [1, 3])
    upstream.send(completion: .finished)
    second.send(completion: .finished)
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  /// Combine asks the outer for `.unlimited`; an inner subscribed while there is no demand is
  /// asked for nothing; a later inner is asked for all the demand outstanding; demand returned
  /// from `receive(_:)` goes back to the inner. Evidence: OpenCombine
  /// Tests/OpenCombineTests/PublisherTests/SwitchToLatestTests.swift `testDemand`.
  @Test func switchToLatestDemand() {
    let outer = HandDrivenUpstream<HandDrivenUpstream<Int, SwitchTestError>, SwitchTestError>()
    let subscriber = TestSubscriber<Int, SwitchTestError>(initialDemand: .none, demandPerValue: .max(5))
    outer.switchToLatest().subscribe(subscriber)
    #expect(outer.link?.requests == [.unlimited])

    let inner1 = HandDrivenUpstream<Int, SwitchTestError>()
    #expect(outer.send(inner1) == .none)
    #expect(inner1.link?.requests == [])
    subscriber.request(.max(1))
    #expect(inner1.link?.requests == [.max(1)])
    inner1.send(completion: .finished)
    subscriber.request(.max(41))
    subscriber.request(.max(1))
    #expect(inner1.link?.requests == [.max(1)])

    let inner2 = HandDrivenUpstream<Int, SwitchTestError>()
    outer.send(inner2)
    #expect(inner2.link?.requests == [.max(43)])
    #expect(inner2.send(1) == .max(5))
    #expect(inner2.send(2) == .max(5))
    #expect(inner2.link?.requests == [.max(43)])

    let inner3 = HandDrivenUpstream<Int, SwitchTestError>()
    outer.send(inner3)
    #expect(inner2.link?.isCancelled == true)
    #expect(inner3.link?.requests == [.max(51)])
    outer.send(completion: .finished)
    subscriber.request(.max(9))
    #expect(inner3.link?.requests == [.max(51), .max(9)])
    subscriber.cancel()
  }

  /// An inner failure fails the whole and cancels the outer (not the failed inner).
  /// Evidence: SwitchToLatestTests.swift `testInnerFails`.
  @Test func switchToLatestInnerFailureCancelsTheOuter() {
    let outer = HandDrivenUpstream<HandDrivenUpstream<Int, SwitchTestError>, SwitchTestError>()
    let subscriber = TestSubscriber<Int, SwitchTestError>(initialDemand: .max(1), demandPerValue: .max(1))
    outer.switchToLatest().subscribe(subscriber)
    let inner = HandDrivenUpstream<Int, SwitchTestError>()
    outer.send(inner)
    #expect(inner.send(1) == .max(1))
    #expect(inner.send(2) == .max(1))
    inner.send(completion: .failure(SwitchTestError.failed))
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.failure(SwitchTestError.failed))])
    #expect(outer.link?.isCancelled == true)
    #expect(inner.link?.requests == [.max(1)])
    #expect(inner.link?.isCancelled == false)
  }

  @Test func flattensSynchronousPublishers() {
    let subscriber = TestSubscriber<Int, Never>()
    [[1, 2].publisher, [3].publisher].publisher.switchToLatest().subscribe(subscriber)
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == .finished)
  }

  // MARK: Completion

  @Test func finishesOnlyWhenTheUpstreamAndTheLatestPublisherHaveFinished() {
    let upstream = PassthroughSubject<HandDrivenUpstream<Int, Never>, Never>()
    let first = HandDrivenUpstream<Int, Never>()
    let second = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.switchToLatest().subscribe(subscriber)
    upstream.send(first)
    upstream.send(second)
    upstream.send(completion: .finished)
    #expect(subscriber.completion == nil)
    // The replaced publisher finishing does not count.
    first.send(completion: .finished)
    #expect(subscriber.completion == nil)
    second.send(completion: .finished)
    #expect(subscriber.completion == .finished)
  }

  @Test func waitsForTheUpstreamWhenTheLatestPublisherFinishesFirst() {
    let upstream = PassthroughSubject<HandDrivenUpstream<Int, Never>, Never>()
    let inner = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.switchToLatest().subscribe(subscriber)
    upstream.send(inner)
    inner.send(completion: .finished)
    #expect(subscriber.completion == nil)
    upstream.send(completion: .finished)
    #expect(subscriber.completion == .finished)
  }

  @Test func finishesAtOnceWhenTheUpstreamFinishesWithoutAPublisher() {
    let subscriber = TestSubscriber<Int, Never>()
    Empty<Just<Int>, Never>().switchToLatest().subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func theLatestPublisherFailureCancelsTheUpstream() {
    let upstream = HandDrivenUpstream<HandDrivenUpstream<Int, SwitchTestError>, SwitchTestError>()
    let inner = HandDrivenUpstream<Int, SwitchTestError>()
    let subscriber = TestSubscriber<Int, SwitchTestError>()
    upstream.switchToLatest().subscribe(subscriber)
    upstream.send(inner)
    inner.send(completion: .failure(.failed))
    #expect(subscriber.completion == .failure(.failed))
    #expect(upstream.link?.isCancelled == true)
  }

  @Test func aReplacedPublisherFailureIsIgnored() {
    let upstream = HandDrivenUpstream<HandDrivenUpstream<Int, SwitchTestError>, SwitchTestError>()
    let first = HandDrivenUpstream<Int, SwitchTestError>()
    let second = HandDrivenUpstream<Int, SwitchTestError>()
    let subscriber = TestSubscriber<Int, SwitchTestError>()
    upstream.switchToLatest().subscribe(subscriber)
    upstream.send(first)
    upstream.send(second)
    first.send(completion: .failure(.failed))
    #expect(subscriber.completion == nil)
    second.send(5)
    #expect(subscriber.values == [5])
    subscriber.cancel()
  }

  @Test func theUpstreamFailureCancelsTheLatestPublisher() {
    let upstream = HandDrivenUpstream<HandDrivenUpstream<Int, SwitchTestError>, SwitchTestError>()
    let inner = HandDrivenUpstream<Int, SwitchTestError>()
    let subscriber = TestSubscriber<Int, SwitchTestError>()
    upstream.switchToLatest().subscribe(subscriber)
    upstream.send(inner)
    upstream.send(completion: .failure(.other))
    #expect(inner.link?.isCancelled == true)
    #expect(subscriber.completion == .failure(.other))
    inner.send(1)
    #expect(subscriber.values.isEmpty)
  }

  // MARK: Demand

  @Test func asksTheUpstreamForUnlimitedPublishers() {
    let upstream = HandDrivenUpstream<Just<Int>, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.switchToLatest().subscribe(subscriber)
    #expect(upstream.link?.requests == [.unlimited])
    subscriber.cancel()
  }

  @Test func carriesTheRemainingDemandAcrossSwitches() {
    let upstream = PassthroughSubject<HandDrivenUpstream<Int, Never>, Never>()
    let first = HandDrivenUpstream<Int, Never>()
    let second = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
    upstream.switchToLatest().subscribe(subscriber)
    upstream.send(first)
    #expect(first.link?.requests == [.max(3)])
    first.send(1)
    upstream.send(second)
    #expect(second.link?.requests == [.max(2)])
    subscriber.request(.max(4))
    #expect(second.link?.requests == [.max(2), .max(4)])
    #expect(first.link?.requests == [.max(3)])
    second.send(2)
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func demandRequestedBeforeAnyPublisherGoesToTheFirstOne() {
    let upstream = PassthroughSubject<HandDrivenUpstream<Int, Never>, Never>()
    let inner = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.switchToLatest().subscribe(subscriber)
    subscriber.request(.max(1))
    upstream.send(inner)
    #expect(inner.link?.requests == [.max(2)])
    subscriber.cancel()
  }

  @Test func demandReturnedFromReceiveGoesToTheLatestPublisher() {
    let upstream = PassthroughSubject<HandDrivenUpstream<Int, Never>, Never>()
    let inner = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(2))
    upstream.switchToLatest().subscribe(subscriber)
    upstream.send(inner)
    // Returned from the inner publisher's `receive(_:)`, as in Combine.
    #expect(inner.send(1) == .max(2))
    #expect(inner.link?.requests == [.max(1)])
    subscriber.cancel()
  }

  @Test func aSynchronousPublisherAskedOneAtATimeDoesNotGrowTheStack() {
    let count = 20_000
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    Just((0..<count).publisher).switchToLatest().subscribe(subscriber)
    #expect(subscriber.values.count == count)
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  // MARK: Cancellation

  @Test func cancelCancelsTheUpstreamAndTheLatestPublisher() {
    let upstream = HandDrivenUpstream<HandDrivenUpstream<Int, Never>, Never>()
    let inner = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.switchToLatest().subscribe(subscriber)
    upstream.send(inner)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    #expect(inner.link?.isCancelled == true)
    inner.send(1)
    #expect(subscriber.values.isEmpty)
    #expect(subscriber.completion == nil)
  }

  /// The latest publisher is cancelled before the upstream, as in Combine (OpenCombine
  /// SwitchToLatestTests `testCancelCancels`).
  @Test func cancelCancelsTheLatestPublisherAndThenTheUpstream() {
    let upstream = HandDrivenUpstream<HandDrivenUpstream<Int, Never>, Never>(conduct: .careless)
    let inner = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(42))
    upstream.switchToLatest().subscribe(subscriber)
    var innerAtUpstreamCancel: [SubscriptionEvent] = []
    upstream.onCancel = { innerAtUpstreamCancel = inner.events }
    #expect(upstream.send(inner) == .none)
    subscriber.cancel()
    subscriber.subscription?.cancel()
    #expect(innerAtUpstreamCancel == [.requested(.max(42)), .cancelled])
    #expect(upstream.events == [.requested(.unlimited), .cancelled])
    upstream.detach()
    inner.detach()
  }

  // MARK: Rule-breaking inner publishers

  /// A value the latest publisher sends before its subscription goes downstream if there is
  /// demand, and the demand the subscriber returns goes back to it, as in Combine
  /// (`testSwitchToLatestInnerReceiveValueBeforeSubscription`).
  @Test func aValueBeforeTheInnersSubscriptionIsDeliveredAndAnswered() {
    let upstream = HandDrivenUpstream<HandDrivenUpstream<Int, Never>, Never>()
    let inner = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .unlimited, demandPerValue: .max(42))
    upstream.switchToLatest().subscribe(subscriber)
    upstream.send(inner)
    #expect(inner.send(1) == .max(42))
    #expect(subscriber.values == [1])
    subscriber.cancel()
    inner.detach()
  }

  /// The latest publisher was asked for exactly the demand outstanding: a value beyond it breaks
  /// the contract, and Combine stops there too
  /// (`testCrashesWhenReceivingUnwantedValueFromNestedPublisher`).
  @Test func aValueBeyondTheDemandStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<HandDrivenUpstream<Int, Never>, Never>()
      let inner = HandDrivenUpstream<Int, Never>()
      let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
      upstream.switchToLatest().subscribe(subscriber)
      upstream.send(inner)
      inner.send(-1)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("switchToLatest(): an inner publisher sent a value it was not asked for"))
  }

  /// The latest publisher completing before its subscription breaks the contract, and Combine
  /// stops there too (`testSwitchToLatestInnerReceiveCompletionBeforeSubscription`).
  @Test func aCompletionBeforeTheInnersSubscriptionStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<HandDrivenUpstream<Int, SwitchTestError>, SwitchTestError>()
      let inner = HandDrivenUpstream<Int, SwitchTestError>(conduct: .careless, sendsSubscription: false)
      let subscriber = TestSubscriber<Int, SwitchTestError>()
      upstream.switchToLatest().subscribe(subscriber)
      upstream.send(inner)
      inner.send(completion: .finished)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("switchToLatest(): an inner publisher completed before sending its subscription"))
  }

  /// `testSwitchToLatestInnerReceiveFailureBeforeSubscription`: the same with a failure.
  @Test func aFailureBeforeTheInnersSubscriptionStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<HandDrivenUpstream<Int, SwitchTestError>, SwitchTestError>()
      let inner = HandDrivenUpstream<Int, SwitchTestError>(conduct: .careless, sendsSubscription: false)
      let subscriber = TestSubscriber<Int, SwitchTestError>()
      upstream.switchToLatest().subscribe(subscriber)
      upstream.send(inner)
      inner.send(completion: .failure(.failed))
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("switchToLatest(): an inner publisher completed before sending its subscription"))
  }

  /// Scalar inner publishers are never subscribed to: their completions are no contract breach.
  @Test func scalarInnerPublishersCompleteWithoutASubscription() {
    let upstream = PassthroughSubject<Result<Int, SwitchTestError>.Publisher, SwitchTestError>()
    let subscriber = TestSubscriber<Int, SwitchTestError>()
    upstream.switchToLatest().subscribe(subscriber)
    upstream.send(Result.Publisher(.success(1)))
    upstream.send(Result.Publisher(.failure(.failed)))
    #expect(subscriber.events == [.subscription, .value(1), .completion(.failure(.failed))])
  }

  // MARK: Reflection

  /// The subscription and the subscribers it gives the inner publishers describe themselves as
  /// Combine's do (OpenCombine `testSwitchToLatestReflection`).
  @Test func describesItselfAsCombineDoes() throws {
    let upstream = HandDrivenUpstream<SubscriberKeeper<Int, Never>, Never>(conduct: .careless)
    let inner = SubscriberKeeper<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.switchToLatest().subscribe(subscriber)
    let subscription = try #require(subscriber.subscription)
    #expect(upstream.subscriberDescription == "SwitchToLatest")
    #expect((subscription as? any CustomStringConvertible)?.description == "SwitchToLatest")
    #expect((subscription as? any CustomReflectable)?.customMirror.children.isEmpty == true)
    #expect(
      (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "SwitchToLatest")
    upstream.send(inner)
    let innerSubscriber = try #require(inner.subscriber)
    #expect(!(innerSubscriber is any Subscription))
    #expect((innerSubscriber as? any CustomStringConvertible)?.description == "SwitchToLatest")
    let mirror = try #require((innerSubscriber as? any CustomReflectable)?.customMirror)
    #expect(mirror.children.map(\.label) == ["parentSubscription"])
    #expect(mirror.children.first?.value as? CombineIdentifier == subscription.combineIdentifier)
    #expect(
      (innerSubscriber as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
        == "SwitchToLatest")
    subscriber.cancel()
    upstream.detach()
    inner.subscriber = nil
  }

  // MARK: Re-entrancy

  @Test func switchingFromInsideReceiveDropsTheOldPublisher() {
    let upstream = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { value in
      if value == 1 {
        upstream.send(second)
        first.send(2)
        second.send(3)
      }
    }
    upstream.switchToLatest().subscribe(subscriber)
    upstream.send(first)
    first.send(1)
    first.send(4)
    #expect(subscriber.values == [1, 3])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  // MARK: Overloads for publishers that cannot fail

  @Test func anUpstreamThatCannotFailTakesTheInnerFailureType() {
    let upstream = PassthroughSubject<Fail<Int, SwitchTestError>, Never>()
    let switched:
      Publishers.SwitchToLatest<
        Fail<Int, SwitchTestError>,
        Publishers.SetFailureType<PassthroughSubject<Fail<Int, SwitchTestError>, Never>, SwitchTestError>
      > = upstream.switchToLatest()
    let subscriber = TestSubscriber<Int, SwitchTestError>()
    switched.subscribe(subscriber)
    upstream.send(Fail(error: .failed))
    #expect(subscriber.completion == .failure(.failed))
  }

  @Test func innerPublishersThatCannotFailTakeTheUpstreamFailureType() {
    let upstream = PassthroughSubject<Just<Int>, SwitchTestError>()
    let switched:
      Publishers.SwitchToLatest<
        Publishers.SetFailureType<Just<Int>, SwitchTestError>,
        Publishers.Map<
          PassthroughSubject<Just<Int>, SwitchTestError>, Publishers.SetFailureType<Just<Int>, SwitchTestError>
        >
      > = upstream.switchToLatest()
    let subscriber = TestSubscriber<Int, SwitchTestError>()
    switched.subscribe(subscriber)
    upstream.send(Just(1))
    upstream.send(completion: .failure(.other))
    #expect(subscriber.events == [.subscription, .value(1), .completion(.failure(.other))])
  }

  @Test func publishersThatCannotFailKeepTheirTypes() {
    let neither: Publishers.SwitchToLatest<Just<Int>, Just<Just<Int>>> = Just(Just(1)).switchToLatest()
    let both: Publishers.SwitchToLatest<Fail<Int, SwitchTestError>, Fail<Fail<Int, SwitchTestError>, SwitchTestError>> =
      Fail(error: .failed).switchToLatest()
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, SwitchTestError>()
    neither.subscribe(first)
    both.subscribe(second)
    #expect(first.events == [.subscription, .value(1), .completion(.finished)])
    #expect(second.completion == .failure(.failed))
  }

  /// A cancel lets go of the value waiting for demand after the operator's lock: a value whose
  /// `deinit` cancels the same subscription stopped the process on the lock taken twice.
  @Test func waitingValueMayCancelTheSubscriptionInItsDeinit() {
    let upstream = PassthroughSubject<Just<DeinitProbe>, Never>()
    let holder = DeinitCancellingSubscriber<DeinitProbe, Never>.Holder()
    upstream.switchToLatest().subscribe(DeinitCancellingSubscriber<DeinitProbe, Never>(holder: holder))
    var cancelledInDeinit = false
    upstream.send(
      Just(
        DeinitProbe {
          holder.subscription?.cancel()
          cancelledInDeinit = true
        }))
    #expect(!cancelledInDeinit)
    holder.subscription?.cancel()
    #expect(cancelledInDeinit)
    holder.subscription = nil
  }
}

@Suite(.leakChecked, .serialized)
struct SwitchToLatestStressTests {
  /// The current inner publisher fails on one thread while the upstream switches to the next one
  /// on another. Whichever comes first, the next inner publisher never stays subscribed once the
  /// failure has reached the subscriber: the failure used to be checked and acted on under two
  /// separate locks, and a switch in between left the next inner publisher subscribed, never
  /// cancelled.
  @Test func aFailingInnerRacingTheNextInnerLeavesNoInnerSubscribed() {
    let rounds = 20_000
    let arrived = Atomic<Int>(0)
    let races = (0..<rounds).map { _ in SwitchRound() }
    for round in races {
      round.upstream.switchToLatest().subscribe(round.subscriber)
      round.upstream.send(round.failing)
    }
    runOnThreads(2) { thread in
      for (index, round) in races.enumerated() {
        // Both threads start each round together.
        arrived.wrappingAdd(1, ordering: .acquiringAndReleasing)
        while arrived.load(ordering: .acquiring) < 2 * (index + 1) {}
        if thread == 0 {
          round.failing.send(completion: .failure(.failed))
        } else {
          round.upstream.send(round.next)
        }
      }
    }
    for round in races {
      let nextActive = round.next.isActive == true
      if round.subscriber.completion == .failure(.failed) {
        // The failure came first: the next inner publisher was never subscribed, or was cancelled.
        #expect(!nextActive)
      } else {
        // The switch came first: the failure of a replaced inner publisher changes nothing.
        #expect(round.subscriber.completion == nil)
        #expect(nextActive)
      }
      #expect(round.subscriber.violations.isEmpty)
      round.subscriber.cancel()
      round.upstream.send(completion: .finished)
      round.next.send(completion: .finished)
    }
  }
}

/// One round of the race above.
private struct SwitchRound: @unchecked Sendable {
  let upstream = PassthroughSubject<HandDrivenUpstream<Int, SwitchTestError>, SwitchTestError>()
  let failing = HandDrivenUpstream<Int, SwitchTestError>()
  let next = HandDrivenUpstream<Int, SwitchTestError>()
  let subscriber = TestSubscriber<Int, SwitchTestError>()
}

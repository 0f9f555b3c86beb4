import Conduit
import ConduitTesting
import Testing

private enum CatchTestError: Error, Equatable {
  case failed
  case other
}

private final class CatchProbe {}

@Suite(.leakChecked)
struct CatchTests {
  // `zip` subscribes its upstreams before its subscriber has asked for anything: the replacement,
  // subscribed meanwhile, is asked for nothing until then, and for all the subscriber asks after.
  @Test func aReplacementSubscribedWhileZipSubscribesItsUpstreamsGetsTheLaterDemand() {
    let subscriber = TestSubscriber<[Int], CatchTestError>()
    let caught = Fail<Int, CatchTestError>(error: .failed).catch { _ in
      (1...3).publisher.setFailureType(to: CatchTestError.self)
    }
    caught.zip((10...12).publisher.setFailureType(to: CatchTestError.self)).map { [$0, $1] }.subscribe(subscriber)
    #expect(
      subscriber.events == [
        .subscription, .value([1, 10]), .value([2, 11]), .value([3, 12]), .completion(.finished),
      ])

    let tried = TestSubscriber<[Int], any Error>()
    Fail<Int, CatchTestError>(error: .failed).tryCatch { _ in (1...3).publisher }
      .zip((10...12).publisher.setFailureType(to: (any Error).self)).map { [$0, $1] }.subscribe(tried)
    #expect(tried.values == [[1, 10], [2, 11], [3, 12]])
    #expect(tried.completion.map { if case .finished = $0 { true } else { false } } == true)
  }

  @Test func switchesToTheReplacementWhenTheUpstreamFails() {
    let upstream = PassthroughSubject<Int, CatchTestError>()
    let subscriber = TestSubscriber<Int, Never>()
    var caught: [CatchTestError] = []
    upstream
      .catch { error -> Publishers.Sequence<[Int], Never> in
        caught.append(error)
        return [8, 9].publisher
      }
      .subscribe(subscriber)
    upstream.send(1)
    upstream.send(completion: .failure(.failed))
    #expect(caught == [.failed])
    #expect(subscriber.events == [.subscription, .value(1), .value(8), .value(9), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func finishesWithoutCallingTheHandlerWhenTheUpstreamFinishes() {
    let subscriber = TestSubscriber<Int, Never>()
    var calls = 0
    [1, 2].publisher.setFailureType(to: CatchTestError.self)
      .catch { _ -> Just<Int> in
        calls += 1
        return Just(0)
      }
      .subscribe(subscriber)
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion == .finished)
    #expect(calls == 0)
  }

  @Test func forwardsTheReplacementFailure() {
    let subscriber = TestSubscriber<Int, CatchTestError>()
    Fail<Int, CatchTestError>(error: .failed)
      .catch { _ in Fail<Int, CatchTestError>(error: .other) }
      .subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.failure(.other))])
  }

  @Test func carriesTheRemainingDemandToTheReplacement() {
    let upstream = HandDrivenUpstream<Int, CatchTestError>()
    let replacement = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
    upstream.catch { _ in replacement }.subscribe(subscriber)
    #expect(upstream.link?.requests == [.max(3)])
    upstream.send(1)
    upstream.send(completion: .failure(.failed))
    #expect(replacement.link?.requests == [.max(2)])
    subscriber.request(.max(1))
    #expect(replacement.link?.requests == [.max(2), .max(1)])
    replacement.send(2)
    replacement.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func demandReturnedFromReceiveIsCarriedToo() {
    let upstream = HandDrivenUpstream<Int, CatchTestError>()
    let replacement = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(2))
    upstream.catch { _ in replacement }.subscribe(subscriber)
    #expect(upstream.send(1) == .max(2))
    upstream.send(completion: .failure(.failed))
    #expect(replacement.link?.requests == [.max(2)])
    replacement.send(completion: .finished)
  }

  @Test func asksTheReplacementForNothingWhenNoDemandIsLeft() {
    let upstream = HandDrivenUpstream<Int, CatchTestError>()
    let replacement = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.catch { _ in replacement }.subscribe(subscriber)
    upstream.send(1)
    upstream.send(completion: .failure(.failed))
    #expect(replacement.link?.requests == [])
    subscriber.request(.max(1))
    #expect(replacement.link?.requests == [.max(1)])
    subscriber.cancel()
    #expect(replacement.link?.isCancelled == true)
  }

  @Test func cancelCancelsTheUpstream() {
    let upstream = HandDrivenUpstream<Int, CatchTestError>()
    let subscriber = TestSubscriber<Int, Never>()
    var calls = 0
    upstream
      .catch { _ -> Just<Int> in
        calls += 1
        return Just(0)
      }
      .subscribe(subscriber)
    upstream.send(1)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    upstream.send(2)
    upstream.send(completion: .failure(.failed))
    #expect(subscriber.values == [1])
    #expect(calls == 0)
  }

  @Test func cancelCancelsTheReplacement() {
    let upstream = HandDrivenUpstream<Int, CatchTestError>()
    let replacement = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.catch { _ in replacement }.subscribe(subscriber)
    upstream.send(completion: .failure(.failed))
    subscriber.cancel()
    #expect(replacement.link?.isCancelled == true)
    replacement.send(1)
    #expect(subscriber.values.isEmpty)
  }

  @Test func releasesTheHandlerWhenItEnds() {
    weak var weakProbe: CatchProbe?
    let upstream = PassthroughSubject<Int, CatchTestError>()
    let subscriber = TestSubscriber<Int, Never>()
    do {
      let probe = CatchProbe()
      weakProbe = probe
      upstream.catch { _ in
        _ = probe
        return Just(0)
      }.subscribe(subscriber)
    }
    #expect(weakProbe != nil)
    upstream.send(completion: .failure(.failed))
    #expect(weakProbe == nil)
    #expect(subscriber.events == [.subscription, .value(0), .completion(.finished)])
  }

  @Test func aReplacementThatFailsAtOnceFromInsideTheHandlerPathStaysInOrder() {
    let subscriber = TestSubscriber<Int, CatchTestError>()
    [1].publisher.setFailureType(to: CatchTestError.self)
      .append(Fail(error: .failed))
      .catch { _ in [2, 3].publisher.setFailureType(to: CatchTestError.self) }
      .subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)])
  }

  @Test func reentrantRequestsFromTheReplacementDoNotGrowTheStack() {
    let count = 20_000
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    Fail<Int, CatchTestError>(error: .failed).catch { _ in (0..<count).publisher }.subscribe(subscriber)
    #expect(subscriber.values.count == count)
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  /// A cancel, or the upstream's finishing, lets go of the handler after the operator's lock: an
  /// object the handler captured whose `deinit` cancels the same subscription stopped the
  /// process on the lock taken twice.
  @Test func handlerCapturesMayCancelTheSubscriptionInTheirDeinit() {
    struct Failed: Error {}
    for ending in ["cancel", "finished"] {
      let upstream = PassthroughSubject<Int, Failed>()
      let holder = DeinitCancellingSubscriber<Int, Never>.Holder()
      var cancelledInDeinit = false
      let cancelling = {
        holder.subscription?.cancel()
        cancelledInDeinit = true
      }
      upstream.catch { [captured = DeinitProbe(onDeinit: cancelling)] _ in
        withExtendedLifetime(captured) {}
        return Just(0)
      }
      .subscribe(DeinitCancellingSubscriber<Int, Never>(holder: holder))
      if ending == "cancel" { holder.subscription?.cancel() } else { upstream.send(completion: .finished) }
      #expect(cancelledInDeinit, "\(ending)")
      holder.subscription = nil
    }
  }

  /// Catch returns the downstream's demand to upstream, and asks the replacement for all the
  /// demand outstanding. Evidence: OpenCombine
  /// Tests/OpenCombineTests/PublisherTests/CatchTests.swift `testPreservesDemand`
  /// (`send(i) == .max(3)`, replacement `[.requested(.max(33))]`).
  @Test func catchCarriesOutstandingDemandToTheReplacement() {
    let upstream = HandDrivenUpstream<Int, ParityError>()
    let replacement = HandDrivenUpstream<Int, Never>()
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
}

@Suite(.leakChecked)
struct CatchStressTests {
  @Test func cancelRacingValuesStopsDelivery() {
    expectCancelRacingValuesStopsDelivery { subject, subscriber in
      subject.setFailureType(to: CatchStressError.self).catch { _ in Just(-1) }.subscribe(subscriber)
    }
  }

  @Test func requestAndCancelFromInsideReceiveStopAtTheCancel() {
    expectRequestAndCancelFromInsideReceiveStopsAtTheCancel { subject, subscriber in
      subject.setFailureType(to: CatchStressError.self).catch { _ in Just(-1) }.subscribe(subscriber)
    }
  }
}

private struct CatchStressError: Error {}

// MARK: As Combine (OpenCombine's CatchTests.swift)

extension CatchTests {
  // `testCatchCrashesOnUnwantedInput`, `testCatchReceiveValueBeforeSubscription`: a value the
  // subscriber has not asked for stops the process, one before the subscription too.
  @Test func aValueBeyondTheDemandStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, CatchTestError>(conduct: .careless)
      upstream.catch { _ in Just(-1) }.subscribe(TestSubscriber<Int, Never>(initialDemand: .none))
      upstream.send(42)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Catch: the upstream sent a value the subscriber had not requested"))
    await #expect(processExitsWith: .failure) {
      let upstream = HandDrivenUpstream<Int, CatchTestError>(conduct: .careless, sendsSubscription: false)
      upstream.catch { _ in Just(-1) }.subscribe(TestSubscriber<Int, Never>())
      upstream.send(1)
    }
  }

  // `testCatchUpstreamFailsTwice`, `testCatchRecursion`: a second failure of the upstream, from
  // inside the handler too, stops the process; so does a failure before the subscription.
  @Test func aSecondFailureOfTheUpstreamStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, CatchTestError>(conduct: .careless)
      let replacement = HandDrivenUpstream<Int, Never>(conduct: .careless)
      upstream.catch { _ in replacement }.subscribe(TestSubscriber<Int, Never>())
      upstream.send(completion: .failure(.failed))
      upstream.send(completion: .failure(.failed))
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Catch: the upstream failed before its subscription or after failing once"))
    await #expect(processExitsWith: .failure) {
      let upstream = HandDrivenUpstream<Int, CatchTestError>(conduct: .careless)
      upstream
        .catch { _ in
          upstream.send(completion: .failure(.failed))
          return Just(13)
        }
        .subscribe(TestSubscriber<Int, Never>())
      upstream.send(completion: .failure(.failed))
    }
    await #expect(processExitsWith: .failure) {
      let upstream = HandDrivenUpstream<Int, CatchTestError>(conduct: .careless, sendsSubscription: false)
      upstream.catch { _ in Just(13) }.subscribe(TestSubscriber<Int, Never>())
      upstream.send(completion: .failure(.failed))
    }
  }

  // `testCatchUpstreamFinishes`, `testCatchReceiveCompletionBeforeSubscription`: a finish after
  // the end, or before the subscription, is ignored.
  @Test func aFinishBeforeTheSubscriptionOrAfterTheEndIsIgnored() {
    let upstream = HandDrivenUpstream<Int, CatchTestError>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, Never>(initialDemand: .max(1))
    var handled = 0
    upstream
      .catch { _ -> Just<Int> in
        handled += 1
        return Just(0)
      }
      .subscribe(subscriber)
    upstream.send(completion: .finished)
    #expect(subscriber.history.isEmpty)
    upstream.sendSubscription()
    upstream.send(completion: .finished)
    upstream.send(completion: .finished)
    upstream.send(completion: .failure(.failed))
    #expect(subscriber.history == ["subscription(Catch)", "finished"])
    #expect(handled == 0)
  }

  // `testCatchReflection`: the subscription, and the subscribers to the upstream and to the
  // replacement, reflect the downstream and the demand not yet met.
  @Test func reflectsAsCombineDoes() throws {
    let upstream = HandDrivenUpstream<Int, CatchTestError>(conduct: .careless)
    let replacement = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.catch { _ in replacement }.subscribe(subscriber)
    upstream.send(completion: .failure(.failed))
    let parts: [Any] = [
      try #require(upstream.subscriberObject), try #require(replacement.subscriberObject),
      try #require(subscriber.subscription),
    ]
    for part in parts {
      #expect((part as? any CustomStringConvertible)?.description == "Catch")
      #expect((part as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Catch")
      let children = (part as? any CustomReflectable)?.customMirror.children.map {
        ($0.label, String(describing: $0.value))
      }
      #expect(children?.map(\.0) == ["downstream", "demand"])
      #expect(children?.first?.1.contains("TestSubscriber") == true)
      #expect(children?.last?.1 == "max(0)")
    }
    subscriber.cancel()
  }
}

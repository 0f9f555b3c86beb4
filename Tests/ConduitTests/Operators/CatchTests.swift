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
    let upstream = HandDrivenPublisher<Int, CatchTestError>()
    let replacement = HandDrivenPublisher<Int, Never>()
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
    let upstream = HandDrivenPublisher<Int, CatchTestError>()
    let replacement = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(2))
    upstream.catch { _ in replacement }.subscribe(subscriber)
    #expect(upstream.send(1) == .max(2))
    upstream.send(completion: .failure(.failed))
    #expect(replacement.link?.requests == [.max(2)])
    replacement.send(completion: .finished)
  }

  @Test func asksTheReplacementForNothingWhenNoDemandIsLeft() {
    let upstream = HandDrivenPublisher<Int, CatchTestError>()
    let replacement = HandDrivenPublisher<Int, Never>()
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
    let upstream = HandDrivenPublisher<Int, CatchTestError>()
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
    let upstream = HandDrivenPublisher<Int, CatchTestError>()
    let replacement = HandDrivenPublisher<Int, Never>()
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

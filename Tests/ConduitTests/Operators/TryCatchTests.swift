import Conduit
import ConduitTesting
import Testing

private enum TryCatchTestError: Error, Equatable {
  case failed
  case rethrown
  case replacementFailed
}

@Suite(.leakChecked)
struct TryCatchTests {
  @Test func switchesToTheReplacementWhenTheHandlerReturns() {
    let upstream = PassthroughSubject<Int, TryCatchTestError>()
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryCatch { _ in [7, 8].publisher }.subscribe(subscriber)
    upstream.send(1)
    upstream.send(completion: .failure(.failed))
    #expect(subscriber.values == [1, 7, 8])
    guard case .finished = subscriber.completion else {
      Issue.record("expected .finished, got \(String(describing: subscriber.completion))")
      return
    }
  }

  @Test func failsWithTheErrorTheHandlerThrows() {
    let upstream = HandDrivenPublisher<Int, TryCatchTestError>()
    let subscriber = TestSubscriber<Int, any Error>()
    var calls = 0
    upstream
      .tryCatch { error -> Just<Int> in
        calls += 1
        #expect(error == .failed)
        throw TryCatchTestError.rethrown
      }
      .subscribe(subscriber)
    upstream.send(1)
    upstream.send(completion: .failure(.failed))
    #expect(calls == 1)
    #expect(subscriber.values == [1])
    guard case .failure(let error) = subscriber.completion else {
      Issue.record("expected a failure, got \(String(describing: subscriber.completion))")
      return
    }
    #expect(error as? TryCatchTestError == .rethrown)
  }

  @Test func forwardsTheReplacementFailureAsAnyError() {
    let subscriber = TestSubscriber<Int, any Error>()
    Fail<Int, TryCatchTestError>(error: .failed)
      .tryCatch { _ in Fail<Int, TryCatchTestError>(error: .replacementFailed) }
      .subscribe(subscriber)
    guard case .failure(let error) = subscriber.completion else {
      Issue.record("expected a failure, got \(String(describing: subscriber.completion))")
      return
    }
    #expect(error as? TryCatchTestError == .replacementFailed)
  }

  @Test func finishesWithoutCallingTheHandlerWhenTheUpstreamFinishes() {
    let subscriber = TestSubscriber<Int, any Error>()
    var calls = 0
    Just(1).setFailureType(to: TryCatchTestError.self)
      .tryCatch { _ -> Just<Int> in
        calls += 1
        return Just(0)
      }
      .subscribe(subscriber)
    #expect(subscriber.values == [1])
    #expect(calls == 0)
    guard case .finished = subscriber.completion else {
      Issue.record("expected .finished, got \(String(describing: subscriber.completion))")
      return
    }
  }

  @Test func carriesTheRemainingDemandToTheReplacement() {
    let upstream = HandDrivenPublisher<Int, TryCatchTestError>()
    let replacement = HandDrivenPublisher<Int, TryCatchTestError>()
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(4))
    upstream.tryCatch { _ in replacement }.subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .failure(.failed))
    #expect(replacement.link?.requests == [.max(2)])
    replacement.send(3)
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
    #expect(replacement.link?.isCancelled == true)
  }

  @Test func cancelCancelsTheUpstreamAndSkipsTheHandler() {
    let upstream = HandDrivenPublisher<Int, TryCatchTestError>()
    let subscriber = TestSubscriber<Int, any Error>()
    var calls = 0
    upstream
      .tryCatch { _ -> Just<Int> in
        calls += 1
        return Just(0)
      }
      .subscribe(subscriber)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    upstream.send(completion: .failure(.failed))
    #expect(calls == 0)
    #expect(subscriber.completion == nil)
  }

  @Test func describesItselfAsTryCatch() {
    let upstream = HandDrivenPublisher<Int, TryCatchTestError>()
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryCatch { _ in Just(0) }.subscribe(subscriber)
    let description = (subscriber.subscription as? any CustomStringConvertible)?.description
    #expect(description == "TryCatch")
    subscriber.cancel()
  }
}

@Suite(.leakChecked)
struct TryCatchStressTests {
  @Test func cancelRacingValuesStopsDelivery() {
    expectCancelRacingValuesStopsDelivery { subject, subscriber in
      subject.setFailureType(to: TryCatchStressError.self).tryCatch { _ in Just(-1) }.replaceError(with: -2).subscribe(
        subscriber)
    }
  }

  @Test func requestAndCancelFromInsideReceiveStopAtTheCancel() {
    expectRequestAndCancelFromInsideReceiveStopsAtTheCancel { subject, subscriber in
      subject.setFailureType(to: TryCatchStressError.self).tryCatch { _ in Just(-1) }.replaceError(with: -2).subscribe(
        subscriber)
    }
  }
}

private struct TryCatchStressError: Error {}

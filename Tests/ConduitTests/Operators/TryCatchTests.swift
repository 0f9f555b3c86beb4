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
    let upstream = HandDrivenUpstream<Int, TryCatchTestError>()
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
    let upstream = HandDrivenUpstream<Int, TryCatchTestError>()
    let replacement = HandDrivenUpstream<Int, TryCatchTestError>()
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
    let upstream = HandDrivenUpstream<Int, TryCatchTestError>()
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
    let upstream = HandDrivenUpstream<Int, TryCatchTestError>()
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryCatch { _ in Just(0) }.subscribe(subscriber)
    let description = (subscriber.subscription as? any CustomStringConvertible)?.description
    #expect(description == "TryCatch")
    subscriber.cancel()
  }

  /// The handler throws: the stream fails with the thrown error; upstream, which has already
  /// failed, is not cancelled. (Matches.)
  /// Evidence (OpenCombine): Tests/OpenCombineTests/PublisherTests/CatchTests.swift `testTryCatchHandlerThrows`.
  @Test func tryCatchHandlerThrowFailsWithTheThrownError() {
    let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .unlimited)
    struct Thrown: Error {}
    upstream.tryCatch { _ -> Just<Int> in throw Thrown() }.subscribe(subscriber)
    #expect(upstream.send(1) == .none)
    upstream.send(completion: .failure(ParityError()))
    #expect(subscriber.values == [1])
    #expect(failure(of: subscriber) is Thrown)
    #expect(upstream.events == [.requested(.unlimited)])
    upstream.detach()
  }

  /// The replacement is asked for the demand left over: 12 + 5 requested, 8 delivered that each
  /// returned 3 more, so 12 + 5 + 24 - 8 = 33. (Matches.)
  /// Evidence (OpenCombine): CatchTests.swift `testTryCatchPreservesDemand` (`errorHandlerSubscription.history
  /// == [.requested(.max(33))]`).
  @Test func tryCatchCarriesTheOutstandingDemandToTheReplacement() {
    let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless)
    let replacement = HandDrivenUpstream<Int, any Error>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(12), demandPerValue: .max(3))
    upstream.tryCatch { _ in replacement }.subscribe(subscriber)
    subscriber.request(.max(5))
    for value in 1...8 { #expect(upstream.send(value) == .max(3)) }
    upstream.send(completion: .failure(ParityError()))
    #expect(upstream.events == [.requested(.max(12)), .requested(.max(5))])
    #expect(replacement.events == [.requested(.max(33))])
    subscriber.cancel()
    upstream.detach()
    replacement.detach()
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

// MARK: As Combine (OpenCombine's CatchTests.swift)

extension TryCatchTests {
  // `testTryCatchCrashesOnUnwantedInput`, `testTryCatchUpstreamFailsTwice`: a value the
  // subscriber has not asked for, or a second failure of the upstream, stops the process.
  @Test func anUpstreamBreakingTheContractStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, TryCatchTestError>(conduct: .careless)
      upstream.tryCatch { _ in Just(-1) }.subscribe(TestSubscriber<Int, any Error>(initialDemand: .none))
      upstream.send(42)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("TryCatch: the upstream sent a value the subscriber had not requested"))
    await #expect(processExitsWith: .failure) {
      let upstream = HandDrivenUpstream<Int, TryCatchTestError>(conduct: .careless)
      let replacement = HandDrivenUpstream<Int, Never>(conduct: .careless)
      upstream.tryCatch { _ in replacement }.subscribe(TestSubscriber<Int, any Error>())
      upstream.send(completion: .failure(.failed))
      upstream.send(completion: .failure(.failed))
    }
  }

  // `testTryCatchHandlerThrows`: once the handler has thrown, a further failure is ignored.
  @Test func aFailureAfterTheHandlerThrewIsIgnored() {
    let upstream = HandDrivenUpstream<Int, TryCatchTestError>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>()
    var handled = 0
    upstream
      .tryCatch { _ -> Just<Int> in
        handled += 1
        throw TryCatchTestError.rethrown
      }
      .subscribe(subscriber)
    upstream.send(completion: .failure(.failed))
    upstream.send(completion: .failure(.failed))
    upstream.send(completion: .finished)
    #expect(handled == 1)
    #expect(subscriber.events.count == 2)
    #expect(
      (subscriber.completion.flatMap { if case .failure(let error) = $0 { error } else { nil } } as? TryCatchTestError)
        == .rethrown)
  }

  // `testTryCatchReflection`.
  @Test func reflectsAsCombineDoes() throws {
    let upstream = HandDrivenUpstream<Int, TryCatchTestError>(conduct: .careless, sendsSubscription: false)
    upstream.tryCatch { _ in Just(0) }.subscribe(TestSubscriber<Int, any Error>())
    let inner = try #require(upstream.subscriberObject)
    #expect((inner as? any CustomStringConvertible)?.description == "TryCatch")
    #expect((inner as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "TryCatch")
    let children = (inner as? any CustomReflectable)?.customMirror.children.map {
      ($0.label, String(describing: $0.value))
    }
    #expect(children?.map(\.0) == ["downstream", "demand"])
    #expect(children?.last?.1 == "max(0)")
    upstream.sendSubscription()
    upstream.send(completion: .finished)
  }
}

import Conduit
import ConduitTesting
import Testing

private enum RetryTestError: Error, Equatable {
  case failed(attempt: Int)
}

/// Counts the subscriptions of a `Deferred` publisher that fails the first `failures` of them.
private final class SubscriptionCounter {
  var count = 0

  func publisher(failingFirst failures: Int) -> Deferred<Result<Int, RetryTestError>.Publisher> {
    Deferred {
      self.count += 1
      let attempt = self.count
      return Result.Publisher(attempt <= failures ? .failure(.failed(attempt: attempt)) : .success(attempt))
    }
  }
}

@Suite(.leakChecked)
struct RetryTests {
  @Test func resubscribesAfterEachFailureUntilTheUpstreamSucceeds() {
    let counter = SubscriptionCounter()
    let subscriber = TestSubscriber<Int, RetryTestError>()
    counter.publisher(failingFirst: 2).retry(5).subscribe(subscriber)
    #expect(counter.count == 3)
    #expect(subscriber.events == [.subscription, .value(3), .completion(.finished)])
    #expect(subscriber.subscriptionCount == 1)
  }

  @Test func givesUpAfterTheGivenNumberOfRetries() {
    let counter = SubscriptionCounter()
    let subscriber = TestSubscriber<Int, RetryTestError>()
    counter.publisher(failingFirst: .max).retry(3).subscribe(subscriber)
    #expect(counter.count == 4)
    #expect(subscriber.events == [.subscription, .completion(.failure(.failed(attempt: 4)))])
  }

  @Test func retryZeroSubscribesOnce() {
    let counter = SubscriptionCounter()
    let subscriber = TestSubscriber<Int, RetryTestError>()
    counter.publisher(failingFirst: .max).retry(0).subscribe(subscriber)
    #expect(counter.count == 1)
    #expect(subscriber.completion == .failure(.failed(attempt: 1)))
  }

  @Test func aNilRetryCountRetriesWithoutLimit() {
    let counter = SubscriptionCounter()
    let subscriber = TestSubscriber<Int, RetryTestError>()
    Publishers.Retry(upstream: counter.publisher(failingFirst: 50), retries: nil).subscribe(subscriber)
    #expect(counter.count == 51)
    #expect(subscriber.values == [51])
    #expect(subscriber.completion == .finished)
  }

  @Test func valuesBeforeAFailureAreKept() {
    let upstream = HandDrivenUpstream<Int, RetryTestError>()
    let subscriber = TestSubscriber<Int, RetryTestError>()
    upstream.retry(1).subscribe(subscriber)
    upstream.send(1)
    upstream.send(completion: .failure(.failed(attempt: 1)))
    #expect(upstream.subscriptionCount == 2)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func carriesTheRemainingDemandToTheNewSubscription() {
    let upstream = HandDrivenUpstream<Int, RetryTestError>()
    let subscriber = TestSubscriber<Int, RetryTestError>(initialDemand: .max(3))
    upstream.retry(2).subscribe(subscriber)
    #expect(upstream.link?.requests == [.max(3)])
    upstream.send(1)
    upstream.send(completion: .failure(.failed(attempt: 1)))
    #expect(upstream.links.count == 2)
    #expect(upstream.link?.requests == [.max(2)])
    subscriber.request(.max(1))
    #expect(upstream.link?.requests == [.max(2), .max(1)])
    #expect(upstream.links[0].requests == [.max(3)])
    upstream.send(2)
    upstream.send(3)
    upstream.send(completion: .failure(.failed(attempt: 2)))
    #expect(upstream.link?.requests == [.max(1)])
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  // As in Combine: demand the subscriber returns from `receive(_:)` is asked of the upstream with
  // `request(_:)`, and counted for a resubscription.
  @Test func asksForDemandReturnedFromReceiveRatherThanReturningIt() {
    let upstream = HandDrivenUpstream<Int, RetryTestError>()
    let subscriber = TestSubscriber<Int, RetryTestError>(initialDemand: .max(3), demandPerValue: .max(5))
    upstream.retry(1).subscribe(subscriber)
    #expect(upstream.send(5) == .none)
    #expect(upstream.link?.requests == [.max(3), .max(5)])
    upstream.send(completion: .failure(.failed(attempt: 1)))
    #expect(upstream.link?.requests == [.max(7)])
    subscriber.cancel()
  }

  @Test func asksTheNewSubscriptionForNothingWhenNoDemandIsLeft() {
    let upstream = HandDrivenUpstream<Int, RetryTestError>()
    let subscriber = TestSubscriber<Int, RetryTestError>(initialDemand: .max(1))
    upstream.retry(1).subscribe(subscriber)
    upstream.send(1)
    upstream.send(completion: .failure(.failed(attempt: 1)))
    #expect(upstream.link?.requests == [])
    subscriber.cancel()
  }

  @Test func cancelCancelsTheCurrentSubscriptionAndStopsRetrying() {
    let upstream = HandDrivenUpstream<Int, RetryTestError>()
    let subscriber = TestSubscriber<Int, RetryTestError>()
    upstream.retry(3).subscribe(subscriber)
    upstream.send(completion: .failure(.failed(attempt: 1)))
    subscriber.cancel()
    #expect(upstream.links.count == 2)
    #expect(upstream.link?.isCancelled == true)
    upstream.send(completion: .failure(.failed(attempt: 2)))
    #expect(upstream.links.count == 2)
    #expect(subscriber.completion == nil)
  }

  @Test func manyImmediateFailuresDoNotGrowTheStack() {
    let counter = SubscriptionCounter()
    let subscriber = TestSubscriber<Int, RetryTestError>()
    counter.publisher(failingFirst: 100_000).retry(100_000).subscribe(subscriber)
    #expect(counter.count == 100_001)
    #expect(subscriber.values == [100_001])
    #expect(subscriber.completion == .finished)
  }

  @Test func isEquatableWhenItsUpstreamIs() {
    // `Just.retry` is specialised to return a `Just`, so the struct is built directly here.
    #expect(Publishers.Retry(upstream: Just(1), retries: 2) == Publishers.Retry(upstream: Just(1), retries: 2))
    #expect(Publishers.Retry(upstream: Just(1), retries: 2) != Publishers.Retry(upstream: Just(1), retries: 3))
    #expect(Publishers.Retry(upstream: Just(1), retries: 2) != Publishers.Retry(upstream: Just(2), retries: 2))
    #expect(Publishers.Retry(upstream: Just(1), retries: nil).retries == nil)
  }

  @Test func retryCarriesOutstandingDemandToEachResubscription() {
    let upstream = HandDrivenUpstream<Int, ParityError>()
    let subscriber = TestSubscriber<Int, ParityError>(initialDemand: .max(5))
    upstream.retry(3).subscribe(subscriber)
    upstream.send(1)
    upstream.send(completion: .failure(ParityError()))
    upstream.send(2)
    upstream.send(completion: .failure(ParityError()))
    #expect(upstream.links.map(\.requests) == [[.max(5)], [.max(4)], [.max(3)]])
    subscriber.cancel()
  }
}

@Suite(.leakChecked)
struct RetryStressTests {
  @Test func cancelRacingValuesStopsDelivery() {
    expectCancelRacingValuesStopsDelivery { subject, subscriber in
      subject.setFailureType(to: RetryStressError.self).retry(1).replaceError(with: -1).subscribe(subscriber)
    }
  }

  @Test func requestAndCancelFromInsideReceiveStopAtTheCancel() {
    expectRequestAndCancelFromInsideReceiveStopsAtTheCancel { subject, subscriber in
      subject.setFailureType(to: RetryStressError.self).retry(1).replaceError(with: -1).subscribe(subscriber)
    }
  }
}

private struct RetryStressError: Error {}

// MARK: As Combine (OpenCombine's RetryTests.swift)

extension RetryTests {
  // `testRetryNegativeAmountOfTimes`: a negative count never runs out.
  @Test func aNegativeCountRetriesWithoutLimit() {
    let upstream = HandDrivenUpstream<Int, RetryTestError>()
    let subscriber = TestSubscriber<Int, RetryTestError>(initialDemand: .max(1))
    upstream.retry(-1).subscribe(subscriber)
    for attempt in 1...100 { upstream.send(completion: .failure(.failed(attempt: attempt))) }
    #expect(upstream.subscriptionCount == 101)
    upstream.send(0)
    #expect(subscriber.events == [.subscription, .value(0)])
    subscriber.cancel()
  }

  // `testRecurseAndReceiveValue`: a value that comes between two subscriptions is delivered, and
  // the demand it returns is asked of the next subscription.
  @Test func aValueBetweenSubscriptionsIsDelivered() {
    let upstream = HandDrivenUpstream<Int, RetryTestError>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, RetryTestError>(initialDemand: .max(3), demandPerValue: .max(2))
    upstream.retry(1).subscribe(subscriber)
    upstream.sendSubscription()
    #expect(upstream.requests == [.max(3)])
    upstream.send(completion: .failure(.failed(attempt: 1)))
    #expect(upstream.send(1) == .none)
    #expect(subscriber.history == ["subscription(Retry)", "value(1)"])
    upstream.sendSubscription()
    #expect(upstream.requests == [.max(3), .max(4)])
    upstream.send(completion: .finished)
    subscriber.forget()
  }

  // `testRetryReceiveCompletionBeforeSubscription`: a completion before the first subscription is
  // handled as any other: a finish passes through, a failure is retried.
  @Test func aCompletionBeforeTheFirstSubscriptionIsHandledAsAnyOther() {
    let upstream = HandDrivenUpstream<Int, RetryTestError>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, RetryTestError>(initialDemand: .max(1))
    upstream.retry(1).subscribe(subscriber)
    upstream.send(completion: .failure(.failed(attempt: 1)))
    #expect(subscriber.history.isEmpty)
    upstream.sendSubscription()
    #expect(subscriber.history == ["subscription(Retry)"])
    #expect(upstream.requests == [.max(1)])
    upstream.send(completion: .finished)
    #expect(subscriber.history == ["subscription(Retry)", "finished"])
    subscriber.forget()

    let early = HandDrivenUpstream<Int, RetryTestError>(conduct: .careless, sendsSubscription: false)
    let finished = RecordingSubscriber<Int, RetryTestError>()
    early.retry(1).subscribe(finished)
    early.send(completion: .finished)
    #expect(finished.history == ["finished"])
  }

  // `testCrashesOnUnwantedValue`, `testRetryReceiveValueBeforeSubscription`.
  @Test func aValueBeyondTheDemandStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
      upstream.retry(2).subscribe(TestSubscriber<Int, Never>(initialDemand: .none))
      upstream.send(-1)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("retry: the upstream sent a value the subscriber had not requested"))
    await #expect(processExitsWith: .failure) {
      let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
      upstream.retry(2).subscribe(TestSubscriber<Int, Never>())
      upstream.send(31)
    }
  }

  // Found by differential fuzzing: each subscription to `retry` made while a downstream `zip`
  // is still subscribing its upstreams.
  @Test func aResubscriptionWhileZipSubscribesItsUpstreamsKeepsTheDemand() {
    var attempts = 0
    let upstream = Deferred { () -> AnyPublisher<Int, RetryTestError> in
      attempts += 1
      return attempts <= 3
        ? Fail(error: .failed(attempt: attempts)).eraseToAnyPublisher()
        : (0..<1).publisher.setFailureType(to: RetryTestError.self).replaceEmpty(with: 7).eraseToAnyPublisher()
    }.retry(2)
    let subscriber = TestSubscriber<Int, RetryTestError>()
    upstream.zip(upstream.map { $0 + 0 }).map { $0 * 100 + $1 }.subscribe(subscriber)
    #expect(attempts == 4)
    #expect(subscriber.events == [.subscription, .completion(.failure(.failed(attempt: 3)))])
  }

  // `testRetryReflection`.
  @Test func reflectsAsCombineDoes() throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    upstream.retry(3).subscribe(TestSubscriber<Int, Never>())
    let inner = try #require(upstream.subscriberObject)
    #expect((inner as? any CustomStringConvertible)?.description == "Retry")
    #expect((inner as? any CustomReflectable)?.customMirror.children.isEmpty == true)
    #expect((inner as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Retry")
    upstream.send(completion: .finished)
  }
}

import Conduit
import ConduitTesting
import Testing

private struct ReplaceEmptyTestError: Error, Equatable {}

@Suite(.leakChecked)
struct ReplaceEmptyTests {
  @Test func replacesAnEmptyStream() {
    let subscriber = TestSubscriber<Int, Never>()
    Empty<Int, Never>().replaceEmpty(with: 42).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(42), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func leavesAStreamWithValuesAlone() {
    let subscriber = TestSubscriber<Int, Never>()
    [1, 2].publisher.eraseToAnyPublisher().replaceEmpty(with: 42).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func aFailureIsNotReplaced() {
    let upstream = HandDrivenPublisher<Int, ReplaceEmptyTestError>()
    let subscriber = TestSubscriber<Int, ReplaceEmptyTestError>()
    upstream.replaceEmpty(with: 42).subscribe(subscriber)
    upstream.send(completion: .failure(ReplaceEmptyTestError()))
    #expect(subscriber.events == [.subscription, .completion(.failure(ReplaceEmptyTestError()))])
  }

  @Test func waitsForDemandBeforeDeliveringTheReplacement() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.replaceEmpty(with: 42).subscribe(subscriber)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(42), .completion(.finished)])
    subscriber.request(.max(1))
    #expect(subscriber.events.count == 3)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func passesDemandUpstream() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(2))
    upstream.replaceEmpty(with: 42).subscribe(subscriber)
    #expect(upstream.link?.requests == [.max(1)])
    #expect(upstream.send(1) == .max(2))
    subscriber.request(.max(3))
    #expect(upstream.link?.requests == [.max(1), .max(3)])
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func neverDeliversBeyondDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    (1...3).publisher.eraseToAnyPublisher().replaceEmpty(with: 0).subscribe(subscriber)
    #expect(subscriber.values == [1])
    subscriber.request(.max(5))
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelReachesUpstreamAndStopsEverything() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.replaceEmpty(with: 42).subscribe(subscriber)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])
  }

  @Test func cancelWhileTheReplacementWaitsForDemand() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.replaceEmpty(with: 42).subscribe(subscriber)
    let subscription = subscriber.subscription
    upstream.send(completion: .finished)
    subscriber.cancel()
    subscription?.request(.max(1))
    #expect(subscriber.events == [.subscription])
  }

  @Test func exposesItsPartsAndIsEquatable() {
    let replace = Publishers.ReplaceEmpty(upstream: Empty<Int, Never>(), output: 1)
    #expect(replace.output == 1)
    #expect(replace == Publishers.ReplaceEmpty(upstream: Empty<Int, Never>(), output: 1))
    #expect(replace != Publishers.ReplaceEmpty(upstream: Empty<Int, Never>(), output: 2))
  }
}

@Suite(.leakChecked)
struct ReplaceEmptyStressTests {
  @Test func cancelRacingValuesStopsDelivery() {
    expectCancelRacingValuesStopsDelivery { subject, subscriber in subject.replaceEmpty(with: -1).subscribe(subscriber)
    }
  }

  @Test func requestAndCancelFromInsideReceiveStopAtTheCancel() {
    expectRequestAndCancelFromInsideReceiveStopsAtTheCancel { subject, subscriber in
      subject.replaceEmpty(with: -1).subscribe(subscriber)
    }
  }
}

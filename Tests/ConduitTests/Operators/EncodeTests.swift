import Conduit
import ConduitTesting
import Testing

private enum EncodeTestError: Error, Equatable {
  case upstream
  case negative
}

/// Encodes a value as its description; refuses negative integers.
private struct DescriptionEncoder: TopLevelEncoder {
  func encode<T: Encodable>(_ value: T) throws -> String {
    if let number = value as? Int, number < 0 { throw EncodeTestError.negative }
    return String(describing: value)
  }
}

@Suite(.leakChecked)
struct EncodeTests {
  @Test func encodesEveryValue() {
    let subscriber = TestSubscriber<String, any Error>()
    [1, 22, 333].publisher.encode(encoder: DescriptionEncoder()).subscribe(subscriber)
    #expect(subscriber.values == ["1", "22", "333"])
    #expect(isFinished(subscriber))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func anEncodingErrorFailsTheStreamAndCancelsUpstream() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<String, any Error>()
    upstream.encode(encoder: DescriptionEncoder()).subscribe(subscriber)
    upstream.send(1)
    upstream.send(-1)
    #expect(upstream.link?.isCancelled == true)
    #expect(subscriber.values == ["1"])
    #expect(failure(of: subscriber, as: EncodeTestError.self) == .negative)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(subscriber.values == ["1"])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func forwardsUpstreamFailureAsAnyError() {
    let upstream = HandDrivenPublisher<Int, EncodeTestError>()
    let subscriber = TestSubscriber<String, any Error>()
    upstream.encode(encoder: DescriptionEncoder()).subscribe(subscriber)
    upstream.send(7)
    upstream.send(completion: .failure(.upstream))
    #expect(subscriber.values == ["7"])
    #expect(failure(of: subscriber, as: EncodeTestError.self) == .upstream)
  }

  @Test func passesDemandThrough() {
    let subscriber = TestSubscriber<String, any Error>(initialDemand: .max(1))
    [1, 2, 3].publisher.encode(encoder: DescriptionEncoder()).subscribe(subscriber)
    #expect(subscriber.values == ["1"])
    subscriber.request(.max(2))
    #expect(subscriber.values == ["1", "2", "3"])
    #expect(isFinished(subscriber))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelReachesUpstreamAndStopsValues() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<String, any Error>()
    upstream.encode(encoder: DescriptionEncoder()).subscribe(subscriber)
    upstream.send(1)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    upstream.send(2)
    #expect(subscriber.values == ["1"])
    #expect(subscriber.completion == nil)
  }

  @Test func exposesUpstream() {
    let encode = Publishers.Encode(upstream: Just(1), encoder: DescriptionEncoder())
    #expect(encode.upstream == Just(1))
  }

  // MARK: Its own subscription, as Combine's

  @Test func theSubscriberGetsTheOperatorsOwnSubscription() {
    expectOwnSubscription(
      named: "Encode", mirrorLabels: ["downstream", "finished", "upstreamSubscription"], input: Int.self
    ) {
      $0.encode(encoder: DescriptionEncoder())
    }
  }

  @Test func afterTheStreamEndsRequestsAndCancelsStayHere() {
    expectEndedStreamPassesNothingUpstream(
      input: Int.self, after: [.cancelled], { $0.encode(encoder: DescriptionEncoder()) }
    ) {
      $0.send(-1)
    }
    expectEndedStreamPassesNothingUpstream(input: Int.self, after: [], { $0.encode(encoder: DescriptionEncoder()) }) {
      $0.send(completion: .finished)
    }
  }

  @Test func cancelReachesUpstreamOnceAndEndsTheStream() {
    expectCancelEndsTheStream(named: "Encode", sending: 1) { $0.encode(encoder: DescriptionEncoder()) }
  }

  @Test func whatComesBeforeTheSubscriptionIsHandledAsInCombine() {
    expectEarlyEvents(.completionPassedOn, named: "Encode", input: Int.self) {
      $0.encode(encoder: DescriptionEncoder())
    }
  }
}

import Conduit
import ConduitTesting
import Testing

private enum DecodeTestError: Error, Equatable {
  case upstream
  case notANumber(String)
}

/// Decodes integers from their decimal text.
private struct IntegerTextDecoder: TopLevelDecoder {
  func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
    guard let value = Int(text) as? T else { throw DecodeTestError.notANumber(text) }
    return value
  }
}

@Suite(.leakChecked)
struct DecodeTests {
  @Test func decodesEveryValue() {
    let subscriber = TestSubscriber<Int, any Error>()
    ["1", "22", "-3"].publisher.decode(type: Int.self, decoder: IntegerTextDecoder()).subscribe(subscriber)
    #expect(subscriber.values == [1, 22, -3])
    #expect(isFinished(subscriber))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aDecodingErrorFailsTheStreamAndCancelsUpstream() {
    let upstream = HandDrivenUpstream<String, Never>()
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.decode(type: Int.self, decoder: IntegerTextDecoder()).subscribe(subscriber)
    upstream.send("1")
    upstream.send("one")
    #expect(upstream.link?.isCancelled == true)
    #expect(subscriber.values == [1])
    #expect(failure(of: subscriber, as: DecodeTestError.self) == .notANumber("one"))
    upstream.send("2")
    upstream.send(completion: .finished)
    #expect(subscriber.values == [1])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func forwardsUpstreamFailureAsAnyError() {
    let upstream = HandDrivenUpstream<String, DecodeTestError>()
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.decode(type: Int.self, decoder: IntegerTextDecoder()).subscribe(subscriber)
    upstream.send("7")
    upstream.send(completion: .failure(.upstream))
    #expect(subscriber.values == [7])
    #expect(failure(of: subscriber, as: DecodeTestError.self) == .upstream)
  }

  @Test func passesDemandThrough() {
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(2))
    ["1", "2", "3"].publisher.decode(type: Int.self, decoder: IntegerTextDecoder()).subscribe(subscriber)
    #expect(subscriber.values == [1, 2])
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2, 3])
    #expect(isFinished(subscriber))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelReachesUpstreamAndStopsValues() {
    let upstream = HandDrivenUpstream<String, Never>()
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.decode(type: Int.self, decoder: IntegerTextDecoder()).subscribe(subscriber)
    upstream.send("1")
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    upstream.send("2")
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == nil)
  }

  @Test func encodeThenDecodeRoundTrips() {
    struct DescriptionEncoder: TopLevelEncoder {
      func encode<T: Encodable>(_ value: T) throws -> String { String(describing: value) }
    }
    let subscriber = TestSubscriber<Int, any Error>()
    [4, 5].publisher
      .encode(encoder: DescriptionEncoder())
      .decode(type: Int.self, decoder: IntegerTextDecoder())
      .subscribe(subscriber)
    #expect(subscriber.values == [4, 5])
    #expect(isFinished(subscriber))
  }

  @Test func exposesUpstream() {
    let decode = Publishers.Decode<Just<String>, Int, IntegerTextDecoder>(
      upstream: Just("1"), decoder: IntegerTextDecoder())
    #expect(decode.upstream == Just("1"))
  }

  // MARK: Its own subscription, as Combine's

  @Test func theSubscriberGetsTheOperatorsOwnSubscription() {
    expectOwnSubscription(
      named: "Decode", mirrorLabels: ["downstream", "finished", "upstreamSubscription"], input: String.self
    ) {
      $0.decode(type: Int.self, decoder: IntegerTextDecoder())
    }
  }

  @Test func afterTheStreamEndsRequestsAndCancelsStayHere() {
    expectEndedStreamPassesNothingUpstream(
      input: String.self, after: [.cancelled], { $0.decode(type: Int.self, decoder: IntegerTextDecoder()) }
    ) {
      $0.send("x")
    }
    expectEndedStreamPassesNothingUpstream(
      input: String.self, after: [], { $0.decode(type: Int.self, decoder: IntegerTextDecoder()) }
    ) {
      $0.send(completion: .finished)
    }
  }

  @Test func cancelReachesUpstreamOnceAndEndsTheStream() {
    expectCancelEndsTheStream(named: "Decode", sending: "1") {
      $0.decode(type: Int.self, decoder: IntegerTextDecoder())
    }
  }

  @Test func whatComesBeforeTheSubscriptionIsHandledAsInCombine() {
    expectEarlyEvents(.completionPassedOn, named: "Decode", input: String.self) {
      $0.decode(type: Int.self, decoder: IntegerTextDecoder())
    }
  }

  /// The same for a decoding error.
  /// Evidence (OpenCombine): EncodeTests.swift `testDecodingFailure`, `testDecodeReflection` ("Decode").
  @Test func decodeFailureCancelsUpstreamFirst() {
    let decoder = CountingDecoder(failing: true)
    expectCodingFailureCancelsUpstreamFirst(named: "Decode", calls: { decoder.calls }) { upstream, recorder in
      upstream.decode(type: Int.self, decoder: decoder).subscribe(recorder)
    }
  }
}

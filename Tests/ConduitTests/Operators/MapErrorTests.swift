import Conduit
import ConduitTesting
import Testing

private struct UpstreamTestError: Error, Equatable {
  var code: Int
}

private struct WrappedTestError: Error, Equatable {
  var underlying: UpstreamTestError
}

@Suite(.leakChecked)
struct MapErrorTests {
  @Test func convertsTheFailure() {
    let subject = PassthroughSubject<Int, UpstreamTestError>()
    let subscriber = TestSubscriber<Int, WrappedTestError>()
    let mapped: Publishers.MapError<PassthroughSubject<Int, UpstreamTestError>, WrappedTestError> =
      subject.mapError { WrappedTestError(underlying: $0) }
    mapped.subscribe(subscriber)
    subject.send(1)
    subject.send(completion: .failure(UpstreamTestError(code: 3)))
    #expect(
      subscriber.events == [
        .subscription, .value(1), .completion(.failure(WrappedTestError(underlying: UpstreamTestError(code: 3)))),
      ])
  }

  @Test func finishedPassesWithoutCallingTheClosure() {
    var calls = 0
    let subject = PassthroughSubject<Int, UpstreamTestError>()
    let subscriber = TestSubscriber<Int, WrappedTestError>()
    subject.mapError { error -> WrappedTestError in
      calls += 1
      return WrappedTestError(underlying: error)
    }
    .subscribe(subscriber)
    subject.send(1)
    subject.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    #expect(calls == 0)
  }

  @Test func passesDemandThrough() {
    let subscriber = TestSubscriber<Int, WrappedTestError>(initialDemand: .max(1))
    [1, 2, 3].publisher.setFailureType(to: UpstreamTestError.self).eraseToAnyPublisher()
      .mapError { WrappedTestError(underlying: $0) }
      .subscribe(subscriber)
    #expect(subscriber.values == [1])
    subscriber.request(.max(2))
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelStopsValues() {
    let subject = PassthroughSubject<Int, UpstreamTestError>()
    let subscriber = TestSubscriber<Int, WrappedTestError>()
    subject.mapError { WrappedTestError(underlying: $0) }.subscribe(subscriber)
    subject.send(1)
    subscriber.cancel()
    subject.send(2)
    subject.send(completion: .failure(UpstreamTestError(code: 1)))
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  @Test func bothInitializersKeepTheTransform() {
    let labelled = Publishers.MapError(
      upstream: Fail<Int, UpstreamTestError>(error: UpstreamTestError(code: 1)),
      transform: { WrappedTestError(underlying: $0) })
    let unlabelled = Publishers.MapError<Fail<Int, UpstreamTestError>, WrappedTestError>(
      upstream: Fail(error: UpstreamTestError(code: 2)), { WrappedTestError(underlying: $0) })
    #expect(labelled.transform(UpstreamTestError(code: 5)) == WrappedTestError(underlying: UpstreamTestError(code: 5)))
    #expect(unlabelled.upstream == Fail(error: UpstreamTestError(code: 2)))
    let subscriber = TestSubscriber<Int, WrappedTestError>()
    unlabelled.subscribe(subscriber)
    #expect(subscriber.completion == .failure(WrappedTestError(underlying: UpstreamTestError(code: 2))))
  }

  @Test func itsSubscriberIsDescribedAndReflectedAsInCombine() {
    expectPassThroughSubscriber(named: "MapError", mirrorLabels: []) { $0.mapError { $0 } }
  }

  /// mapError keeps no state: it hands the upstream subscription down, returns the subscriber's
  /// demand, passes a value that comes before the subscription, converts every failure (a second
  /// one too), and lets requests and cancels after a cancel reach upstream.
  /// Evidence (OpenCombine): MapErrorTests.swift `testEmpty` (the subscriber is described as "MapError"),
  /// `testError` (two converted failures), `testDemandSend`,
  /// `testMapErrorReceiveValueBeforeSubscription` (`.value(0)`, demand `.max(42)`),
  /// `testCancelAlreadyCancelled` (`[.requested(.unlimited), .cancelled, .requested(.unlimited),
  /// .cancelled]`).
  @Test func mapErrorPassesEverythingThrough() {
    let upstream = HandDrivenUpstream<Int, ParityFailure>(
      name: "RecordingUpstream", conduct: .careless, sendsSubscription: false)
    let recorder = RecordingSubscriber<Int, WrappedError>(initialDemand: .unlimited, demandPerValue: .max(42))
    upstream.mapError { WrappedError(original: $0) }.subscribe(recorder)
    #expect(upstream.subscriberDescription == "MapError")

    #expect(upstream.send(0) == .max(42))
    upstream.sendSubscription()
    #expect(upstream.send(1) == .max(42))
    upstream.send(completion: .failure(.oops))
    upstream.send(completion: .failure(.oops))
    #expect(
      recorder.history == [
        "value(0)", "subscription(RecordingUpstream)", "value(1)", "failure(wrapped(oops))", "failure(wrapped(oops))",
      ])

    recorder.subscription?.cancel()
    recorder.subscription?.request(.unlimited)
    recorder.subscription?.cancel()
    #expect(upstream.events == [.requested(.unlimited), .cancelled, .requested(.unlimited), .cancelled])
    release(upstream, recorder)
  }
}

private struct WrappedError: Error, CustomStringConvertible {
  let original: any Error
  var description: String { "wrapped(\(original))" }
}

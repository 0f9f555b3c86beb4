import Conduit
import ConduitTesting
import Testing

private enum DeferredTestError: Error, Equatable {
  case failed
}

@Suite(.leakChecked)
struct DeferredTests {
  @Test func closureRunsPerSubscriberNotAtCreation() {
    var calls = 0
    let deferred = Deferred { () -> Just<Int> in
      calls += 1
      return Just(calls)
    }
    #expect(calls == 0)
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    deferred.subscribe(first)
    #expect(calls == 1)
    deferred.subscribe(second)
    #expect(calls == 2)
    #expect(first.values == [1])
    #expect(second.values == [2])
    #expect(second.completion == .finished)
  }

  @Test func forwardsFailure() {
    let subscriber = TestSubscriber<Int, DeferredTestError>(initialDemand: .none)
    Deferred { Fail<Int, DeferredTestError>(error: .failed) }.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.failure(.failed))])
  }

  @Test func forwardsDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    Deferred { [1, 2, 3].publisher }.subscribe(subscriber)
    #expect(subscriber.values == [1])
    subscriber.request(.max(2))
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func forwardsCancellation() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    Deferred { [1, 2, 3].publisher }.subscribe(subscriber)
    subscriber.cancel()
    subscriber.request(.max(2))
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == nil)
  }

  @Test func exposesItsClosure() {
    let deferred = Deferred { Just(9) }
    #expect(deferred.createPublisher().output == 9)
  }

  @Test func releasesTheSubscriberOnCancel() {
    weak var weakProbe: CapturedProbe?
    var subscription: (any Subscription)?
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      Deferred { [1, 2].publisher }.subscribe(
        AnySubscriber<Int, Never>(
          receiveSubscription: { subscription = $0 },
          receiveValue: { _ in
            _ = probe
            return .none
          }))
    }
    #expect(weakProbe != nil)
    subscription?.cancel()
    #expect(weakProbe == nil)
    subscription = nil
  }

  @Test func releasesTheSubscriberWhenFinished() {
    weak var weakProbe: CapturedProbe?
    var subscription: (any Subscription)?
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      Deferred { Just(1) }.subscribe(
        AnySubscriber<Int, Never>(
          receiveSubscription: { subscription = $0 },
          receiveValue: { _ in
            _ = probe
            return .none
          }))
    }
    #expect(weakProbe != nil)
    subscription?.request(.max(1))
    #expect(weakProbe == nil)
    subscription = nil
  }

  /// Deferred makes its publisher when subscribed to, once per subscriber, and the subscriber
  /// gets that publisher's own subscription.
  /// Evidence (OpenCombine): DeferredTests.swift `testDeferredCreatedAfterSubscription` (count 0, then 1, 2;
  /// history `[.subscription("CustomSubscription")]`).
  @Test func deferredSubscribesTheMadePublisherDirectly() {
    var made = 0
    let upstream = HandDrivenUpstream<Int, ParityFailure>(name: "RecordingUpstream", conduct: .careless)
    let deferred = Deferred { () -> HandDrivenUpstream<Int, ParityFailure> in
      made += 1
      return upstream
    }
    #expect(made == 0)
    let recorder = RecordingSubscriber<Int, ParityFailure>(initialDemand: .none, demandPerValue: .none)
    deferred.subscribe(recorder)
    #expect(made == 1)
    #expect(recorder.history == ["subscription(RecordingUpstream)"])
    #expect(upstream.subscriberDescription == "RecordingSubscriber")
    deferred.subscribe(recorder)
    #expect(made == 2)
    release(upstream, recorder)
  }
}

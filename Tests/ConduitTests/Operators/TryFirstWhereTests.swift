import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct TryFirstWhereTests {
  @Test func publishesTheFirstSatisfyingValueAndCancelsUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let first: Publishers.TryFirstWhere<HandDrivenUpstream<Int, Never>> = upstream.tryFirst { $0 > 2 }
    let subscriber = TestSubscriber<Int, any Error>()
    first.subscribe(subscriber)

    upstream.send(1)
    upstream.send(3)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.values == [3])
    #expect(subscriber.completion != nil)
    #expect(failure(of: subscriber, as: ReducingError.self) == nil)
  }

  @Test func aThrownErrorCancelsUpstreamAndFails() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .none)
    upstream.tryFirst { value in
      if value < 0 { throw ReducingError.thrown }
      return value > 2
    }.subscribe(subscriber)

    upstream.send(1)
    upstream.send(-1)
    upstream.send(3)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.values.isEmpty)
    #expect(failure(of: subscriber, as: ReducingError.self) == .thrown)
  }

  // As in Combine (FirstTests.testTryFirstWhereFinishesImmediatelyWithoutDemand), the bare
  // completion waits for demand.
  @Test func finishesWithNothingWhenNoneSatisfiesOnceAsked() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .none)
    upstream.tryFirst { $0 > 2 }.subscribe(subscriber)

    upstream.send(completion: .finished)
    #expect(subscriber.completion == nil)

    subscriber.request(.max(1))
    #expect(subscriber.values.isEmpty)
    #expect(subscriber.completion != nil)
    #expect(failure(of: subscriber, as: ReducingError.self) == nil)
  }

  @Test func anUpstreamFailureBecomesAnyError() {
    let subject = PassthroughSubject<Int, ReducingError>()
    let subscriber = TestSubscriber<Int, any Error>()
    subject.tryFirst { $0 > 2 }.subscribe(subscriber)

    subject.send(completion: .failure(.upstream))

    #expect(failure(of: subscriber, as: ReducingError.self) == .upstream)
  }

  @Test func holdsTheValueUntilDemand() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .none)
    upstream.tryFirst { $0 > 2 }.subscribe(subscriber)
    #expect(upstream.requests == [.unlimited])

    upstream.send(5)
    #expect(subscriber.events.count == 1)

    subscriber.request(.max(1))
    #expect(subscriber.values == [5])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelCancelsUpstreamAndSilences() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryFirst { $0 > 2 }.subscribe(subscriber)

    subscriber.cancel()
    upstream.send(5)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events.count == 1)
  }

  /// tryFirst(where:) holds the found value until demand, having cancelled upstream at once.
  /// (Matches.) Evidence (OpenCombine): FirstTests.swift `testTryFirstWhereDemand`.
  @Test func tryFirstWhereCancelsAtOnceAndHoldsTheValue() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .none)
    var calls = 0
    upstream
      .tryFirst { value in
        calls += 1
        return value > 1
      }
      .subscribe(subscriber)
    #expect(upstream.send(0) == .none)
    #expect(upstream.send(1) == .none)
    #expect(upstream.send(2) == .none)
    #expect(upstream.send(3) == .none)
    #expect(calls == 3)
    #expect(upstream.events == [.requested(.unlimited), .cancelled])
    #expect(subscriber.values.isEmpty)
    subscriber.request(.unlimited)
    #expect(subscriber.values == [2])
    #expect(subscriber.completion != nil)
    upstream.detach()
  }
}

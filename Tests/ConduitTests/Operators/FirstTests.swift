import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct FirstTests {
  @Test func publishesTheFirstValueCancelsUpstreamAndFinishes() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let first: Publishers.First<HandDrivenUpstream<Int, Never>> = upstream.first()
    let subscriber = TestSubscriber<Int, Never>()
    first.subscribe(subscriber)

    upstream.send(3)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events == [.subscription, .value(3), .completion(.finished)])
    upstream.send(4)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(3), .completion(.finished)])
  }

  @Test func holdsTheValueUntilDemand() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    subject.first().subscribe(subscriber)

    subject.send(3)
    subject.send(4)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(3), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  // As in Combine (FirstTests.testFirstFinishesImmediatelyWithoutDemand), the bare completion
  // waits for demand.
  @Test func anEmptyUpstreamFinishesOnceAsked() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.first().subscribe(subscriber)
    #expect(upstream.requests == [.unlimited])

    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .completion(.finished)])
    #expect(upstream.cancelCount == 0)
  }

  @Test func aFailureBeforeTheFirstValuePassesThrough() {
    let subject = PassthroughSubject<Int, ReducingError>()
    let subscriber = TestSubscriber<Int, ReducingError>()
    subject.first().subscribe(subscriber)

    subject.send(completion: .failure(.upstream))

    #expect(subscriber.events == [.subscription, .completion(.failure(.upstream))])
  }

  @Test func cancelCancelsUpstreamAndSilences() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>()
    upstream.first().subscribe(subscriber)

    subscriber.cancel()
    upstream.send(1)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events == [.subscription])
  }

  @Test func isEquatableWhenItsUpstreamIs() {
    #expect(Publishers.First(upstream: Just(1)) == Publishers.First(upstream: Just(1)))
    #expect(Publishers.First(upstream: Just(1)) != Publishers.First(upstream: Just(2)))
  }

  /// `first()` cancels upstream at the first value and holds it until demand.
  @Test func firstCancelsUpstreamAndHoldsTheValue() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.first().subscribe(subscriber)
    #expect(upstream.link?.requests == [.unlimited])
    #expect(upstream.send(7) == .none)
    #expect(upstream.link?.isCancelled == true)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(7), .completion(.finished)])
  }
}

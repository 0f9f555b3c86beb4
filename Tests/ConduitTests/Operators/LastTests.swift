import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct LastTests {
  @Test func publishesTheLastValueOnFinish() {
    let upstream = HandDrivenUpstream<String, Never>(conduct: .careless)
    let last: Publishers.Last<HandDrivenUpstream<String, Never>> = upstream.last()
    let subscriber = TestSubscriber<String, Never>()
    last.subscribe(subscriber)

    upstream.send("a")
    upstream.send("b")
    #expect(subscriber.values.isEmpty)
    upstream.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value("b"), .completion(.finished)])
    #expect(upstream.cancelCount == 0)
  }

  // As in Combine (LastTests.testLastFinishesImmediatelyWithoutDemand), the bare completion
  // waits for demand.
  @Test func anEmptyUpstreamFinishesOnceAsked() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.last().subscribe(subscriber)

    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func requestsUnlimitedAndHoldsTheValueUntilDemand() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.last().subscribe(subscriber)
    #expect(upstream.requests == [.unlimited])

    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aFailureDropsTheValue() {
    let subject = PassthroughSubject<Int, ReducingError>()
    let subscriber = TestSubscriber<Int, ReducingError>()
    subject.last().subscribe(subscriber)

    subject.send(1)
    subject.send(completion: .failure(.upstream))

    #expect(subscriber.events == [.subscription, .completion(.failure(.upstream))])
  }

  @Test func cancelCancelsUpstreamAndSilences() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>()
    upstream.last().subscribe(subscriber)

    upstream.send(1)
    subscriber.cancel()
    upstream.send(completion: .finished)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events == [.subscription])
  }

  @Test func isEquatableWhenItsUpstreamIs() {
    #expect(Publishers.Last(upstream: Just(1)) == Publishers.Last(upstream: Just(1)))
    #expect(Publishers.Last(upstream: Just(1)) != Publishers.Last(upstream: Just(2)))
  }
}

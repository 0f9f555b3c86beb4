import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct CountTests {
  @Test func countsTheValuesAndPublishesOnFinish() {
    let upstream = HandDrivenUpstream<String, Never>(conduct: .careless)
    let count: Publishers.Count<HandDrivenUpstream<String, Never>> = upstream.count()
    let subscriber = TestSubscriber<Int, Never>()
    count.subscribe(subscriber)

    upstream.send("a")
    upstream.send("b")
    upstream.send("c")
    #expect(subscriber.values.isEmpty)
    upstream.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value(3), .completion(.finished)])
  }

  @Test func anEmptyUpstreamCountsZeroOnDemand() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.count().subscribe(subscriber)

    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(0), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func requestsUnlimitedAtSubscription() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.count().subscribe(subscriber)

    #expect(upstream.requests == [.unlimited])
    #expect(upstream.send(1) == .none)
    subscriber.cancel()
  }

  @Test func aFailurePassesThrough() {
    let subject = PassthroughSubject<Int, ReducingError>()
    let subscriber = TestSubscriber<Int, ReducingError>(initialDemand: .none)
    subject.count().subscribe(subscriber)

    subject.send(1)
    subject.send(completion: .failure(.upstream))

    #expect(subscriber.events == [.subscription, .completion(.failure(.upstream))])
  }

  @Test func cancelCancelsUpstreamAndSilences() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.count().subscribe(subscriber)

    subject.send(1)
    subscriber.cancel()
    subject.send(2)
    subject.send(completion: .finished)

    #expect(subscriber.events == [.subscription])
  }

  @Test func isEquatableWhenItsUpstreamIs() {
    #expect(Publishers.Count(upstream: Just("a")) == Publishers.Count(upstream: Just("a")))
    #expect(Publishers.Count(upstream: Just("a")) != Publishers.Count(upstream: Just("b")))
  }
}

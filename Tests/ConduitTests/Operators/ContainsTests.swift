import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct ContainsTests {
  @Test func findingTheElementCancelsUpstreamAndPublishesTrue() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let contains: Publishers.Contains<HandDrivenUpstream<Int, Never>> = upstream.contains(5)
    let subscriber = TestSubscriber<Bool, Never>()
    contains.subscribe(subscriber)

    upstream.send(1)
    #expect(upstream.cancelCount == 0)
    upstream.send(5)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events == [.subscription, .value(true), .completion(.finished)])
    upstream.send(6)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(true), .completion(.finished)])
    #expect(contains.output == 5)
  }

  @Test func finishingWithoutTheElementPublishesFalse() {
    let upstream = HandDrivenUpstream<String, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Bool, Never>()
    upstream.contains("x").subscribe(subscriber)

    upstream.send("a")
    upstream.send("b")
    upstream.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value(false), .completion(.finished)])
    #expect(upstream.cancelCount == 0)
  }

  @Test func holdsTheAnswerUntilDemand() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Bool, Never>(initialDemand: .none)
    upstream.contains(2).subscribe(subscriber)
    #expect(upstream.requests == [.unlimited])

    upstream.send(2)
    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(true), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aFailureBeforeAMatchPassesThrough() {
    let subject = PassthroughSubject<Int, ReducingError>()
    let subscriber = TestSubscriber<Bool, ReducingError>()
    subject.contains(3).subscribe(subscriber)

    subject.send(1)
    subject.send(completion: .failure(.upstream))

    #expect(subscriber.events == [.subscription, .completion(.failure(.upstream))])
  }

  @Test func cancelCancelsUpstreamAndSilences() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Bool, Never>()
    upstream.contains(3).subscribe(subscriber)

    subscriber.cancel()
    upstream.send(3)
    upstream.send(completion: .finished)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events == [.subscription])
  }

  @Test func stopsASynchronousSequenceEarly() {
    var pulled = 0
    let numbers = sequence(first: 1) { value -> Int? in
      pulled += 1
      return value < 1_000 ? value + 1 : nil
    }
    let subscriber = TestSubscriber<Bool, Never>()
    numbers.publisher.contains(3).subscribe(subscriber)

    #expect(subscriber.values == [true])
    #expect(pulled <= 3)
  }

  @Test func isEquatableWhenItsUpstreamIs() {
    #expect(Publishers.Contains(upstream: Just(1), output: 1) == Publishers.Contains(upstream: Just(1), output: 1))
    #expect(Publishers.Contains(upstream: Just(1), output: 1) != Publishers.Contains(upstream: Just(1), output: 2))
    #expect(Publishers.Contains(upstream: Just(1), output: 1) != Publishers.Contains(upstream: Just(2), output: 1))
  }
}

import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct ContainsWhereTests {
  @Test func aSatisfyingElementCancelsUpstreamAndPublishesTrue() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let contains: Publishers.ContainsWhere<HandDrivenUpstream<Int, Never>> = upstream.contains { $0 > 4 }
    let subscriber = TestSubscriber<Bool, Never>()
    contains.subscribe(subscriber)

    upstream.send(1)
    upstream.send(7)
    upstream.send(9)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events == [.subscription, .value(true), .completion(.finished)])
  }

  @Test func finishingWithoutOnePublishesFalse() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Bool, Never>()
    upstream.contains { $0 > 4 }.subscribe(subscriber)

    upstream.send(1)
    upstream.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value(false), .completion(.finished)])
  }

  @Test func stopsCallingThePredicateOnceDecided() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Bool, Never>(initialDemand: .none)
    var calls = 0
    upstream.contains { value in
      calls += 1
      return value == 2
    }.subscribe(subscriber)

    upstream.send(1)
    upstream.send(2)
    upstream.send(3)
    #expect(calls == 2)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.values == [true])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aFailurePassesThrough() {
    let subject = PassthroughSubject<Int, ReducingError>()
    let subscriber = TestSubscriber<Bool, ReducingError>()
    subject.contains { $0 > 10 }.subscribe(subscriber)

    subject.send(completion: .failure(.upstream))

    #expect(subscriber.events == [.subscription, .completion(.failure(.upstream))])
  }

  @Test func cancelCancelsUpstreamAndSilences() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Bool, Never>()
    upstream.contains { $0 > 4 }.subscribe(subscriber)

    subscriber.cancel()
    upstream.send(5)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events == [.subscription])
  }
}

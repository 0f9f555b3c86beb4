import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct AllSatisfyTests {
  @Test func publishesTrueWhenEveryElementSatisfies() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let allSatisfy: Publishers.AllSatisfy<HandDrivenUpstream<Int, Never>> = upstream.allSatisfy { $0 > 0 }
    let subscriber = TestSubscriber<Bool, Never>()
    allSatisfy.subscribe(subscriber)

    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value(true), .completion(.finished)])
    #expect(upstream.cancelCount == 0)
  }

  @Test func anEmptyUpstreamSatisfies() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Bool, Never>()
    upstream.allSatisfy { _ in false }.subscribe(subscriber)

    upstream.send(completion: .finished)

    #expect(subscriber.values == [true])
  }

  @Test func theFirstFailingElementCancelsUpstreamAndPublishesFalse() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Bool, Never>()
    var calls = 0
    upstream.allSatisfy { value in
      calls += 1
      return value > 0
    }.subscribe(subscriber)

    upstream.send(1)
    upstream.send(-1)
    upstream.send(2)

    #expect(calls == 2)
    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events == [.subscription, .value(false), .completion(.finished)])
  }

  @Test func holdsTheAnswerUntilDemand() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Bool, Never>(initialDemand: .none)
    upstream.allSatisfy { $0 > 0 }.subscribe(subscriber)
    #expect(upstream.requests == [.unlimited])

    upstream.send(0)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(false), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aFailurePassesThrough() {
    let subject = PassthroughSubject<Int, ReducingError>()
    let subscriber = TestSubscriber<Bool, ReducingError>()
    subject.allSatisfy { $0 > 0 }.subscribe(subscriber)

    subject.send(1)
    subject.send(completion: .failure(.upstream))

    #expect(subscriber.events == [.subscription, .completion(.failure(.upstream))])
  }

  @Test func cancelCancelsUpstreamAndSilences() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Bool, Never>()
    upstream.allSatisfy { $0 > 0 }.subscribe(subscriber)

    subscriber.cancel()
    upstream.send(-1)
    upstream.send(completion: .finished)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events == [.subscription])
  }
}

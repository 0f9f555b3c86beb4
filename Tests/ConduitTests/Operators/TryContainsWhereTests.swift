import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct TryContainsWhereTests {
  @Test func aSatisfyingElementCancelsUpstreamAndPublishesTrue() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let contains: Publishers.TryContainsWhere<HandDrivenUpstream<Int, Never>> = upstream.tryContains { $0 > 4 }
    let subscriber = TestSubscriber<Bool, any Error>()
    contains.subscribe(subscriber)

    upstream.send(1)
    upstream.send(7)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.values == [true])
    #expect(subscriber.completion != nil)
    #expect(failure(of: subscriber, as: ReducingError.self) == nil)
  }

  @Test func finishingWithoutOnePublishesFalse() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Bool, any Error>()
    upstream.tryContains { $0 > 4 }.subscribe(subscriber)

    upstream.send(1)
    upstream.send(completion: .finished)

    #expect(subscriber.values == [false])
    #expect(subscriber.completion != nil)
  }

  @Test func aThrownErrorCancelsUpstreamAndFails() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Bool, any Error>(initialDemand: .none)
    upstream.tryContains { value in
      if value < 0 { throw ReducingError.thrown }
      return value > 4
    }.subscribe(subscriber)

    upstream.send(1)
    upstream.send(-1)
    upstream.send(5)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.values.isEmpty)
    #expect(failure(of: subscriber, as: ReducingError.self) == .thrown)
  }

  @Test func anUpstreamFailureBecomesAnyError() {
    let subject = PassthroughSubject<Int, ReducingError>()
    let subscriber = TestSubscriber<Bool, any Error>()
    subject.tryContains { $0 > 4 }.subscribe(subscriber)

    subject.send(completion: .failure(.upstream))

    #expect(failure(of: subscriber, as: ReducingError.self) == .upstream)
  }

  @Test func holdsTheAnswerUntilDemandAndCancels() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Bool, any Error>(initialDemand: .none)
    upstream.tryContains { $0 > 4 }.subscribe(subscriber)
    #expect(upstream.requests == [.unlimited])

    upstream.send(completion: .finished)
    #expect(subscriber.values.isEmpty)
    subscriber.cancel()
    subscriber.request(.max(1))

    #expect(subscriber.events.count == 1)
    #expect(upstream.cancelCount == 0)
  }

}

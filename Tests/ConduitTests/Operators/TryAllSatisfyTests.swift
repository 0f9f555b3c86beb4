import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct TryAllSatisfyTests {
  @Test func publishesTrueWhenEveryElementSatisfies() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let allSatisfy: Publishers.TryAllSatisfy<HandDrivenUpstream<Int, Never>> = upstream.tryAllSatisfy { $0 > 0 }
    let subscriber = TestSubscriber<Bool, any Error>()
    allSatisfy.subscribe(subscriber)

    upstream.send(1)
    upstream.send(completion: .finished)

    #expect(subscriber.values == [true])
    #expect(subscriber.completion != nil)
    #expect(failure(of: subscriber, as: ReducingError.self) == nil)
  }

  @Test func theFirstFailingElementCancelsUpstreamAndPublishesFalse() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Bool, any Error>()
    upstream.tryAllSatisfy { $0 > 0 }.subscribe(subscriber)

    upstream.send(0)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.values == [false])
    #expect(subscriber.completion != nil)
  }

  @Test func aThrownErrorCancelsUpstreamAndFails() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Bool, any Error>(initialDemand: .none)
    var calls = 0
    upstream.tryAllSatisfy { value in
      calls += 1
      if value == 3 { throw ReducingError.thrown }
      return true
    }.subscribe(subscriber)

    upstream.send(1)
    upstream.send(3)
    upstream.send(4)
    upstream.send(completion: .finished)

    #expect(calls == 2)
    #expect(upstream.cancelCount == 1)
    #expect(subscriber.values.isEmpty)
    #expect(failure(of: subscriber, as: ReducingError.self) == .thrown)
  }

  @Test func anUpstreamFailureBecomesAnyError() {
    let subject = PassthroughSubject<Int, ReducingError>()
    let subscriber = TestSubscriber<Bool, any Error>()
    subject.tryAllSatisfy { $0 > 0 }.subscribe(subscriber)

    subject.send(completion: .failure(.upstream))

    #expect(failure(of: subscriber, as: ReducingError.self) == .upstream)
  }

  @Test func holdsTheAnswerUntilDemand() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Bool, any Error>(initialDemand: .none)
    upstream.tryAllSatisfy { $0 > 0 }.subscribe(subscriber)
    #expect(upstream.requests == [.unlimited])

    upstream.send(completion: .finished)
    #expect(subscriber.events.count == 1)

    subscriber.request(.max(1))
    #expect(subscriber.values == [true])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelCancelsUpstreamAndSilences() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Bool, any Error>()
    upstream.tryAllSatisfy { $0 > 0 }.subscribe(subscriber)

    subscriber.cancel()
    upstream.send(1)
    upstream.send(completion: .finished)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events.count == 1)
  }

}

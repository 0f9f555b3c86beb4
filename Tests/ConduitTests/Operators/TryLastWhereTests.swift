import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct TryLastWhereTests {
  @Test func publishesTheLastSatisfyingValueOnFinish() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let last: Publishers.TryLastWhere<HandDrivenUpstream<Int, Never>> = upstream.tryLast { $0 > 2 }
    let subscriber = TestSubscriber<Int, any Error>()
    last.subscribe(subscriber)

    for value in [3, 5, 1] { upstream.send(value) }
    upstream.send(completion: .finished)

    #expect(subscriber.values == [5])
    #expect(subscriber.completion != nil)
    #expect(failure(of: subscriber, as: ReducingError.self) == nil)
    #expect(upstream.cancelCount == 0)
  }

  @Test func aThrownErrorCancelsUpstreamAndFails() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>()
    var calls = 0
    upstream.tryLast { value in
      calls += 1
      if value < 0 { throw ReducingError.thrown }
      return value > 2
    }.subscribe(subscriber)

    upstream.send(3)
    upstream.send(-1)
    upstream.send(4)
    upstream.send(completion: .finished)

    #expect(calls == 2)
    #expect(upstream.cancelCount == 1)
    #expect(subscriber.values.isEmpty)
    #expect(failure(of: subscriber, as: ReducingError.self) == .thrown)
  }

  @Test func anUpstreamFailureBecomesAnyError() {
    let subject = PassthroughSubject<Int, ReducingError>()
    let subscriber = TestSubscriber<Int, any Error>()
    subject.tryLast { $0 > 2 }.subscribe(subscriber)

    subject.send(3)
    subject.send(completion: .failure(.upstream))

    #expect(subscriber.values.isEmpty)
    #expect(failure(of: subscriber, as: ReducingError.self) == .upstream)
  }

  @Test func holdsTheValueUntilDemand() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .none)
    upstream.tryLast { $0 > 2 }.subscribe(subscriber)
    #expect(upstream.requests == [.unlimited])

    upstream.send(4)
    upstream.send(completion: .finished)
    #expect(subscriber.events.count == 1)

    subscriber.request(.max(1))
    #expect(subscriber.values == [4])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelCancelsUpstreamAndSilences() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryLast { $0 > 2 }.subscribe(subscriber)

    subscriber.cancel()
    upstream.send(4)
    upstream.send(completion: .finished)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events.count == 1)
  }

}

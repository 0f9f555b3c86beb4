import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct FirstWhereTests {
  @Test func publishesTheFirstSatisfyingValueAndCancelsUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let first: Publishers.FirstWhere<HandDrivenUpstream<Int, Never>> = upstream.first { $0.isMultiple(of: 2) }
    let subscriber = TestSubscriber<Int, Never>()
    first.subscribe(subscriber)

    upstream.send(1)
    #expect(upstream.cancelCount == 0)
    upstream.send(4)
    upstream.send(6)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events == [.subscription, .value(4), .completion(.finished)])
  }

  // Combine's name for it (its subscription prints so).
  @Test func describesItsSubscriptionAsTryFirst() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    PassthroughSubject<Int, Never>().first { $0 > 0 }.subscribe(subscriber)
    #expect((subscriber.subscription as? any CustomStringConvertible)?.description == "TryFirst")
    subscriber.cancel()
  }

  // As in Combine (FirstTests.testFirstWhereFinishesImmediatelyWithoutDemand), the bare
  // completion waits for demand.
  @Test func finishesWithNothingWhenNoneSatisfiesOnceAsked() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.first { $0 > 10 }.subscribe(subscriber)

    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func holdsTheValueUntilDemandAndStopsCallingThePredicate() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    var calls = 0
    upstream.first { value in
      calls += 1
      return value > 1
    }.subscribe(subscriber)
    #expect(upstream.requests == [.unlimited])

    upstream.send(1)
    upstream.send(2)
    upstream.send(3)
    #expect(calls == 2)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(2), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aFailurePassesThrough() {
    let subject = PassthroughSubject<Int, ReducingError>()
    let subscriber = TestSubscriber<Int, ReducingError>()
    subject.first { $0 > 1 }.subscribe(subscriber)

    subject.send(1)
    subject.send(completion: .failure(.upstream))

    #expect(subscriber.events == [.subscription, .completion(.failure(.upstream))])
  }

  @Test func cancelCancelsUpstreamAndSilences() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>()
    upstream.first { $0 > 1 }.subscribe(subscriber)

    subscriber.cancel()
    upstream.send(5)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events == [.subscription])
  }
}

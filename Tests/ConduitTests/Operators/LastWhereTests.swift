import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct LastWhereTests {
  @Test func publishesTheLastSatisfyingValueOnFinish() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let last: Publishers.LastWhere<HandDrivenUpstream<Int, Never>> = upstream.last { $0.isMultiple(of: 2) }
    let subscriber = TestSubscriber<Int, Never>()
    last.subscribe(subscriber)

    for value in [1, 4, 6, 7] { upstream.send(value) }
    #expect(subscriber.values.isEmpty)
    upstream.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value(6), .completion(.finished)])
  }

  // As in Combine (LastTests.testLastWhereFinishesImmediatelyWithoutDemand), the bare
  // completion waits for demand.
  @Test func finishesWithNothingWhenNoneSatisfiesOnceAsked() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.last { $0 > 10 }.subscribe(subscriber)

    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func holdsTheValueUntilDemand() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.last { $0 > 1 }.subscribe(subscriber)
    #expect(upstream.requests == [.unlimited])

    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(2), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aFailurePassesThrough() {
    let subject = PassthroughSubject<Int, ReducingError>()
    let subscriber = TestSubscriber<Int, ReducingError>()
    subject.last { $0 > 1 }.subscribe(subscriber)

    subject.send(2)
    subject.send(completion: .failure(.upstream))

    #expect(subscriber.events == [.subscription, .completion(.failure(.upstream))])
  }

  @Test func cancelCancelsUpstreamAndStopsThePredicate() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>()
    var calls = 0
    upstream.last { value in
      calls += 1
      return value > 1
    }.subscribe(subscriber)

    upstream.send(2)
    subscriber.cancel()
    upstream.send(3)
    upstream.send(completion: .finished)

    #expect(calls == 1)
    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events == [.subscription])
  }

  /// After the result has gone down, the subscriber's requests and cancel do not reach
  /// upstream. Evidence (OpenCombine): LastTests.swift `testLastWhereDemand` and `testTryLastWhereDemand`
  /// (predicate called 4 times; `request(.unlimited)`, `request(.max(1))` forwarded nowhere;
  /// value 2 and `.finished` on upstream's completion; history stays `[.requested(.unlimited)]`
  /// after `cancel()`).
  @Test func afterTheResultRequestsAndCancelStayDownstream() {
    func check<P: Publisher>(_ name: String, _ make: (HandDrivenUpstream<Int, Never>, @escaping (Int) -> Bool) -> P)
    where P.Output == Int {
      let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
      let calls = ParityBox(0)
      let subscriber = RecordingSubscriber<Int, P.Failure>(initialDemand: .none)
      make(upstream) { value in
        calls.value += 1
        return value > 1
      }
      .subscribe(subscriber)
      for value in [3, 2, 1, 0] { #expect(upstream.send(value) == .none) }
      #expect(calls.value == 4)
      subscriber.subscription?.request(.unlimited)
      subscriber.subscription?.request(.max(1))
      #expect(upstream.events == [.requested(.unlimited)])
      #expect(subscriber.history == ["subscription(\(name))"])
      upstream.send(completion: .finished)
      #expect(subscriber.history == ["subscription(\(name))", "value(2)", "finished"])
      subscriber.subscription?.cancel()
      #expect(upstream.events == [.requested(.unlimited)])
      upstream.detach()
    }
    check("LastWhere") { upstream, predicate in upstream.last(where: predicate) }
    check("TryLastWhere") { upstream, predicate in upstream.tryLast(where: predicate) }
  }
}

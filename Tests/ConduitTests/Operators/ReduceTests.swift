import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct ReduceTests {
  @Test func accumulatesInOrderAndPublishesOnFinish() {
    let upstream = HandDrivenUpstream<String, Never>(conduct: .careless)
    let reduce: Publishers.Reduce<HandDrivenUpstream<String, Never>, String> = upstream.reduce(">", +)
    let subscriber = TestSubscriber<String, Never>()
    reduce.subscribe(subscriber)

    upstream.send("a")
    upstream.send("b")
    #expect(subscriber.values.isEmpty)
    upstream.send("c")
    upstream.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value(">abc"), .completion(.finished)])
    #expect(reduce.initial == ">")
    #expect(reduce.nextPartialResult("x", "y") == "xy")
  }

  @Test func anEmptyUpstreamPublishesTheInitialValueOnDemand() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.reduce(42, +).subscribe(subscriber)

    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(42), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func requestsUnlimitedAndHoldsTheResultUntilDemand() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.reduce(0, +).subscribe(subscriber)
    #expect(upstream.requests == [.unlimited])

    #expect(upstream.send(3) == .none)
    #expect(upstream.send(4) == .none)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(5))
    #expect(subscriber.events == [.subscription, .value(7), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aFailureDropsTheAccumulatedValue() {
    let subject = PassthroughSubject<Int, ReducingError>()
    let subscriber = TestSubscriber<Int, ReducingError>()
    subject.reduce(0, +).subscribe(subscriber)

    subject.send(1)
    subject.send(completion: .failure(.upstream))

    #expect(subscriber.events == [.subscription, .completion(.failure(.upstream))])
  }

  @Test func cancelStopsTheClosureAndCancelsUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>()
    var calls = 0
    upstream.reduce(0) { sum, value in
      calls += 1
      return sum + value
    }.subscribe(subscriber)

    upstream.send(1)
    subscriber.cancel()
    upstream.send(2)
    upstream.send(completion: .finished)

    #expect(calls == 1)
    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events == [.subscription])
  }

  @Test func worksWithAPassthroughSubjectAndASink() {
    let subject = PassthroughSubject<Int, Never>()
    var received: [Int] = []
    let token = subject.reduce(1, *).sink { received.append($0) }

    for value in 1...5 { subject.send(value) }
    subject.send(completion: .finished)

    #expect(received == [120])
    token.cancel()
  }
}

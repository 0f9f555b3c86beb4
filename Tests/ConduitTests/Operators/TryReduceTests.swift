import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct TryReduceTests {
  @Test func accumulatesAndPublishesOnFinish() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let tryReduce: Publishers.TryReduce<HandDrivenUpstream<Int, Never>, [Int]> = upstream.tryReduce([]) { $0 + [$1] }
    let subscriber = TestSubscriber<[Int], any Error>()
    tryReduce.subscribe(subscriber)

    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)

    #expect(subscriber.values == [[1, 2]])
    guard case .finished = subscriber.completion else {
      Issue.record("expected finished, got \(String(describing: subscriber.completion))")
      return
    }
    #expect(tryReduce.initial == [])
  }

  @Test func aThrownErrorCancelsUpstreamAndFails() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .none)
    var calls = 0
    upstream.tryReduce(0) { sum, value in
      calls += 1
      guard value != 0 else { throw ReducingError.thrown }
      return sum + value
    }.subscribe(subscriber)
    #expect(upstream.requests == [.unlimited])

    upstream.send(5)
    upstream.send(0)
    upstream.send(6)
    upstream.send(completion: .finished)

    #expect(calls == 2)
    #expect(upstream.cancelCount == 1)
    #expect(subscriber.values.isEmpty)
    #expect(failure(of: subscriber, as: ReducingError.self) == .thrown)
  }

  @Test func anUpstreamFailureBecomesAnyError() {
    let subject = PassthroughSubject<Int, ReducingError>()
    let subscriber = TestSubscriber<Int, any Error>()
    subject.tryReduce(0) { $0 + $1 }.subscribe(subscriber)

    subject.send(1)
    subject.send(completion: .failure(.upstream))

    #expect(subscriber.values.isEmpty)
    #expect(failure(of: subscriber, as: ReducingError.self) == .upstream)
  }

  @Test func holdsTheResultUntilDemand() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .none)
    upstream.tryReduce(10) { $0 - $1 }.subscribe(subscriber)

    upstream.send(3)
    upstream.send(completion: .finished)
    #expect(subscriber.values.isEmpty)
    #expect(subscriber.completion == nil)

    subscriber.request(.max(1))
    #expect(subscriber.values == [7])
    #expect(subscriber.completion != nil)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelCancelsUpstreamAndSilences() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>()
    var calls = 0
    upstream.tryReduce(0) { sum, value in
      calls += 1
      return sum + value
    }.subscribe(subscriber)

    subscriber.cancel()
    upstream.send(1)
    upstream.send(completion: .finished)

    #expect(calls == 0)
    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events.count == 1)
  }

}

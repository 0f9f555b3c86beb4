import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct TryComparisonTests {
  @Test func tryMinAndTryMaxPublishTheExtremesOnFinish() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let minimum = TestSubscriber<Int, any Error>()
    let maximum = TestSubscriber<Int, any Error>()
    let tryMin: Publishers.TryComparison<HandDrivenUpstream<Int, Never>> = upstream.tryMin { $0 < $1 }
    tryMin.subscribe(minimum)
    let other = HandDrivenUpstream<Int, Never>(conduct: .careless)
    other.tryMax { $0 < $1 }.subscribe(maximum)

    for value in [4, -2, 9, 0] {
      upstream.send(value)
      other.send(value)
    }
    upstream.send(completion: .finished)
    other.send(completion: .finished)

    #expect(minimum.values == [-2])
    #expect(maximum.values == [9])
    #expect(minimum.completion != nil)
    #expect(maximum.completion != nil)
  }

  @Test func aThrownErrorCancelsUpstreamAndFails() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .none)
    var comparisons = 0
    upstream.tryMax { lhs, rhs in
      comparisons += 1
      if rhs < 0 { throw ReducingError.thrown }
      return lhs < rhs
    }.subscribe(subscriber)

    upstream.send(1)
    upstream.send(2)
    upstream.send(-1)
    upstream.send(5)
    upstream.send(completion: .finished)

    #expect(comparisons == 2)
    #expect(upstream.cancelCount == 1)
    #expect(subscriber.values.isEmpty)
    #expect(failure(of: subscriber, as: ReducingError.self) == .thrown)
  }

  @Test func anUpstreamFailureBecomesAnyError() {
    let subject = PassthroughSubject<Int, ReducingError>()
    let subscriber = TestSubscriber<Int, any Error>()
    subject.tryMin { $0 < $1 }.subscribe(subscriber)

    subject.send(completion: .failure(.upstream))

    #expect(failure(of: subscriber, as: ReducingError.self) == .upstream)
  }

  // As in Combine (ComparisonTests.testTryComparisonUpstreamFinishesImmediatelyWithoutDemand),
  // the bare completion waits for demand.
  @Test func anEmptyUpstreamFinishesOnceAsked() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .none)
    upstream.tryMin { $0 < $1 }.subscribe(subscriber)

    upstream.send(completion: .finished)
    #expect(subscriber.completion == nil)

    subscriber.request(.max(1))
    #expect(subscriber.values.isEmpty)
    #expect(subscriber.completion != nil)
    #expect(failure(of: subscriber, as: ReducingError.self) == nil)
  }

  @Test func holdsTheResultUntilDemandAndCancelsUpstreamOnCancel() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .none)
    upstream.tryMax { $0 < $1 }.subscribe(subscriber)
    #expect(upstream.requests == [.unlimited])

    upstream.send(3)
    subscriber.cancel()
    upstream.send(completion: .finished)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events.count == 1)
  }

}

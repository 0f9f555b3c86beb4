import Conduit
import ConduitTesting
import Testing

private struct DropTestError: Error, Equatable {}

@Suite(.leakChecked)
struct DropTests {
  @Test func dropsTheFirstValues() {
    let subscriber = TestSubscriber<Int, Never>()
    [1, 2, 3, 4].publisher.eraseToAnyPublisher().dropFirst(2).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(3), .value(4), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func dropsOneByDefaultAndNoneForZero() {
    let one = TestSubscriber<Int, Never>()
    let none = TestSubscriber<Int, Never>()
    [1, 2, 3].publisher.eraseToAnyPublisher().dropFirst().subscribe(one)
    [1, 2, 3].publisher.eraseToAnyPublisher().dropFirst(0).subscribe(none)
    #expect(one.values == [2, 3])
    #expect(none.values == [1, 2, 3])
  }

  @Test func finishesWhenUpstreamHasFewerValues() {
    let subscriber = TestSubscriber<Int, Never>()
    [1, 2].publisher.eraseToAnyPublisher().dropFirst(5).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func forwardsFailure() {
    let upstream = HandDrivenPublisher<Int, DropTestError>()
    let subscriber = TestSubscriber<Int, DropTestError>()
    upstream.dropFirst().subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .failure(DropTestError()))
    #expect(subscriber.events == [.subscription, .value(2), .completion(.failure(DropTestError()))])
  }

  @Test func replacesEachDroppedValueWithDemandUpstream() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.dropFirst(2).subscribe(subscriber)
    #expect(upstream.link?.requests == [.max(1)])
    #expect(upstream.send(1) == .max(1))
    #expect(upstream.send(2) == .max(1))
    #expect(upstream.send(3) == .none)
    #expect(subscriber.values == [3])
    subscriber.request(.max(2))
    #expect(upstream.link?.requests == [.max(1), .max(2)])
    upstream.send(completion: .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func neverDeliversBeyondDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    (1...10).publisher.eraseToAnyPublisher().dropFirst(3).subscribe(subscriber)
    #expect(subscriber.values == [4, 5])
    #expect(subscriber.completion == nil)
    subscriber.request(.max(1))
    #expect(subscriber.values == [4, 5, 6])
    subscriber.cancel()
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelReachesUpstreamAndStopsValues() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.dropFirst().subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    upstream.send(3)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(2)])
  }

  @Test func oneValueAtATimeDoesNotGrowTheStack() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (1...100_000).publisher.eraseToAnyPublisher().dropFirst(50_000).subscribe(subscriber)
    #expect(subscriber.values.count == 50_000)
    #expect(subscriber.values.first == 50_001)
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func exposesItsPartsAndIsEquatable() {
    let drop = Publishers.Drop(upstream: Just(1), count: 2)
    #expect(drop.upstream == Just(1))
    #expect(drop.count == 2)
    #expect(Publishers.Drop(upstream: Just(1), count: 2) == Publishers.Drop(upstream: Just(1), count: 2))
    #expect(Publishers.Drop(upstream: Just(1), count: 2) != Publishers.Drop(upstream: Just(1), count: 3))
  }
}

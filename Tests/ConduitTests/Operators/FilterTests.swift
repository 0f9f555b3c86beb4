import Conduit
import ConduitTesting
import Testing

private struct FilterTestError: Error, Equatable {}

@Suite(.leakChecked)
struct FilterTests {
  @Test func republishesMatchingValues() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.filter { $0.isMultiple(of: 2) }.subscribe(subscriber)
    for value in 1...5 { subject.send(value) }
    subject.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(2), .value(4), .completion(.finished)])
  }

  @Test func forwardsFailure() {
    let subject = PassthroughSubject<Int, FilterTestError>()
    let subscriber = TestSubscriber<Int, FilterTestError>()
    subject.filter { _ in true }.subscribe(subscriber)
    subject.send(completion: .failure(FilterTestError()))
    #expect(subscriber.events == [.subscription, .completion(.failure(FilterTestError()))])
  }

  @Test func droppedValueIsReplacedByUpstreamDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    [1, 2, 3, 4].publisher.eraseToAnyPublisher().filter { $0.isMultiple(of: 2) }.subscribe(subscriber)
    #expect(subscriber.values == [2, 4])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func requestsByHandGetOnlyWhatWasAsked() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    (1...10).publisher.eraseToAnyPublisher().filter { $0 > 5 }.subscribe(subscriber)
    #expect(subscriber.values == [6])
    subscriber.request(.max(2))
    #expect(subscriber.values == [6, 7, 8])
    #expect(subscriber.completion == nil)
    subscriber.request(.unlimited)
    #expect(subscriber.values == [6, 7, 8, 9, 10])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelStopsValues() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.filter { _ in true }.subscribe(subscriber)
    subject.send(1)
    subscriber.cancel()
    subject.send(2)
    subject.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  @Test func filterFusesWithFilter() {
    let subject = PassthroughSubject<Int, Never>()
    let fused = subject.filter { $0 > 2 }.filter { $0.isMultiple(of: 2) }
    #expect(type(of: fused) == Publishers.Filter<PassthroughSubject<Int, Never>>.self)
    let subscriber = TestSubscriber<Int, Never>()
    fused.subscribe(subscriber)
    for value in 1...8 { subject.send(value) }
    subject.send(completion: .finished)
    #expect(subscriber.values == [4, 6, 8])
  }

  @Test func filterFusesWithTryFilter() {
    let subject = PassthroughSubject<Int, Never>()
    let fused = subject.filter { $0 > 2 }.tryFilter { value -> Bool in
      if value == 7 { throw FilterTestError() }
      return value.isMultiple(of: 2)
    }
    #expect(type(of: fused) == Publishers.TryFilter<PassthroughSubject<Int, Never>>.self)
    let subscriber = TestSubscriber<Int, any Error>()
    fused.subscribe(subscriber)
    for value in 1...8 { subject.send(value) }
    #expect(subscriber.values == [4, 6])
    guard case .failure(let error) = subscriber.completion else {
      Issue.record("expected a failure")
      return
    }
    #expect(error is FilterTestError)
  }

  @Test func secondClosureOfAFusionSeesOnlyWhatTheFirstKept() {
    var seen: [Int] = []
    let subscriber = TestSubscriber<Int, Never>()
    [1, 2, 3, 4].publisher.eraseToAnyPublisher()
      .filter { $0.isMultiple(of: 2) }
      .filter { value in
        seen.append(value)
        return true
      }
      .subscribe(subscriber)
    #expect(seen == [2, 4])
    #expect(subscriber.values == [2, 4])
  }

  @Test func itsSubscriberIsDescribedAndReflectedAsInCombine() {
    expectPassThroughSubscriber(named: "Filter", mirrorLabels: []) { $0.filter { _ in true } }
  }

  /// A value filtered out answers `.max(1)`; one passed on answers what the downstream returned.
  /// Evidence: OpenCombine Tests/OpenCombineTests/PublisherTests/FilterTests.swift,
  /// CompactMapTests.swift (`send` of a rejected value returns `.max(1)`).
  @Test func filteredOutValuesAskForOneMore() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: .max(3))
    upstream.filter { $0.isMultiple(of: 2) }.subscribe(subscriber)
    #expect(upstream.send(1) == .max(1))
    #expect(upstream.send(2) == .max(3))
    subscriber.cancel()

    let mapped = HandDrivenUpstream<Int, Never>()
    let mappedSubscriber = TestSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: .max(3))
    mapped.compactMap { $0.isMultiple(of: 2) ? $0 : nil }.subscribe(mappedSubscriber)
    #expect(mapped.send(1) == .max(1))
    #expect(mapped.send(2) == .max(3))
    mappedSubscriber.cancel()
  }
}

import Conduit
import ConduitTesting
import Testing

/// An element ordered by `rank` only, to tell equal elements apart.
private struct Ranked: Equatable {
  let rank: Int
  let tag: String
}

@Suite(.leakChecked)
struct ComparisonTests {
  @Test func minAndMaxPublishTheExtremesOnFinish() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let minimum = TestSubscriber<Int, Never>()
    let maximum = TestSubscriber<Int, Never>()
    let min: Publishers.Comparison<HandDrivenUpstream<Int, Never>> = upstream.min()
    min.subscribe(minimum)
    upstream.send(3)
    upstream.send(-1)
    upstream.send(8)
    upstream.send(completion: .finished)

    let other = HandDrivenUpstream<Int, Never>(conduct: .careless)
    other.max().subscribe(maximum)
    other.send(3)
    other.send(-1)
    other.send(8)
    other.send(2)
    other.send(completion: .finished)

    #expect(minimum.events == [.subscription, .value(-1), .completion(.finished)])
    #expect(maximum.events == [.subscription, .value(8), .completion(.finished)])
  }

  @Test func byClosureUsesTheGivenOrdering() {
    let words = ["pear", "fig", "banana", "kiwi"]
    let shortest = TestSubscriber<String, Never>()
    let longest = TestSubscriber<String, Never>()
    let upstream = HandDrivenUpstream<String, Never>(conduct: .careless)
    upstream.min { $0.count < $1.count }.subscribe(shortest)
    let other = HandDrivenUpstream<String, Never>(conduct: .careless)
    other.max { $0.count < $1.count }.subscribe(longest)

    for word in words {
      upstream.send(word)
      other.send(word)
    }
    upstream.send(completion: .finished)
    other.send(completion: .finished)

    #expect(shortest.values == ["fig"])
    #expect(longest.values == ["banana"])
  }

  @Test func ofEqualElementsTheFirstWins() {
    let elements = [Ranked(rank: 1, tag: "a"), Ranked(rank: 1, tag: "b"), Ranked(rank: 0, tag: "c")]
    let upstream = HandDrivenUpstream<Ranked, Never>(conduct: .careless)
    let maximum = TestSubscriber<Ranked, Never>()
    upstream.max { $0.rank < $1.rank }.subscribe(maximum)
    let other = HandDrivenUpstream<Ranked, Never>(conduct: .careless)
    let minimum = TestSubscriber<Ranked, Never>()
    other.min { $0.rank < $1.rank }.subscribe(minimum)

    for element in elements + [Ranked(rank: 0, tag: "d")] {
      upstream.send(element)
      other.send(element)
    }
    upstream.send(completion: .finished)
    other.send(completion: .finished)

    #expect(maximum.values.map(\.tag) == ["a"])
    #expect(minimum.values.map(\.tag) == ["c"])
  }

  @Test func storesTheMaximumOrderingWhichMinReverses() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    #expect(upstream.max().areInIncreasingOrder(1, 2))
    #expect(!upstream.min().areInIncreasingOrder(1, 2))
    #expect(upstream.min(by: <).areInIncreasingOrder(2, 1))
    #expect(upstream.max(by: <).areInIncreasingOrder(1, 2))
  }

  // As in Combine (ComparisonTests.testComparisonUpstreamFinishesImmediatelyWithoutDemand),
  // the bare completion waits for demand.
  @Test func anEmptyUpstreamFinishesOnceAsked() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.min().subscribe(subscriber)

    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func requestsUnlimitedAndHoldsTheResultUntilDemand() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.max().subscribe(subscriber)
    #expect(upstream.requests == [.unlimited])

    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aFailurePassesThrough() {
    let subject = PassthroughSubject<Int, ReducingError>()
    let subscriber = TestSubscriber<Int, ReducingError>()
    subject.min().subscribe(subscriber)

    subject.send(1)
    subject.send(completion: .failure(.upstream))

    #expect(subscriber.events == [.subscription, .completion(.failure(.upstream))])
  }

  @Test func cancelCancelsUpstreamAndSilences() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>()
    var comparisons = 0
    upstream.max { lhs, rhs in
      comparisons += 1
      return lhs < rhs
    }.subscribe(subscriber)

    upstream.send(1)
    upstream.send(2)
    subscriber.cancel()
    upstream.send(3)
    upstream.send(completion: .finished)

    #expect(comparisons == 1)
    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events == [.subscription])
  }

  /// `max(by:)` calls the ordering as (kept, new) and `min(by:)` as (new, kept), once per value
  /// after the first, and keeps the new value only when the call returns `true`.
  /// Evidence (OpenCombine): ComparisonTests.swift `testBasicBehavior` (max: `[(2, 1), (2, 4), (4, 6),
  /// (4, 15), (4, 8), (8, 12)]`; min: `[(1, 2), (4, 1), (6, 1), (15, 1), (8, 1), (12, 1)]`;
  /// results 8 and 1; values after `.finished` are ignored), used by `testComparisonBasicBehavior`
  /// and `testTryComparisonBasicBehavior`.
  @Test func minAndMaxByCallTheOrderingAsCombineDoes() {
    let sent = [2, 1, 4, 6, 15, 8, 12]
    let maxCalls = [[2, 1], [2, 4], [4, 6], [4, 15], [4, 8], [8, 12]]
    let minCalls = [[1, 2], [4, 1], [6, 1], [15, 1], [8, 1], [12, 1]]

    let (maxValue, maxSeen) = compare(sent) { upstream, ordering in upstream.max(by: ordering) }
    #expect(maxValue == 8)
    #expect(maxSeen == maxCalls)
    let (minValue, minSeen) = compare(sent) { upstream, ordering in upstream.min(by: ordering) }
    #expect(minValue == 1)
    #expect(minSeen == minCalls)
    let (tryMaxValue, tryMaxSeen) = compare(sent) { upstream, ordering in
      upstream.tryMax(by: ordering).assertNoFailure()
    }
    #expect(tryMaxValue == 8)
    #expect(tryMaxSeen == maxCalls)
    let (tryMinValue, tryMinSeen) = compare(sent) { upstream, ordering in
      upstream.tryMin(by: ordering).assertNoFailure()
    }
    #expect(tryMinValue == 1)
    #expect(tryMinSeen == minCalls)
  }
}

/// Runs `values` through the comparison `make` builds, with an ordering by trailing zero bits
/// that records its calls; returns the result and the calls.
private func compare<P: Publisher>(
  _ values: [Int], _ make: (HandDrivenUpstream<Int, Never>, @escaping (Int, Int) -> Bool) -> P
) -> (Int?, [[Int]]) where P.Output == Int, P.Failure == Never {
  let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
  let calls = ParityBox<[[Int]]>([])
  let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
  make(upstream) { lhs, rhs in
    calls.value.append([lhs, rhs])
    return lhs.trailingZeroBitCount < rhs.trailingZeroBitCount
  }
  .subscribe(subscriber)
  for value in values { _ = upstream.send(value) }
  let before = calls.value
  upstream.send(completion: .finished)
  _ = upstream.send(7)
  _ = upstream.send(32)
  #expect(calls.value == before)
  #expect(upstream.events == [.requested(.unlimited)])
  upstream.detach()
  return (subscriber.values.first, calls.value)
}

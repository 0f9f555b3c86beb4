import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct JustSequencingTests {
  @Test func dropFirstDropsTheValueUnlessCountIsZero() {
    let dropped: Optional<Int>.Publisher = Just(1).dropFirst()
    #expect(dropped == Optional<Int>.none.publisher)
    #expect(Just(1).dropFirst(3) == Optional<Int>.none.publisher)
    #expect(Just(1).dropFirst(0) == Optional(1).publisher)
  }

  @Test func dropWhileAppliesThePredicateAtOnce() {
    #expect(Just(1).drop(while: { $0 > 1 }) == Optional(1).publisher)
    #expect(Just(1).drop(while: { $0 == 1 }) == Optional<Int>.none.publisher)
  }

  @Test func prefixKeepsTheValueUnlessMaxLengthIsZero() {
    let kept: Optional<Int>.Publisher = Just(1).prefix(1)
    #expect(kept == Optional(1).publisher)
    #expect(Just(1).prefix(0) == Optional<Int>.none.publisher)
  }

  @Test func prefixWhileAppliesThePredicateAtOnce() {
    #expect(Just(1).prefix(while: { $0 == 1 }) == Optional(1).publisher)
    #expect(Just(1).prefix(while: { $0 > 1 }) == Optional<Int>.none.publisher)
  }

  @Test func replaceEmptyReturnsTheSameJust() {
    let same: Just<Int> = Just(1).replaceEmpty(with: 0)
    #expect(same == Just(1))
    let subscriber = TestSubscriber<Int, Never>()
    same.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func prependAndAppendReturnSequencePublishers() {
    let before = Just(3).prepend(1, 2)
    let after = Just(1).append(2, 3)
    #expect(type(of: before) == Publishers.Sequence<[Int], Never>.self)
    #expect(type(of: after) == Publishers.Sequence<[Int], Never>.self)
    #expect(before.sequence == [1, 2, 3])
    #expect(after.sequence == [1, 2, 3])
    #expect(type(of: Just(3).prepend(1...2)) == Publishers.Sequence<[Int], Never>.self)
    #expect(Just(3).prepend(1...2).sequence == [1, 2, 3])
    #expect(Just(1).append(2...3).sequence == [1, 2, 3])
    #expect(Just(1).append([Int]()).sequence == [1])
    let subscriber = TestSubscriber<Int, Never>()
    before.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)])
  }

  /// As in Combine, appending a sequence asks it for its `underestimatedCount` once, then
  /// iterates it once.
  @Test func appendAsksTheSequenceForItsCountOnce() {
    let elements = CountingSequence([2, 3])
    #expect(Just(1).append(elements).sequence == [1, 2, 3])
    #expect(elements.calls == ["underestimatedCount", "makeIterator"])
  }

  @Test func prependAndAppendOfAPublisherStillConcatenate() {
    let appended = Just(1).append(Just(2))
    #expect(type(of: appended) == Publishers.Concatenate<Just<Int>, Just<Int>>.self)
    let subscriber = TestSubscriber<Int, Never>()
    appended.subscribe(subscriber)
    #expect(subscriber.values == [1, 2])
  }
}

/// A sequence that records which of its requirements are called.
private final class CountingSequence: Sequence {
  let elements: [Int]
  var calls: [String] = []

  init(_ elements: [Int]) {
    self.elements = elements
  }

  var underestimatedCount: Int {
    calls.append("underestimatedCount")
    return elements.count
  }

  func makeIterator() -> IndexingIterator<[Int]> {
    calls.append("makeIterator")
    return elements.makeIterator()
  }
}

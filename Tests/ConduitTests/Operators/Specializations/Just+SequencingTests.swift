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
}

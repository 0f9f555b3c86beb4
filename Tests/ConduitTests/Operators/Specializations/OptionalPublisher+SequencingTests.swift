import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct OptionalPublisherSequencingTests {
  @Test func dropFirstDropsTheValueUnlessCountIsZero() {
    #expect(Optional(1).publisher.dropFirst() == Optional<Int>.none.publisher)
    #expect(Optional(1).publisher.dropFirst(0) == Optional(1).publisher)
    #expect(Optional<Int>.none.publisher.dropFirst(0) == Optional<Int>.none.publisher)
  }

  @Test func dropWhileAppliesThePredicateAtOnce() {
    #expect(Optional(1).publisher.drop(while: { $0 > 1 }) == Optional(1).publisher)
    #expect(Optional(1).publisher.drop(while: { $0 == 1 }) == Optional<Int>.none.publisher)
  }

  @Test func prefixKeepsTheValueUnlessMaxLengthIsZero() {
    #expect(Optional(1).publisher.prefix(2) == Optional(1).publisher)
    #expect(Optional(1).publisher.prefix(0) == Optional<Int>.none.publisher)
  }

  @Test func prefixWhileAppliesThePredicateAtOnce() {
    #expect(Optional(1).publisher.prefix(while: { $0 == 1 }) == Optional(1).publisher)
    #expect(Optional(1).publisher.prefix(while: { $0 > 1 }) == Optional<Int>.none.publisher)
  }

  @Test func replaceEmptyReturnsAJust() {
    let replaced: Just<Int> = Optional<Int>.none.publisher.replaceEmpty(with: 0)
    #expect(replaced == Just(0))
    #expect(Optional(3).publisher.replaceEmpty(with: 0) == Just(3))
  }
}

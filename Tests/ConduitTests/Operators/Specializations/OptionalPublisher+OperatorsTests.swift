import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct OptionalPublisherOperatorsTests {
  @Test func mapTransformsTheValueIfAny() {
    let some: Optional<String>.Publisher = Optional(3).publisher.map { "\($0)" }
    let none: Optional<String>.Publisher = Int?.none.publisher.map { "\($0)" }
    #expect(some.output == "3")
    #expect(none.output == nil)
    let subscriber = TestSubscriber<String, Never>()
    some.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value("3"), .completion(.finished)])
  }

  @Test func compactMapAndFilterMayEmpty() {
    let parsed: Optional<Int>.Publisher = Optional("12").publisher.compactMap { Int($0) }
    let unparsed: Optional<Int>.Publisher = Optional("x").publisher.compactMap { Int($0) }
    #expect(parsed.output == 12)
    #expect(unparsed.output == nil)
    let kept: Optional<Int>.Publisher = Optional(4).publisher.filter { $0 > 3 }
    let dropped: Optional<Int>.Publisher = Optional(2).publisher.filter { $0 > 3 }
    #expect(kept.output == 4)
    #expect(dropped.output == nil)
    let subscriber = TestSubscriber<Int, Never>()
    dropped.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func scanAppliesTheClosureToTheValue() {
    let scanned: Optional<Int>.Publisher = Optional(5).publisher.scan(10, +)
    let empty: Optional<Int>.Publisher = Int?.none.publisher.scan(10, +)
    #expect(scanned.output == 15)
    #expect(empty.output == nil)
  }

  @Test func removeDuplicatesAndReplaceErrorReturnTheSamePublisher() {
    let publisher = Optional(1).publisher
    let plain: Optional<Int>.Publisher = publisher.removeDuplicates()
    let byPredicate: Optional<Int>.Publisher = publisher.removeDuplicates { _, _ in true }
    let replaced: Optional<Int>.Publisher = publisher.replaceError(with: 0)
    #expect(plain == publisher)
    #expect(byPredicate == publisher)
    #expect(replaced == publisher)
  }

  @Test func retryReturnsTheSamePublisher() {
    let retried = Optional(1).publisher.retry(3)
    #expect(type(of: retried) == Optional<Int>.Publisher.self)
    #expect(retried == Optional(1).publisher)
    #expect(Optional<Int>.none.publisher.retry(3) == Optional<Int>.none.publisher)
  }
}

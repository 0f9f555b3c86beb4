import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct SequenceSequencingTests {
  @Test func dropFirstIsLazyOverTheSequence() {
    let dropped: Publishers.Sequence<DropFirstSequence<[Int]>, Never> = [1, 2, 3].publisher.dropFirst()
    #expect(Array(dropped.sequence) == [2, 3])
    #expect(Array([1, 2, 3].publisher.dropFirst(2).sequence) == [3])
  }

  @Test func dropWhileIsAppliedToTheSequence() {
    let dropped: Publishers.Sequence<DropWhileSequence<[Int]>, Never> = [1, 2, 5, 1].publisher.drop(while: { $0 < 3 })
    #expect(Array(dropped.sequence) == [5, 1])
    let subscriber = TestSubscriber<Int, Never>()
    dropped.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(5), .value(1), .completion(.finished)])
  }

  @Test func prefixIsLazyOverTheSequence() {
    let prefix: Publishers.Sequence<PrefixSequence<[Int]>, Never> = [1, 2, 3].publisher.prefix(2)
    #expect(Array(prefix.sequence) == [1, 2])
  }

  @Test func prefixWhileCollectsAnArray() {
    let prefix: Publishers.Sequence<[Int], Never> = [1, 2, 5, 1].publisher.prefix(while: { $0 < 3 })
    #expect(prefix.sequence == [1, 2])
  }

  @Test func prependJoinsAtOnce() {
    let prepended: Publishers.Sequence<[Int], Never> = [3, 4].publisher.prepend(1, 2)
    #expect(prepended.sequence == [1, 2, 3, 4])
    #expect([3].publisher.prepend(1...2).sequence == [1, 2, 3])
    #expect([3].publisher.prepend([1, 2].publisher).sequence == [1, 2, 3])
  }

  @Test func appendJoinsAtOnce() {
    let appended: Publishers.Sequence<[Int], Never> = [1, 2].publisher.append(3, 4)
    #expect(appended.sequence == [1, 2, 3, 4])
    #expect([1].publisher.append(2...3).sequence == [1, 2, 3])
    #expect([1].publisher.append([2, 3].publisher).sequence == [1, 2, 3])
    let subscriber = TestSubscriber<Int, Never>()
    appended.subscribe(subscriber)
    #expect(subscriber.values == [1, 2, 3, 4])
  }

  @Test func aRangeIsNotRangeReplaceableSoItConcatenates() {
    let joined = (1...2).publisher.append(3)
    #expect(
      type(of: joined)
        == Publishers.Concatenate<Publishers.Sequence<ClosedRange<Int>, Never>, Publishers.Sequence<[Int], Never>>.self)
    let subscriber = TestSubscriber<Int, Never>()
    joined.subscribe(subscriber)
    #expect(subscriber.values == [1, 2, 3])
  }
}

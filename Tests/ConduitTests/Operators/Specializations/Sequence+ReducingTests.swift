import Conduit
import ConduitTesting
import Testing

private struct Boom: Error, Equatable {}

/// Combine's reducing operators on `Publishers.Sequence` compute their result at once and
/// return a simpler publisher.
@Suite(.leakChecked)
struct SequenceReducingTests {
  @Test func countIsAJustForArraysAndAResultOtherwise() {
    let array: Just<Int> = [1, 2, 3].publisher.count()
    #expect(array.output == 3)

    let failing = Publishers.Sequence<[Int], Boom>(sequence: [1, 2])
    let result: Result<Int, Boom>.Publisher = failing.count()
    #expect(result.result == .success(2))

    let set: Result<Int, Never>.Publisher = Set([1, 2, 2, 3]).publisher.count()
    #expect(set.result == .success(3))
  }

  @Test func minAndMaxAreOptionalPublishers() {
    let min: Optional<Int>.Publisher = [3, 1, 2].publisher.min()
    let max: Optional<Int>.Publisher = [3, 1, 2].publisher.max()
    let none: Optional<Int>.Publisher = [Int]().publisher.min()
    let shortest: Optional<String>.Publisher = ["pear", "fig"].publisher.min { $0.count < $1.count }
    let longest: Optional<String>.Publisher = ["pear", "fig"].publisher.max { $0.count < $1.count }

    #expect(min.output == 1)
    #expect(max.output == 3)
    #expect(none.output == nil)
    #expect(shortest.output == "fig")
    #expect(longest.output == "pear")
  }

  @Test func firstAndLastAreOptionalPublishers() {
    let first: Optional<Int>.Publisher = [3, 1, 2].publisher.first()
    let firstEven: Optional<Int>.Publisher = [3, 4, 6].publisher.first { $0.isMultiple(of: 2) }
    let last: Optional<Int>.Publisher = [3, 1, 2].publisher.last()
    let lastOdd: Optional<Int>.Publisher = [3, 1, 2].publisher.last { !$0.isMultiple(of: 2) }
    let empty: Optional<Int>.Publisher = [Int]().publisher.last()

    #expect(first.output == 3)
    #expect(firstEven.output == 4)
    #expect(last.output == 2)
    #expect(lastOdd.output == 1)
    #expect(empty.output == nil)
  }

  @Test func outputAtIsAnOptionalPublisher() {
    let inBounds: Optional<Int>.Publisher = [3, 1, 2].publisher.output(at: 1)
    let outOfBounds: Optional<Int>.Publisher = [3, 1, 2].publisher.output(at: 7)
    let text = "abc"
    let character: Optional<Character>.Publisher = text.publisher.output(at: text.index(after: text.startIndex))

    #expect(inBounds.output == 1)
    #expect(outOfBounds.output == nil)
    #expect(character.output == "b")
  }

  @Test func outputInIsASequenceOfTheSlice() {
    let numbers: Publishers.Sequence<[Int], Never> = [3, 1, 2, 5].publisher.output(in: 1..<3)
    #expect(numbers.sequence == [1, 2])

    let text = "abcd"
    let start = text.index(after: text.startIndex)
    let characters: Publishers.Sequence<[Character], Never> = text.publisher.output(
      in: start..<text.index(after: start))
    #expect(characters.sequence == ["b"])
  }

  @Test func containsAndAllSatisfyAreResultPublishers() {
    let contains: Result<Bool, Never>.Publisher = [1, 5].publisher.contains(5)
    let containsWhere: Result<Bool, Never>.Publisher = [1, 5].publisher.contains { $0 > 6 }
    let allSatisfy: Result<Bool, Never>.Publisher = [2, 4].publisher.allSatisfy { $0.isMultiple(of: 2) }

    #expect(contains.result == .success(true))
    #expect(containsWhere.result == .success(false))
    #expect(allSatisfy.result == .success(true))
  }

  @Test func tryVariantsCarryTheThrownError() throws {
    let tryContains: Result<Bool, any Error>.Publisher = [1, 5].publisher.tryContains { value in
      if value == 5 { throw Boom() }
      return false
    }
    let tryAllSatisfy: Result<Bool, any Error>.Publisher = [1, 5].publisher.tryAllSatisfy { $0 > 0 }
    let tryReduce: Result<Int, any Error>.Publisher = [1, 2, 3].publisher.tryReduce(0) { sum, value in
      if value == 3 { throw Boom() }
      return sum + value
    }

    #expect(throws: Boom.self) { try tryContains.result.get() }
    #expect(try tryAllSatisfy.result.get() == true)
    #expect(throws: Boom.self) { try tryReduce.result.get() }
  }

  @Test func reduceAndCollectAreResultPublishers() {
    let reduce: Result<Int, Never>.Publisher = (1...4).publisher.reduce(0, +)
    let collect: Result<[Int], Never>.Publisher = (1...3).publisher.collect()

    #expect(reduce.result == .success(10))
    #expect(collect.result == .success([1, 2, 3]))
  }

  @Test func ignoreOutputIsEmpty() {
    let empty: Empty<Int, Boom> = Publishers.Sequence<[Int], Boom>(sequence: [1, 2]).ignoreOutput()
    let subscriber = TestSubscriber<Int, Boom>(initialDemand: .none)
    empty.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func theSpecializedPublishersDeliverLikeTheGenericOperators() {
    let count = TestSubscriber<Int, Never>(initialDemand: .none)
    [1, 2, 3].publisher.count().subscribe(count)
    #expect(count.events == [.subscription])
    count.request(.max(1))
    #expect(count.events == [.subscription, .value(3), .completion(.finished)])

    let min = TestSubscriber<Int, Never>()
    [3, 1, 2].publisher.min().subscribe(min)
    #expect(min.events == [.subscription, .value(1), .completion(.finished)])

    let collect = TestSubscriber<[Int], Never>()
    (1...3).publisher.collect().subscribe(collect)
    #expect(collect.events == [.subscription, .value([1, 2, 3]), .completion(.finished)])
  }
}

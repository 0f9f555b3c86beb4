import Conduit
import ConduitTesting
import Testing

private struct SequenceOperatorsTestError: Error, Equatable {}

@Suite(.leakChecked)
struct SequenceOperatorsTests {
  @Test func mapReturnsASequenceOfTheResults() {
    let mapped: Publishers.Sequence<[Int], Never> = (1...3).publisher.map { $0 * 10 }
    #expect(mapped.sequence == [10, 20, 30])
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    mapped.subscribe(subscriber)
    #expect(subscriber.values == [10])
    subscriber.request(.max(2))
    #expect(subscriber.values == [10, 20, 30])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func filterKeepsMatchingElements() {
    let filtered: Publishers.Sequence<[Int], Never> = [1, 2, 3, 4].publisher.filter { $0.isMultiple(of: 2) }
    #expect(filtered.sequence == [2, 4])
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    filtered.subscribe(subscriber)
    #expect(subscriber.values == [2, 4])
    #expect(subscriber.completion == .finished)
  }

  @Test func compactMapKeepsNonNilResults() {
    let parsed: Publishers.Sequence<[Int], Never> = ["1", "x", "3"].publisher.compactMap { Int($0) }
    #expect(parsed.sequence == [1, 3])
  }

  @Test func replaceNilKeepsTheOptionalElementType() {
    let replaced: Publishers.Sequence<[Int?], Never> = [1, nil, 3].publisher.replaceNil(with: 0)
    #expect(replaced.sequence == [1, 0, 3])
  }

  @Test func scanComputesEveryRunningResult() {
    let scanned: Publishers.Sequence<[Int], Never> = [1, 2, 3, 4].publisher.scan(0, +)
    #expect(scanned.sequence == [1, 3, 6, 10])
  }

  @Test func removeDuplicatesDropsConsecutiveRepeats() {
    let unique: Publishers.Sequence<[Int], Never> = [1, 1, 2, 2, 2, 1, 3, 3].publisher.removeDuplicates()
    #expect(unique.sequence == [1, 2, 1, 3])
    let empty: Publishers.Sequence<[Int], Never> = [Int]().publisher.removeDuplicates()
    #expect(empty.sequence.isEmpty)
  }

  @Test func setFailureTypeKeepsTheSequence() {
    let typed: Publishers.Sequence<ClosedRange<Int>, SequenceOperatorsTestError> = (1...3).publisher
      .setFailureType(to: SequenceOperatorsTestError.self)
    #expect(typed.sequence == 1...3)
    let subscriber = TestSubscriber<Int, SequenceOperatorsTestError>()
    typed.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)])
  }

  @Test func specialisationsKeepTheFailureType() {
    let source = Publishers.Sequence<[Int], SequenceOperatorsTestError>(sequence: [1, 2])
    let mapped: Publishers.Sequence<[Int], SequenceOperatorsTestError> = source.map { $0 + 1 }
    #expect(mapped.sequence == [2, 3])
  }
}

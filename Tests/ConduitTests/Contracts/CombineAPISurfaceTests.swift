import Conduit
import ConduitTesting
import Testing

// Compile-level review of Conduit's public operator and sharing API against Combine's.
//
// Every binding below carries an explicit type, so a wrong return type, a missing overload, a
// missing initializer label or a missing property fails to compile. The types and signatures are
// Combine's (as recorded by Apple's documentation and mirrored by OpenCombine's
// Sources/OpenCombine/Publishers); each test also checks the values it reads.

private enum SurfaceError: Error, Equatable {
  case oops
}

private struct Pair: Equatable {
  var first: Int
  var second: String
  var third: Bool
}

/// A coder over `[Int]`: encodes any value as the number of times it was asked, decodes to zero.
private struct CountingCoder: TopLevelEncoder, TopLevelDecoder {
  func encode<T: Encodable>(_ value: T) throws -> [Int] { [1] }
  func decode<T: Decodable>(_ type: T.Type, from: [Int]) throws -> T {
    throw SurfaceError.oops
  }
}

/// The error transform for a publisher that cannot fail: it is never called.
private func absurd(_ never: Never) -> SurfaceError {}

@Suite(.leakChecked)
struct CombineAPISurfaceTests {
  private typealias Subject = PassthroughSubject<Int, Never>
  private typealias FailingSubject = PassthroughSubject<Int, SurfaceError>
  private typealias Source = Empty<Int, Never>

  // MARK: - Mapping

  @Test func mappingFamilyMatchesCombine() throws {
    let subject = Subject()

    let map = Publishers.Map(upstream: subject) { $0 * 2 }
    let mapUpstream: Subject = map.upstream
    #expect(mapUpstream === subject)
    #expect(map.transform(21) == 42)
    let fusedMap: Publishers.Map<Subject, String> = subject.map { $0 + 1 }.map { "\($0)" }
    #expect(fusedMap.transform(1) == "2")
    let mapThenTry: Publishers.TryMap<Subject, Int> = subject.map { $0 + 1 }.tryMap { $0 * 3 }
    #expect(try mapThenTry.transform(1) == 6)

    let tryMap = Publishers.TryMap(upstream: subject) { (value: Int) throws -> Int in value - 1 }
    let tryMapFailure: (any Error).Type = Publishers.TryMap<Subject, Int>.Failure.self
    #expect(tryMapFailure == (any Error).self)
    #expect(try tryMap.transform(1) == 0)
    let tryThenMap: Publishers.TryMap<Subject, String> = tryMap.map { "\($0)" }
    let tryThenTry: Publishers.TryMap<Subject, Int> = tryMap.tryMap { $0 * 10 }
    #expect(try tryThenMap.transform(5) == "4")
    #expect(try tryThenTry.transform(5) == 40)

    let compactMap = Publishers.CompactMap(upstream: subject) { $0 > 0 ? $0 : nil }
    #expect(compactMap.transform(-1) == nil)
    let compactTwice: Publishers.CompactMap<Subject, String> =
      subject.compactMap { $0 > 0 ? $0 : nil }.compactMap { $0 > 1 ? "\($0)" : nil }
    let compactThenMap: Publishers.CompactMap<Subject, Int> = compactMap.map { $0 * 2 }
    #expect(compactTwice.transform(1) == nil)
    #expect(compactTwice.transform(2) == "2")
    #expect(compactThenMap.transform(3) == 6)

    let tryCompactMap = Publishers.TryCompactMap(upstream: subject) { (value: Int) throws -> Int? in value }
    let tryCompactTwice: Publishers.TryCompactMap<Subject, String> =
      tryCompactMap.compactMap { (value: Int) throws -> String? in value > 0 ? "\(value)" : nil }
    #expect(try tryCompactTwice.transform(0) == nil)
    #expect(try tryCompactTwice.transform(7) == "7")
    let tryCompactFromPublisher: Publishers.TryCompactMap<Subject, Int> = subject.tryCompactMap { $0 }
    #expect(try tryCompactFromPublisher.transform(4) == 4)

    let failing = FailingSubject()
    let mapError: Publishers.MapError<FailingSubject, SurfaceError> = failing.mapError { $0 }
    #expect(mapError.upstream === failing)
    #expect(mapError.transform(.oops) == .oops)
    let mapErrorLabelled = Publishers.MapError(upstream: failing, transform: { _ in SurfaceError.oops })
    let mapErrorUnlabelled = Publishers.MapError(upstream: failing, { _ in SurfaceError.oops })
    #expect(mapErrorLabelled.transform(.oops) == mapErrorUnlabelled.transform(.oops))

    let pairs = PassthroughSubject<Pair, Never>()
    let keyPath: Publishers.MapKeyPath<PassthroughSubject<Pair, Never>, Int> = pairs.map(\.first)
    let keyPath2: Publishers.MapKeyPath2<PassthroughSubject<Pair, Never>, Int, String> =
      pairs.map(\.first, \.second)
    let keyPath3: Publishers.MapKeyPath3<PassthroughSubject<Pair, Never>, Int, String, Bool> =
      pairs.map(\.first, \.second, \.third)
    #expect(keyPath.keyPath == \Pair.first)
    #expect(keyPath2.keyPath0 == \Pair.first && keyPath2.keyPath1 == \Pair.second)
    #expect(keyPath3.keyPath2 == \Pair.third && keyPath3.upstream === pairs)

    let optionals = PassthroughSubject<Int?, Never>()
    let replaceNil: Publishers.Map<PassthroughSubject<Int?, Never>, Int> = optionals.replaceNil(with: 0)
    #expect(replaceNil.transform(nil) == 0)

    let scan: Publishers.Scan<Subject, String> = subject.scan("") { $0 + "\($1)" }
    #expect(scan.initialResult == "")
    #expect(scan.nextPartialResult("a", 1) == "a1")
    let scanInit = Publishers.Scan(upstream: subject, initialResult: 0, nextPartialResult: +)
    #expect(scanInit.nextPartialResult(2, 3) == 5)
    let tryScan: Publishers.TryScan<Subject, Int> = subject.tryScan(1) { $0 * $1 }
    let tryScanInit = Publishers.TryScan(upstream: subject, initialResult: 1) { $0 * $1 }
    #expect(tryScan.initialResult == tryScanInit.initialResult)

    let setFailure: Publishers.SetFailureType<Source, SurfaceError> = Source().setFailureType(to: SurfaceError.self)
    let setTwice: Publishers.SetFailureType<Source, any Error> = setFailure.setFailureType(to: (any Error).self)
    #expect(setFailure == Publishers.SetFailureType(upstream: Source()))
    #expect(setTwice.upstream == Source())
  }

  // MARK: - Filtering

  @Test func filteringFamilyMatchesCombine() throws {
    let subject = Subject()

    let filter = Publishers.Filter(upstream: subject) { $0 > 0 }
    #expect(filter.isIncluded(1) && !filter.isIncluded(0))
    let filterTwice: Publishers.Filter<Subject> = subject.filter { $0 > 0 }.filter { $0 < 10 }
    let filterThenTry: Publishers.TryFilter<Subject> = filter.tryFilter { $0 < 10 }
    #expect(filterTwice.isIncluded(5) && !filterTwice.isIncluded(10))
    #expect(try filterThenTry.isIncluded(5))

    let tryFilter = Publishers.TryFilter(upstream: subject) { (value: Int) throws -> Bool in value > 0 }
    let tryFilterThenFilter: Publishers.TryFilter<Subject> = tryFilter.filter { $0 < 10 }
    let tryFilterTwice: Publishers.TryFilter<Subject> = tryFilter.tryFilter { $0 < 10 }
    #expect(try !tryFilterThenFilter.isIncluded(10) && tryFilterTwice.isIncluded(9))

    let removeDuplicates: Publishers.RemoveDuplicates<Subject> = subject.removeDuplicates()
    let removeBy: Publishers.RemoveDuplicates<Subject> = subject.removeDuplicates { $0 / 10 == $1 / 10 }
    let removeInit = Publishers.RemoveDuplicates(upstream: subject, predicate: ==)
    #expect(removeDuplicates.predicate(1, 1) && removeBy.predicate(11, 12) && !removeInit.predicate(1, 2))
    let tryRemove: Publishers.TryRemoveDuplicates<Subject> = subject.tryRemoveDuplicates { $0 == $1 }
    let tryRemoveInit = Publishers.TryRemoveDuplicates(upstream: subject) { $0 == $1 }
    #expect(try tryRemove.predicate(2, 2) && tryRemoveInit.predicate(3, 3))

    let replaceEmpty: Publishers.ReplaceEmpty<Source> = Source().replaceEmpty(with: 7)
    #expect(replaceEmpty == Publishers.ReplaceEmpty(upstream: Source(), output: 7))
    #expect(replaceEmpty != Publishers.ReplaceEmpty(upstream: Source(), output: 8))
    let failingSource = Empty<Int, SurfaceError>()
    let replaceError: Publishers.ReplaceError<Empty<Int, SurfaceError>> = failingSource.replaceError(with: 1)
    #expect(replaceError == Publishers.ReplaceError(upstream: failingSource, output: 1))
    #expect(replaceError.output == 1)

    let drop: Publishers.Drop<Source> = Source().dropFirst()
    #expect(drop == Publishers.Drop(upstream: Source(), count: 1))
    #expect(Source().dropFirst(3).count == 3)
    let dropWhile: Publishers.DropWhile<Subject> = subject.drop { $0 < 3 }
    let dropWhileInit = Publishers.DropWhile(upstream: subject, predicate: { $0 < 3 })
    #expect(dropWhile.predicate(2) && !dropWhileInit.predicate(3))
    let tryDropWhile: Publishers.TryDropWhile<Subject> = subject.tryDrop { $0 < 3 }
    #expect(try Publishers.TryDropWhile(upstream: subject) { $0 < 3 }.predicate(2) && tryDropWhile.predicate(1))
    let dropUntil: Publishers.DropUntilOutput<Source, Source> = Source().drop(untilOutputFrom: Source())
    #expect(dropUntil == Publishers.DropUntilOutput(upstream: Source(), other: Source()))

    let prefixWhile: Publishers.PrefixWhile<Subject> = subject.prefix { $0 < 3 }
    let tryPrefixWhile: Publishers.TryPrefixWhile<Subject> = subject.tryPrefix { $0 < 3 }
    #expect(prefixWhile.predicate(2) && Publishers.PrefixWhile(upstream: subject) { $0 < 3 }.predicate(1))
    #expect(try tryPrefixWhile.predicate(2) && Publishers.TryPrefixWhile(upstream: subject) { $0 < 3 }.predicate(1))
    let prefixUntil: Publishers.PrefixUntilOutput<Subject, Source> = subject.prefix(untilOutputFrom: Source())
    #expect(prefixUntil.upstream === subject && prefixUntil.other == Source())

    let prefix: Publishers.Output<Source> = Source().prefix(2)
    let outputAt: Publishers.Output<Source> = Source().output(at: 3)
    let outputIn: Publishers.Output<Source> = Source().output(in: 1...4)
    #expect(prefix == Publishers.Output(upstream: Source(), range: 0..<2))
    #expect(outputAt.range == 3..<4 && outputIn.range == 1..<5)

    let first: Publishers.First<Source> = Source().first()
    let last: Publishers.Last<Source> = Source().last()
    #expect(first == Publishers.First(upstream: Source()) && last == Publishers.Last(upstream: Source()))
    let firstWhere: Publishers.FirstWhere<Subject> = subject.first { $0 > 1 }
    let lastWhere: Publishers.LastWhere<Subject> = subject.last { $0 > 1 }
    let tryFirstWhere: Publishers.TryFirstWhere<Subject> = subject.tryFirst { $0 > 1 }
    let tryLastWhere: Publishers.TryLastWhere<Subject> = subject.tryLast { $0 > 1 }
    #expect(firstWhere.predicate(2) && lastWhere.predicate(2))
    #expect(try tryFirstWhere.predicate(2) && tryLastWhere.predicate(2))
    #expect(Publishers.FirstWhere(upstream: subject) { $0 > 1 }.upstream === subject)
    #expect(Publishers.LastWhere(upstream: subject) { $0 > 1 }.upstream === subject)
    #expect(Publishers.TryFirstWhere(upstream: subject) { $0 > 1 }.upstream === subject)
    #expect(Publishers.TryLastWhere(upstream: subject) { $0 > 1 }.upstream === subject)
  }

  // MARK: - Reducing

  @Test func reducingFamilyMatchesCombine() throws {
    let subject = Subject()

    let collect: Publishers.Collect<Source> = Source().collect()
    let collectByCount: Publishers.CollectByCount<Source> = Source().collect(3)
    #expect(collect == Publishers.Collect(upstream: Source()))
    #expect(collectByCount == Publishers.CollectByCount(upstream: Source(), count: 3))
    #expect(collectByCount.count == 3)

    let reduce: Publishers.Reduce<Subject, String> = subject.reduce("") { $0 + "\($1)" }
    let reduceInit = Publishers.Reduce(upstream: subject, initial: 1, nextPartialResult: *)
    #expect(reduce.initial == "" && reduceInit.nextPartialResult(2, 3) == 6)
    let tryReduce: Publishers.TryReduce<Subject, Int> = subject.tryReduce(0) { $0 + $1 }
    let tryReduceInit = Publishers.TryReduce(upstream: subject, initial: 0) { $0 + $1 }
    #expect(try tryReduce.nextPartialResult(1, 2) == tryReduceInit.nextPartialResult(2, 1))

    let count: Publishers.Count<Source> = Source().count()
    let ignore: Publishers.IgnoreOutput<Source> = Source().ignoreOutput()
    #expect(count == Publishers.Count(upstream: Source()) && ignore == Publishers.IgnoreOutput(upstream: Source()))

    let contains: Publishers.Contains<Source> = Source().contains(3)
    #expect(contains == Publishers.Contains(upstream: Source(), output: 3) && contains.output == 3)
    let containsWhere: Publishers.ContainsWhere<Subject> = subject.contains { $0 > 2 }
    let tryContainsWhere: Publishers.TryContainsWhere<Subject> = subject.tryContains { $0 > 2 }
    #expect(containsWhere.predicate(3) && Publishers.ContainsWhere(upstream: subject) { $0 > 2 }.predicate(3))
    #expect(try tryContainsWhere.predicate(3) && Publishers.TryContainsWhere(upstream: subject) { $0 > 2 }.predicate(3))
    let allSatisfy: Publishers.AllSatisfy<Subject> = subject.allSatisfy { $0 > 2 }
    let tryAllSatisfy: Publishers.TryAllSatisfy<Subject> = subject.tryAllSatisfy { $0 > 2 }
    #expect(allSatisfy.predicate(3) && Publishers.AllSatisfy(upstream: subject) { $0 > 2 }.predicate(3))
    #expect(try tryAllSatisfy.predicate(3) && Publishers.TryAllSatisfy(upstream: subject) { $0 > 2 }.predicate(3))

    let min: Publishers.Comparison<Subject> = subject.min()
    let max: Publishers.Comparison<Subject> = subject.max()
    let minBy: Publishers.Comparison<Subject> = subject.min { $0 > $1 }
    let maxBy: Publishers.Comparison<Subject> = subject.max { $0 > $1 }
    // Combine keeps the maximum under the stored ordering: `min` stores `>` and `min(by:)` the
    // reversed closure, `max` and `max(by:)` the ordering as given.
    #expect(min.areInIncreasingOrder(2, 1) && max.areInIncreasingOrder(1, 2))
    #expect(minBy.areInIncreasingOrder(1, 2) && maxBy.areInIncreasingOrder(2, 1))
    #expect(Publishers.Comparison(upstream: subject, areInIncreasingOrder: <).areInIncreasingOrder(1, 2))
    let tryMin: Publishers.TryComparison<Subject> = subject.tryMin { $0 < $1 }
    let tryMax: Publishers.TryComparison<Subject> = subject.tryMax { $0 < $1 }
    #expect(try tryMin.areInIncreasingOrder(2, 1) && tryMax.areInIncreasingOrder(1, 2))
    #expect(try Publishers.TryComparison(upstream: subject, areInIncreasingOrder: <).areInIncreasingOrder(1, 2))
  }

  // MARK: - Combining

  @Test func combiningFamilyMatchesCombine() {
    let a = Source()
    let b = Empty<Int, Never>(completeImmediately: false)

    let merge: Publishers.Merge<Source, Source> = a.merge(with: b)
    #expect(merge == Publishers.Merge(a, b) && merge.b == b && merge != Publishers.Merge(b, a))
    let sameType: Publishers.MergeMany<Source> = a.merge(with: b)
    #expect(sameType.publishers == [a, b])
    let merge3: Publishers.Merge3<Source, Source, Source> = a.merge(with: a, b)
    let merge4: Publishers.Merge4<Source, Source, Source, Source> = a.merge(with: a, a, b)
    let merge5: Publishers.Merge5<Source, Source, Source, Source, Source> = a.merge(with: a, a, a, b)
    let merge6: Publishers.Merge6<Source, Source, Source, Source, Source, Source> = a.merge(with: a, a, a, a, b)
    let merge7: Publishers.Merge7<Source, Source, Source, Source, Source, Source, Source> =
      a.merge(with: a, a, a, a, a, b)
    let merge8: Publishers.Merge8<Source, Source, Source, Source, Source, Source, Source, Source> =
      a.merge(with: a, a, a, a, a, a, b)
    #expect(merge3 == Publishers.Merge3(a, a, b) && merge3.c == b)
    #expect(merge4 == Publishers.Merge4(a, a, a, b) && merge4.d == b)
    #expect(merge5 == Publishers.Merge5(a, a, a, a, b) && merge5.e == b)
    #expect(merge6 == Publishers.Merge6(a, a, a, a, a, b) && merge6.f == b)
    #expect(merge7 == Publishers.Merge7(a, a, a, a, a, a, b) && merge7.g == b)
    #expect(merge8 == Publishers.Merge8(a, a, a, a, a, a, a, b) && merge8.h == b)

    // Merging a merge widens it instead of nesting.
    let widened3: Publishers.Merge3<Source, Source, Source> = merge.merge(with: b)
    let widened8: Publishers.Merge8<Source, Source, Source, Source, Source, Source, Source, Source> =
      merge.merge(with: a, a, a, a, a, b)
    #expect(widened3 == Publishers.Merge3(a, b, b) && widened8.h == b)
    let from3: Publishers.Merge8<Source, Source, Source, Source, Source, Source, Source, Source> =
      merge3.merge(with: a, a, a, a, b)
    let from4: Publishers.Merge8<Source, Source, Source, Source, Source, Source, Source, Source> =
      merge4.merge(with: a, a, a, b)
    let from5: Publishers.Merge8<Source, Source, Source, Source, Source, Source, Source, Source> =
      merge5.merge(with: a, a, b)
    let from6: Publishers.Merge8<Source, Source, Source, Source, Source, Source, Source, Source> =
      merge6.merge(with: a, b)
    let from7: Publishers.Merge8<Source, Source, Source, Source, Source, Source, Source, Source> =
      merge7.merge(with: b)
    #expect(from3.c == b && from4.d == b && from5.e == b && from6.f == b && from7.g == b)
    #expect(from3.h == b && from7.h == b && from3 != from4)

    let many = Publishers.MergeMany(a, a, b)
    let manyFromSequence = Publishers.MergeMany([a, a])
    let manyMore: Publishers.MergeMany<Source> = manyFromSequence.merge(with: b)
    #expect(many == manyMore && many.publishers.count == 3 && many != manyFromSequence)

    let strings = Empty<String, Never>()
    let flags = Empty<Bool, Never>()
    let zip: Publishers.Zip<Source, Empty<String, Never>> = a.zip(strings)
    let zip3: Publishers.Zip3<Source, Empty<String, Never>, Empty<Bool, Never>> = a.zip(strings, flags)
    let zip4: Publishers.Zip4<Source, Empty<String, Never>, Empty<Bool, Never>, Source> = a.zip(strings, flags, b)
    #expect(zip == Publishers.Zip(a, strings) && zip.b == strings)
    #expect(zip3 == Publishers.Zip3(a, strings, flags) && zip3.c == flags)
    #expect(zip4 == Publishers.Zip4(a, strings, flags, b) && zip4.d == b)
    let zipMap: Publishers.Map<Publishers.Zip<Source, Empty<String, Never>>, String> = a.zip(strings) { "\($0)\($1)" }
    let zip3Map: Publishers.Map<Publishers.Zip3<Source, Source, Source>, Int> = a.zip(a, b) { $0 + $1 + $2 }
    let zip4Map: Publishers.Map<Publishers.Zip4<Source, Source, Source, Source>, Int> =
      a.zip(a, a, b) { $0 + $1 + $2 + $3 }
    #expect(zipMap.transform((1, "a")) == "1a" && zip3Map.transform((1, 2, 3)) == 6)
    #expect(zip4Map.transform((1, 2, 3, 4)) == 10 && zip4Map.upstream.d == b)

    let latest: Publishers.CombineLatest<Source, Empty<String, Never>> = a.combineLatest(strings)
    let latest3: Publishers.CombineLatest3<Source, Empty<String, Never>, Empty<Bool, Never>> =
      a.combineLatest(strings, flags)
    let latest4: Publishers.CombineLatest4<Source, Empty<String, Never>, Empty<Bool, Never>, Source> =
      a.combineLatest(strings, flags, b)
    #expect(latest == Publishers.CombineLatest(a, strings) && latest.a == a)
    #expect(latest3 == Publishers.CombineLatest3(a, strings, flags) && latest3.c == flags)
    #expect(latest4 == Publishers.CombineLatest4(a, strings, flags, b) && latest4.d == b)
    let latestMap: Publishers.Map<Publishers.CombineLatest<Source, Source>, Int> = a.combineLatest(b) { $0 - $1 }
    let latest3Map: Publishers.Map<Publishers.CombineLatest3<Source, Source, Source>, Int> =
      a.combineLatest(a, b) { $0 * $1 * $2 }
    let latest4Map: Publishers.Map<Publishers.CombineLatest4<Source, Source, Source, Source>, Int> =
      a.combineLatest(a, a, b) { $0 + $1 + $2 + $3 }
    #expect(latestMap.transform((5, 3)) == 2 && latest3Map.transform((2, 3, 4)) == 24)
    #expect(latest4Map.transform((1, 1, 1, 1)) == 4)
  }

  // MARK: - Flattening and concatenating

  @Test func flatteningFamilyMatchesCombine() {
    let subject = Subject()
    let switchBothNeverShape = Publishers.SwitchToLatest<Just<Int>, PassthroughSubject<Just<Int>, Never>>(
      upstream: PassthroughSubject())
    let failing = FailingSubject()

    let flatMap: Publishers.FlatMap<Just<String>, Subject> = subject.flatMap { Just("\($0)") }
    let limited: Publishers.FlatMap<Just<String>, Subject> = subject.flatMap(maxPublishers: .max(2)) { Just("\($0)") }
    #expect(flatMap.maxPublishers == .unlimited && limited.maxPublishers == .max(2))
    #expect(flatMap.transform(3) == Just("3") && flatMap.upstream === subject)
    let sameFailure: Publishers.FlatMap<Fail<Int, SurfaceError>, FailingSubject> =
      failing.flatMap { _ in Fail<Int, SurfaceError>(error: .oops) }
    #expect(sameFailure.upstream === failing)
    // A never-failing inner publisher under a failing upstream gets the upstream's failure type.
    let innerNever: Publishers.FlatMap<Publishers.SetFailureType<Just<Int>, SurfaceError>, FailingSubject> =
      failing.flatMap { Just($0) }
    #expect(innerNever.transform(4).upstream == Just(4))
    // A never-failing upstream takes the inner publisher's failure type.
    let upstreamNever: Publishers.FlatMap<Fail<Int, SurfaceError>, Publishers.SetFailureType<Subject, SurfaceError>> =
      subject.flatMap { _ in Fail<Int, SurfaceError>(error: .oops) }
    #expect(upstreamNever.upstream.upstream === subject)
    let bothNever: Publishers.FlatMap<Just<Int>, Subject> = subject.flatMap(maxPublishers: .max(1)) { Just($0) }
    #expect(bothNever.maxPublishers == .max(1))
    // Without a type annotation, overload resolution picks what Combine's does.
    #expect(type(of: subject.flatMap { Just($0) }) == Publishers.FlatMap<Just<Int>, Subject>.self)
    #expect(type(of: failing.flatMap { Just($0) }) == type(of: innerNever))
    #expect(type(of: PassthroughSubject<Just<Int>, Never>().switchToLatest()) == type(of: switchBothNeverShape))
    #expect(type(of: Source().merge(with: Source())) == Publishers.MergeMany<Source>.self)
    #expect(type(of: Just(1).map { $0 }) == Just<Int>.self)
    let flatMapInit = Publishers.FlatMap(upstream: subject, maxPublishers: .max(3)) { Just($0) }
    #expect(flatMapInit.maxPublishers == .max(3))

    let ofSameFailure = PassthroughSubject<Fail<Int, SurfaceError>, SurfaceError>()
    let switchSame:
      Publishers.SwitchToLatest<Fail<Int, SurfaceError>, PassthroughSubject<Fail<Int, SurfaceError>, SurfaceError>> =
        ofSameFailure.switchToLatest()
    #expect(switchSame.upstream === ofSameFailure)
    let ofFailing = PassthroughSubject<Fail<Int, SurfaceError>, Never>()
    typealias FailureSetOuter = Publishers.SetFailureType<
      PassthroughSubject<Fail<Int, SurfaceError>, Never>, SurfaceError
    >
    let switchOuterNever: Publishers.SwitchToLatest<Fail<Int, SurfaceError>, FailureSetOuter> =
      ofFailing.switchToLatest()
    #expect(switchOuterNever.upstream.upstream === ofFailing)
    let ofJust = PassthroughSubject<Just<Int>, Never>()
    let switchBothNever: Publishers.SwitchToLatest<Just<Int>, PassthroughSubject<Just<Int>, Never>> =
      ofJust.switchToLatest()
    #expect(switchBothNever.upstream === ofJust)
    let ofJustFailing = PassthroughSubject<Just<Int>, SurfaceError>()
    let switchInnerNever:
      Publishers.SwitchToLatest<
        Publishers.SetFailureType<Just<Int>, SurfaceError>,
        Publishers.Map<PassthroughSubject<Just<Int>, SurfaceError>, Publishers.SetFailureType<Just<Int>, SurfaceError>>
      > = ofJustFailing.switchToLatest()
    #expect(switchInnerNever.upstream.transform(Just(5)).upstream == Just(5))
    #expect(
      Publishers.SwitchToLatest<Just<Int>, PassthroughSubject<Just<Int>, Never>>(upstream: ofJust).upstream === ofJust)

    let source = Source()
    let prepended: Publishers.Concatenate<Publishers.Sequence<[Int], Never>, Source> = source.prepend(1, 2)
    let prependedSequence: Publishers.Concatenate<Publishers.Sequence<ClosedRange<Int>, Never>, Source> =
      source.prepend(1...2)
    let prependedPublisher: Publishers.Concatenate<Source, Source> = source.prepend(Source())
    let appended: Publishers.Concatenate<Source, Publishers.Sequence<[Int], Never>> = source.append(1, 2)
    let appendedSequence: Publishers.Concatenate<Source, Publishers.Sequence<ClosedRange<Int>, Never>> =
      source.append(1...2)
    let appendedPublisher: Publishers.Concatenate<Source, Source> = source.append(Source())
    #expect(prepended.prefix.sequence == [1, 2] && appended.suffix.sequence == [1, 2])
    #expect(prependedSequence.prefix.sequence == 1...2 && appendedSequence.suffix.sequence == 1...2)
    #expect(prependedPublisher == appendedPublisher)
    #expect(prependedPublisher == Publishers.Concatenate(prefix: Source(), suffix: Source()))
  }

  // MARK: - Errors, debugging, timing-free utilities and coding

  @Test func errorAndDebuggingFamilyMatchesCombine() throws {
    let failing = FailingSubject()

    let catchJust: Publishers.Catch<FailingSubject, Just<Int>> = failing.catch { _ in Just(0) }
    #expect(catchJust.handler(.oops) == Just(0) && catchJust.upstream === failing)
    #expect(Publishers.Catch(upstream: failing) { _ in Just(1) }.handler(.oops) == Just(1))
    let tryCatch: Publishers.TryCatch<FailingSubject, Just<Int>> = failing.tryCatch { _ in Just(0) }
    #expect(try tryCatch.handler(.oops) == Just(0))
    #expect(try Publishers.TryCatch(upstream: failing) { _ in Just(1) }.handler(.oops) == Just(1))

    let retry: Publishers.Retry<Empty<Int, SurfaceError>> = Empty<Int, SurfaceError>().retry(2)
    #expect(retry == Publishers.Retry(upstream: Empty(), retries: 2) && retry.retries == 2)
    #expect(Publishers.Retry(upstream: Empty<Int, SurfaceError>(), retries: nil).retries == nil)

    let assertion: Publishers.AssertNoFailure<FailingSubject> = failing.assertNoFailure("ctx")
    #expect(assertion.prefix == "ctx" && assertion.line > 0)
    let assertionInit = Publishers.AssertNoFailure(upstream: failing, prefix: "p", file: #file, line: 7)
    #expect(assertionInit.line == 7 && "\(assertionInit.file)" == #file)

    let breakpoint: Publishers.Breakpoint<FailingSubject> = failing.breakpoint(receiveOutput: { $0 > 9 })
    #expect(breakpoint.receiveOutput?(10) == true && breakpoint.receiveSubscription == nil)
    let onError: Publishers.Breakpoint<FailingSubject> = failing.breakpointOnError()
    #expect(onError.receiveCompletion?(.failure(.oops)) == true && onError.receiveCompletion?(.finished) == false)
    #expect(Publishers.Breakpoint(upstream: failing).receiveCompletion == nil)

    var events: [String] = []
    var handle: Publishers.HandleEvents<FailingSubject> = failing.handleEvents(receiveOutput: { events.append("\($0)") }
    )
    handle.receiveCancel = { events.append("cancel") }
    handle.receiveOutput?(1)
    handle.receiveCancel?()
    #expect(events == ["1", "cancel"] && handle.receiveRequest == nil)
    let handleInit = Publishers.HandleEvents(
      upstream: failing, receiveSubscription: nil, receiveOutput: nil, receiveCompletion: nil, receiveCancel: nil,
      receiveRequest: { _ in })
    #expect(handleInit.receiveRequest != nil)

    let print: Publishers.Print<FailingSubject> = failing.print("tag")
    #expect(print.prefix == "tag" && print.stream == nil)
    #expect(Publishers.Print(upstream: failing, prefix: "x", to: nil).prefix == "x")

    let buffer: Publishers.Buffer<FailingSubject> = failing.buffer(size: 3, prefetch: .byRequest, whenFull: .dropOldest)
    #expect(buffer.size == 3 && buffer.prefetch == .byRequest)
    let bufferInit = Publishers.Buffer(
      upstream: failing, size: 1, prefetch: .keepFull, whenFull: .customError { .oops })
    guard case .customError(let makeError) = bufferInit.whenFull else {
      Issue.record("whenFull must keep the custom error strategy")
      return
    }
    #expect(makeError() == .oops)

    let numbers = Subject()
    let encode: Publishers.Encode<Subject, CountingCoder> = numbers.encode(encoder: CountingCoder())
    #expect(encode.upstream === numbers)
    _ = Publishers.Encode(upstream: numbers, encoder: CountingCoder())
    let blobs = PassthroughSubject<[Int], Never>()
    let decode: Publishers.Decode<PassthroughSubject<[Int], Never>, Int, CountingCoder> =
      blobs.decode(type: Int.self, decoder: CountingCoder())
    #expect(decode.upstream === blobs)
    let decodeInit = Publishers.Decode<PassthroughSubject<[Int], Never>, String, CountingCoder>(
      upstream: blobs, decoder: CountingCoder())
    #expect(decodeInit.upstream === blobs)
  }

  // MARK: - Sharing

  @Test func sharingFamilyMatchesCombine() {
    let subject = Subject()

    let share: Publishers.Share<Subject> = subject.share()
    let same = share
    #expect(share == same && share != subject.share() && share.upstream === subject)
    #expect(Publishers.Share(upstream: subject).upstream === subject)

    let multicast: Publishers.Multicast<Subject, PassthroughSubject<Int, Never>> = subject.multicast {
      PassthroughSubject<Int, Never>()
    }
    #expect(multicast.upstream === subject)
    let created = multicast.createSubject()
    #expect(created !== subject)
    let target = CurrentValueSubject<Int, Never>(0)
    let multicastSubject: Publishers.Multicast<Subject, CurrentValueSubject<Int, Never>> =
      subject.multicast(subject: target)
    #expect(multicastSubject.createSubject() === target)
    let multicastInit = Publishers.Multicast(upstream: subject, createSubject: { target })
    #expect(multicastInit.createSubject() === target)

    let connectable: Publishers.MakeConnectable<Subject> = subject.makeConnectable()
    let autoconnect: Publishers.Autoconnect<Publishers.MakeConnectable<Subject>> = connectable.autoconnect()
    let autoconnectInit = Publishers.Autoconnect(upstream: Publishers.MakeConnectable(upstream: subject))
    let received = TestSubscriber<Int, Never>()
    autoconnect.subscribe(received)
    subject.send(1)
    #expect(received.values == [1])
    received.cancel()
    _ = autoconnectInit.upstream
    let multicastAutoconnect: Publishers.Autoconnect<Publishers.Multicast<Subject, PassthroughSubject<Int, Never>>> =
      multicast.autoconnect()
    #expect(multicastAutoconnect.upstream === multicast)
  }

  // MARK: - Specialized one-shot and sequence publishers

  @Test func justSpecializationsMatchCombine() {
    let just = Just(3)
    let mapped: Just<String> = just.map { "\($0)" }
    let tryMapped: Result<Int, any Error>.Publisher = just.tryMap { $0 + 1 }
    let compact: Optional<Int>.Publisher = just.compactMap { $0 > 5 ? $0 : nil }
    let filtered: Optional<Int>.Publisher = just.filter { $0 > 1 }
    let failing: Result<Int, SurfaceError>.Publisher = just.setFailureType(to: SurfaceError.self)
    let mappedError: Result<Int, SurfaceError>.Publisher = just.mapError(absurd)
    #expect(mapped == Just("3") && compact == Optional<Int>.Publisher(nil) && filtered == Optional.Publisher(3))
    #expect(failing == Result.Publisher(3) && mappedError == Result.Publisher(.success(3)))
    #expect((try? tryMapped.result.get()) == 4)

    let unique: Just<Int> = just.removeDuplicates()
    let uniqueBy: Just<Int> = just.removeDuplicates { $0 == $1 }
    let tryUnique: Result<Int, any Error>.Publisher = just.tryRemoveDuplicates { $0 == $1 }
    let replacedError: Just<Int> = just.replaceError(with: 0)
    let replacedEmpty: Just<Int> = just.replaceEmpty(with: 0)
    let retried: Just<Int> = just.retry(1)
    #expect(unique == just && uniqueBy == just && replacedError == just && replacedEmpty == just && retried == just)
    #expect((try? tryUnique.result.get()) == 3)

    let scanned: Result<Int, Never>.Publisher = just.scan(1) { $0 + $1 }
    let tryScanned: Result<Int, any Error>.Publisher = just.tryScan(1) { $0 + $1 }
    let reduced: Result<Int, Never>.Publisher = just.reduce(1) { $0 * $1 }
    let tryReduced: Result<Int, any Error>.Publisher = just.tryReduce(1) { $0 * $1 }
    #expect(scanned == Result.Publisher(4) && reduced == Result.Publisher(3))
    #expect((try? tryScanned.result.get()) == 4 && (try? tryReduced.result.get()) == 3)

    let minimum: Just<Int> = just.min()
    let maximum: Just<Int> = just.max()
    let minimumBy: Just<Int> = just.min { $0 < $1 }
    let maximumBy: Just<Int> = just.max { $0 < $1 }
    let containsThree: Just<Bool> = just.contains(3)
    let containsWhere: Just<Bool> = just.contains { $0 > 5 }
    let tryContains: Result<Bool, any Error>.Publisher = just.tryContains { $0 > 5 }
    let all: Just<Bool> = just.allSatisfy { $0 > 0 }
    let tryAll: Result<Bool, any Error>.Publisher = just.tryAllSatisfy { $0 > 0 }
    #expect(minimum == just && maximum == just && minimumBy == just && maximumBy == just)
    #expect(containsThree == Just(true) && containsWhere == Just(false) && all == Just(true))
    #expect((try? tryContains.result.get()) == false && (try? tryAll.result.get()) == true)

    let collected: Just<[Int]> = just.collect()
    let counted: Just<Int> = just.count()
    let first: Just<Int> = just.first()
    let last: Just<Int> = just.last()
    let firstWhere: Optional<Int>.Publisher = just.first { $0 > 5 }
    let lastWhere: Optional<Int>.Publisher = just.last { $0 > 0 }
    let ignored: Empty<Int, Never> = just.ignoreOutput()
    let outputAt: Optional<Int>.Publisher = just.output(at: 0)
    let outputIn: Optional<Int>.Publisher = just.output(in: 1..<3)
    #expect(collected == Just([3]) && counted == Just(1) && first == just && last == just)
    #expect(firstWhere == Optional.Publisher(nil) && lastWhere == Optional.Publisher(3) && ignored == Empty())
    #expect(outputAt == Optional.Publisher(3) && outputIn == Optional.Publisher(nil))

    let dropped: Optional<Int>.Publisher = just.dropFirst()
    let droppedWhile: Optional<Int>.Publisher = just.drop { $0 > 5 }
    let prefixed: Optional<Int>.Publisher = just.prefix(1)
    let prefixedWhile: Optional<Int>.Publisher = just.prefix { $0 > 5 }
    #expect(dropped == Optional.Publisher(nil) && droppedWhile == Optional.Publisher(3))
    #expect(prefixed == Optional.Publisher(3) && prefixedWhile == Optional.Publisher(nil))

    let prepended: Publishers.Sequence<[Int], Never> = just.prepend(1, 2)
    let prependedSequence: Publishers.Sequence<[Int], Never> = just.prepend(1...2)
    let appended: Publishers.Sequence<[Int], Never> = just.append(4, 5)
    let appendedSequence: Publishers.Sequence<[Int], Never> = just.append(4...5)
    #expect(prepended == prependedSequence && prepended.sequence == [1, 2, 3])
    #expect(appended == appendedSequence && appended.sequence == [3, 4, 5])
  }

  @Test func optionalAndResultSpecializationsMatchCombine() {
    let some = Optional.Publisher(4)
    let mapped: Optional<String>.Publisher = some.map { "\($0)" }
    let compact: Optional<Int>.Publisher = some.compactMap { $0 > 5 ? $0 : nil }
    let filtered: Optional<Int>.Publisher = some.filter { $0 > 1 }
    let scanned: Optional<Int>.Publisher = some.scan(1) { $0 + $1 }
    let reduced: Optional<Int>.Publisher = some.reduce(1) { $0 + $1 }
    #expect(mapped == Optional.Publisher("4") && compact == Optional.Publisher(nil) && filtered == some)
    #expect(scanned == Optional.Publisher(5) && reduced == Optional.Publisher(5))
    let unique: Optional<Int>.Publisher = some.removeDuplicates()
    let uniqueBy: Optional<Int>.Publisher = some.removeDuplicates { $0 == $1 }
    let replacedError: Optional<Int>.Publisher = some.replaceError(with: 0)
    let replacedEmpty: Just<Int> = Optional<Int>.Publisher(nil).replaceEmpty(with: 9)
    let retried: Optional<Int>.Publisher = some.retry(1)
    #expect(unique == some && uniqueBy == some && replacedError == some && retried == some)
    #expect(replacedEmpty == Just(9))
    let minimum: Optional<Int>.Publisher = some.min()
    let maximumBy: Optional<Int>.Publisher = some.max { $0 < $1 }
    let contains: Optional<Bool>.Publisher = some.contains(4)
    let containsWhere: Optional<Bool>.Publisher = some.contains { $0 > 5 }
    let all: Optional<Bool>.Publisher = some.allSatisfy { $0 > 5 }
    let collected: Optional<[Int]>.Publisher = some.collect()
    let counted: Optional<Int>.Publisher = some.count()
    let ignored: Empty<Int, Never> = some.ignoreOutput()
    #expect(minimum == some && maximumBy == some && contains == Optional.Publisher(true))
    #expect(containsWhere == Optional.Publisher(false) && all == Optional.Publisher(false))
    #expect(collected == Optional.Publisher([4]) && counted == Optional.Publisher(1) && ignored == Empty())
    let firsts: [Optional<Int>.Publisher] = [some.first(), some.first { $0 > 5 }, some.last(), some.last { $0 > 0 }]
    let slices: [Optional<Int>.Publisher] = [
      some.output(at: 0), some.output(in: 0...0), some.dropFirst(), some.drop { $0 > 5 }, some.prefix(0),
      some.prefix { $0 > 5 },
    ]
    #expect(firsts.map(\.output) == [4, nil, 4, 4])
    #expect(slices.map(\.output) == [4, 4, nil, 4, nil, nil])

    let success = Result<Int, SurfaceError>.Publisher(5)
    let resultMapped: Result<String, SurfaceError>.Publisher = success.map { "\($0)" }
    let resultTryMapped: Result<Int, any Error>.Publisher = success.tryMap { $0 + 1 }
    let resultMappedError: Result<Int, SurfaceError>.Publisher = success.mapError { $0 }
    let resultReplaced: Result<Int, Never>.Publisher = Result<Int, SurfaceError>.Publisher(.oops).replaceError(with: 0)
    let resultReplacedEmpty: Result<Int, SurfaceError>.Publisher = success.replaceEmpty(with: 0)
    let resultRetried: Result<Int, SurfaceError>.Publisher = success.retry(3)
    #expect(
      resultMapped == Result.Publisher("5") && resultMappedError == success && resultReplaced == Result.Publisher(0))
    #expect(resultReplacedEmpty == success && resultRetried == success)
    #expect((try? resultTryMapped.result.get()) == 6)
    let resultUnique: Result<Int, SurfaceError>.Publisher = success.removeDuplicates()
    let resultUniqueBy: Result<Int, SurfaceError>.Publisher = success.removeDuplicates { $0 == $1 }
    let resultTryUnique: Result<Int, any Error>.Publisher = success.tryRemoveDuplicates { $0 == $1 }
    let resultScan: Result<Int, SurfaceError>.Publisher = success.scan(1) { $0 + $1 }
    let resultTryScan: Result<Int, any Error>.Publisher = success.tryScan(1) { $0 + $1 }
    let resultReduce: Result<Int, SurfaceError>.Publisher = success.reduce(1) { $0 + $1 }
    let resultTryReduce: Result<Int, any Error>.Publisher = success.tryReduce(1) { $0 + $1 }
    #expect(resultUnique == success && resultUniqueBy == success && resultScan == Result.Publisher(6))
    #expect(resultReduce == Result.Publisher(6) && (try? resultTryReduce.result.get()) == 6)
    #expect((try? resultTryUnique.result.get()) == 5 && (try? resultTryScan.result.get()) == 6)
    let resultMin: Result<Int, SurfaceError>.Publisher = success.min()
    let resultMax: Result<Int, SurfaceError>.Publisher = success.max()
    let resultMinBy: Result<Int, SurfaceError>.Publisher = success.min { $0 < $1 }
    let resultMaxBy: Result<Int, SurfaceError>.Publisher = success.max { $0 < $1 }
    let resultTryMin: Result<Int, any Error>.Publisher = success.tryMin { $0 < $1 }
    let resultTryMax: Result<Int, any Error>.Publisher = success.tryMax { $0 < $1 }
    #expect(resultMin == success && resultMax == success && resultMinBy == success && resultMaxBy == success)
    #expect((try? resultTryMin.result.get()) == 5 && (try? resultTryMax.result.get()) == 5)
    let resultContains: Result<Bool, SurfaceError>.Publisher = success.contains(5)
    let resultContainsWhere: Result<Bool, SurfaceError>.Publisher = success.contains { $0 > 9 }
    let resultTryContains: Result<Bool, any Error>.Publisher = success.tryContains { $0 > 9 }
    let resultAll: Result<Bool, SurfaceError>.Publisher = success.allSatisfy { $0 > 0 }
    let resultTryAll: Result<Bool, any Error>.Publisher = success.tryAllSatisfy { $0 > 0 }
    #expect(resultContains == Result.Publisher(true) && resultContainsWhere == Result.Publisher(false))
    #expect(resultAll == Result.Publisher(true) && (try? resultTryAll.result.get()) == true)
    #expect((try? resultTryContains.result.get()) == false)
    let resultCollect: Result<[Int], SurfaceError>.Publisher = success.collect()
    let resultCount: Result<Int, SurfaceError>.Publisher = success.count()
    let resultFirst: Result<Int, SurfaceError>.Publisher = success.first()
    let resultLast: Result<Int, SurfaceError>.Publisher = success.last()
    let resultIgnored: Empty<Int, SurfaceError> = success.ignoreOutput()
    #expect(resultCollect == Result.Publisher([5]) && resultCount == Result.Publisher(1))
    #expect(resultFirst == success && resultLast == success && resultIgnored == Empty())
    let never = Result<Int, Never>.Publisher(1)
    let resultFailureSet: Result<Int, SurfaceError>.Publisher = never.setFailureType(to: SurfaceError.self)
    #expect(resultFailureSet == Result.Publisher(1))
  }

  @Test func sequenceSpecializationsMatchCombine() {
    let numbers = [3, 1, 2, 2].publisher
    let mapped: Publishers.Sequence<[String], Never> = numbers.map { "\($0)" }
    let filtered: Publishers.Sequence<[Int], Never> = numbers.filter { $0 > 1 }
    let compact: Publishers.Sequence<[Int], Never> = numbers.compactMap { $0 > 2 ? $0 : nil }
    let scanned: Publishers.Sequence<[Int], Never> = numbers.scan(0, +)
    let unique: Publishers.Sequence<[Int], Never> = numbers.removeDuplicates()
    let failing: Publishers.Sequence<[Int], SurfaceError> = numbers.setFailureType(to: SurfaceError.self)
    #expect(mapped.sequence == ["3", "1", "2", "2"] && filtered.sequence == [3, 2, 2] && compact.sequence == [3])
    #expect(scanned.sequence == [3, 4, 6, 8] && unique.sequence == [3, 1, 2] && failing.sequence == numbers.sequence)
    let replacedNil: Publishers.Sequence<[Int?], Never> = [1, nil].publisher.replaceNil(with: 0)
    #expect(replacedNil.sequence == [1, 0])

    let dropped: Publishers.Sequence<DropFirstSequence<[Int]>, Never> = numbers.dropFirst(2)
    let droppedWhile: Publishers.Sequence<DropWhileSequence<[Int]>, Never> = numbers.drop { $0 > 2 }
    let prefixed: Publishers.Sequence<PrefixSequence<[Int]>, Never> = numbers.prefix(2)
    let prefixedWhile: Publishers.Sequence<[Int], Never> = numbers.prefix { $0 > 2 }
    #expect(Array(dropped.sequence) == [2, 2] && Array(droppedWhile.sequence) == [1, 2, 2])
    #expect(Array(prefixed.sequence) == [3, 1] && prefixedWhile.sequence == [3])

    let minimum: Optional<Int>.Publisher = numbers.min()
    let maximum: Optional<Int>.Publisher = numbers.max()
    let minimumBy: Optional<Int>.Publisher = numbers.min { $0 > $1 }
    let maximumBy: Optional<Int>.Publisher = numbers.max { $0 > $1 }
    let firstWhere: Optional<Int>.Publisher = numbers.first { $0 < 3 }
    let first: Optional<Int>.Publisher = numbers.first()
    let last: Optional<Int>.Publisher = numbers.last()
    let lastWhere: Optional<Int>.Publisher = numbers.last { $0 > 2 }
    let outputAt: Optional<Int>.Publisher = numbers.output(at: 1)
    #expect([minimum, maximum, minimumBy, maximumBy].map(\.output) == [1, 3, 3, 1])
    #expect([firstWhere, first, last, lastWhere, outputAt].map(\.output) == [1, 3, 2, 3, 1])
    let outputIn: Publishers.Sequence<[Int], Never> = numbers.output(in: 1..<3)
    let counted: Just<Int> = numbers.count()
    let countedFailing: Result<Int, SurfaceError>.Publisher = failing.count()
    #expect(outputIn.sequence == [1, 2] && counted == Just(4) && countedFailing == Result.Publisher(4))

    let all: Result<Bool, Never>.Publisher = numbers.allSatisfy { $0 > 0 }
    let tryAll: Result<Bool, any Error>.Publisher = numbers.tryAllSatisfy { $0 > 1 }
    let collected: Result<[Int], Never>.Publisher = numbers.collect()
    let contains: Result<Bool, Never>.Publisher = numbers.contains(2)
    let containsWhere: Result<Bool, Never>.Publisher = numbers.contains { $0 > 5 }
    let tryContains: Result<Bool, any Error>.Publisher = numbers.tryContains { $0 > 5 }
    let reduced: Result<Int, Never>.Publisher = numbers.reduce(0, +)
    let tryReduced: Result<Int, any Error>.Publisher = numbers.tryReduce(0, +)
    let ignored: Empty<Int, Never> = numbers.ignoreOutput()
    #expect(all == Result.Publisher(true) && collected == Result.Publisher([3, 1, 2, 2]))
    #expect(contains == Result.Publisher(true) && containsWhere == Result.Publisher(false) && ignored == Empty())
    #expect(reduced == Result.Publisher(8) && (try? tryReduced.result.get()) == 8)
    #expect((try? tryAll.result.get()) == false && (try? tryContains.result.get()) == false)

    let prepended: Publishers.Sequence<[Int], Never> = numbers.prepend(0)
    let prependedSequence: Publishers.Sequence<[Int], Never> = numbers.prepend(0...0)
    let prependedPublisher: Publishers.Sequence<[Int], Never> = numbers.prepend([0].publisher)
    let appended: Publishers.Sequence<[Int], Never> = numbers.append(9)
    let appendedSequence: Publishers.Sequence<[Int], Never> = numbers.append(9...9)
    let appendedPublisher: Publishers.Sequence<[Int], Never> = numbers.append([9].publisher)
    #expect(prepended == prependedSequence && prepended == prependedPublisher && prepended.sequence.first == 0)
    #expect(appended == appendedSequence && appended == appendedPublisher && appended.sequence.last == 9)
  }
}

import Conduit
import ConduitTesting
import Testing

// Operator behaviour pinned against Combine's: the one-to-one operators with a
// predicate or a throwing closure, the aggregates' `where` forms, handleEvents, tryCatch,
// Future, Record, and the specialised overloads of Just and Publishers.Sequence.
//
// Each test pins what Combine does and cites where that is recorded. OpenCombine's tests were
// run against Combine (`OPENCOMBINE_COMPATIBILITY_TEST`), so their expected histories are the
// oracle; paths below are in the OpenCombine/OpenCombine repository.

@Suite(.leakChecked)
struct CombineBehaviourParityTests {
  // MARK: - The subscription of the predicate operators
  //
  // In Combine, removeDuplicates, prefix(while:), drop(while:), output(in:), encode, decode and
  // the `try` forms of map, filter, compactMap, removeDuplicates, prefix(while:), drop(while:)
  // and scan hand the subscriber a subscription of their own. Once the stream has ended (cancel,
  // a throw, a failed predicate), that subscription swallows the subscriber's later `request` and
  // `cancel`. Conduit's do the same; each operator's suite pins it (`expectOwnSubscription` and
  // the checks beside it, Support/OwnSubscriptionChecks.swift).

  /// Plain `scan` passes the upstream subscription through in Combine too.
  /// Evidence: ScanTests.swift `testRange` (`.subscription("PassthroughSubject")`) and
  /// `testCancelAlreadyCancelled` (history `[.requested(.unlimited), .cancelled,
  /// .requested(.unlimited), .cancelled]`).
  @Test func scanPassesTheUpstreamSubscriptionThrough() {
    let upstream = RecordingUpstream<Int, Never>()
    let subscriber = RecordingSubscriber<Int, Never>(initialDemand: .unlimited)
    upstream.scan(0, +).subscribe(subscriber)
    subscriber.subscription?.cancel()
    subscriber.subscription?.request(.unlimited)
    subscriber.subscription?.cancel()
    #expect(upstream.events == [.requested(.unlimited), .cancelled, .requested(.unlimited), .cancelled])
    upstream.detach()
  }

  /// tryMap throwing: the stream fails with the thrown error, upstream is cancelled, the value
  /// answers `.none` and nothing more reaches the subscriber. (Matches.)
  /// Evidence: Tests/OpenCombineTests/PublisherTests/FilterTests.swift
  /// `testTryFilterCompletesWithErrorWhenThrown` (history `[.requested(.unlimited), .cancelled]`);
  /// Sources/OpenCombine/Publishers/Publishers.Map.swift (TryMap's Inner).
  @Test func tryMapThrowFailsAndCancelsUpstream() {
    let upstream = RecordingUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .unlimited)
    upstream
      .tryMap { value -> Int in
        if value == 5 { throw ParityError() }
        return value
      }
      .subscribe(subscriber)
    #expect(upstream.send(1) == .none)
    #expect(upstream.send(5) == .none)
    #expect(upstream.send(6) == .none)
    #expect(upstream.events == [.requested(.unlimited), .cancelled])
    #expect(subscriber.values == [1])
    #expect(failure(of: subscriber) is ParityError)
    upstream.detach()
  }

  // MARK: - first(where:)

  /// tryFirst(where:) holds the found value until demand, having cancelled upstream at once.
  /// (Matches.) Evidence: FirstTests.swift `testTryFirstWhereDemand`.
  @Test func tryFirstWhereCancelsAtOnceAndHoldsTheValue() {
    let upstream = RecordingUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .none)
    var calls = 0
    upstream
      .tryFirst { value in
        calls += 1
        return value > 1
      }
      .subscribe(subscriber)
    #expect(upstream.send(0) == .none)
    #expect(upstream.send(1) == .none)
    #expect(upstream.send(2) == .none)
    #expect(upstream.send(3) == .none)
    #expect(calls == 3)
    #expect(upstream.events == [.requested(.unlimited), .cancelled])
    #expect(subscriber.values.isEmpty)
    subscriber.request(.unlimited)
    #expect(subscriber.values == [2])
    #expect(subscriber.completion != nil)
    upstream.detach()
  }

  // MARK: - handleEvents

  /// `receiveRequest` sees each request the subscriber makes and each positive demand its
  /// `receive(_:)` returns (not `.none`), after the value has gone downstream. After a cancel,
  /// later requests and cancels are neither passed on nor reported. (Matches.)
  /// Evidence: Tests/OpenCombineTests/PublisherTests/HandleEventsTests.swift `testBasicBehavior`,
  /// `testCancelAlreadyCancelled`.
  @Test func handleEventsReportsRequestsAndReturnedDemand() {
    let upstream = RecordingUpstream<Int, Never>()
    var log: [String] = []
    let subscriber = RecordingSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: .max(5))
    upstream
      .handleEvents(
        receiveSubscription: { _ in log.append("subscription") },
        receiveOutput: { log.append("output \($0)") },
        receiveCompletion: { _ in log.append("completion") },
        receiveCancel: { log.append("cancel") },
        receiveRequest: { log.append("request \($0)") }
      )
      .subscribe(subscriber)
    #expect(subscriber.subscription.map { "\($0)" } == "HandleEvents")
    #expect(upstream.send(1) == .max(5))
    subscriber.subscription?.cancel()
    subscriber.subscription?.request(.max(1))
    subscriber.subscription?.cancel()
    #expect(upstream.events == [.requested(.max(2)), .cancelled])
    #expect(log == ["subscription", "request max(2)", "output 1", "request max(5)", "cancel"])
    upstream.detach()
  }

  // MARK: - tryCatch

  /// The handler throws: the stream fails with the thrown error; upstream, which has already
  /// failed, is not cancelled. (Matches.)
  /// Evidence: Tests/OpenCombineTests/PublisherTests/CatchTests.swift `testTryCatchHandlerThrows`.
  @Test func tryCatchHandlerThrowFailsWithTheThrownError() {
    let upstream = RecordingUpstream<Int, ParityError>()
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .unlimited)
    struct Thrown: Error {}
    upstream.tryCatch { _ -> Just<Int> in throw Thrown() }.subscribe(subscriber)
    #expect(upstream.send(1) == .none)
    upstream.send(completion: .failure(ParityError()))
    #expect(subscriber.values == [1])
    #expect(failure(of: subscriber) is Thrown)
    #expect(upstream.events == [.requested(.unlimited)])
    upstream.detach()
  }

  /// The replacement is asked for the demand left over: 12 + 5 requested, 8 delivered that each
  /// returned 3 more, so 12 + 5 + 24 - 8 = 33. (Matches.)
  /// Evidence: CatchTests.swift `testTryCatchPreservesDemand` (`errorHandlerSubscription.history
  /// == [.requested(.max(33))]`).
  @Test func tryCatchCarriesTheOutstandingDemandToTheReplacement() {
    let upstream = RecordingUpstream<Int, ParityError>()
    let replacement = RecordingUpstream<Int, any Error>()
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(12), demandPerValue: .max(3))
    upstream.tryCatch { _ in replacement }.subscribe(subscriber)
    subscriber.request(.max(5))
    for value in 1...8 { #expect(upstream.send(value) == .max(3)) }
    upstream.send(completion: .failure(ParityError()))
    #expect(upstream.events == [.requested(.max(12)), .requested(.max(5))])
    #expect(replacement.events == [.requested(.max(33))])
    subscriber.cancel()
    upstream.detach()
    replacement.detach()
  }

  // MARK: - Future

  /// A subscriber that comes after the promise was fulfilled gets the value as soon as it asks;
  /// without demand it waits; one that cancels before resolution hears nothing. (Matches.)
  /// Evidence: Tests/OpenCombineTests/PublisherTests/FutureTests.swift
  /// `testSubscribeAfterSuccessfulResolution`, `testWaitsForDemandSuccess`, `testCancellation`.
  @Test func futureAfterResolutionWaitsForDemand() {
    var promise: Future<Int, Never>.Promise?
    let future = Future<Int, Never> { promise = $0 }
    let cancelled = TestSubscriber<Int, Never>(initialDemand: .unlimited)
    future.subscribe(cancelled)
    cancelled.cancel()
    promise?(.success(42))
    promise = nil
    #expect(cancelled.events == [.subscription])

    let late = TestSubscriber<Int, Never>(initialDemand: .none)
    future.subscribe(late)
    #expect(late.events == [.subscription])
    late.request(.max(1))
    #expect(late.events == [.subscription, .value(42), .completion(.finished)])
  }

  // MARK: - Record

  /// An empty recording completes at once, without demand, through `Subscriptions.empty`.
  /// (Matches.) Evidence: Tests/OpenCombineTests/PublisherTests/RecordTests.swift
  /// `testEmptyRecord`, `testEmptyRecordFailed` (`.subscription("Empty")`).
  @Test func emptyRecordCompletesWithoutDemand() {
    let subscriber = RecordingSubscriber<Int, ParityError>(initialDemand: .none)
    Record<Int, ParityError> { $0.receive(completion: .failure(ParityError())) }.subscribe(subscriber)
    #expect(subscriber.subscription.map { "\($0)" } == "Empty")
    #expect(subscriber.history == ["subscription(Empty)", "failure(ParityError())"])

    var recording = Record<Int, ParityError> { _ in }.recording
    recording.receive(0)
    recording.receive(completion: .failure(ParityError()))
    #expect(recording.output == [0])
  }

  // MARK: - Specialised overloads

  /// Evidence: Apple's Combine interface (Just extensions; https://developer.apple.com/documentation/combine/just)
  /// and OpenCombine Sources/OpenCombine/Publishers/Just.swift. (Matches.)
  @Test func justOverloadsKeepCombinesTypesAndValues() {
    let mapped: Just<Int> = Just(1).map { $0 + 1 }
    #expect(mapped.output == 2)
    let counted: Just<Int> = Just("a").count()
    #expect(counted.output == 1)
    let smallest: Just<Int> = Just(3).min()
    #expect(smallest.output == 3)
    let unique: Just<Int> = Just(3).removeDuplicates()
    #expect(unique.output == 3)
    let none: Optional<Int>.Publisher = Just(3).prefix(0)
    #expect(none.output == nil)
    let one: Optional<Int>.Publisher = Just(3).prefix(1)
    #expect(one.output == 3)
    let dropped: Optional<Int>.Publisher = Just(3).dropFirst(1)
    #expect(dropped.output == nil)
    let kept: Optional<Int>.Publisher = Just(3).dropFirst(0)
    #expect(kept.output == 3)
    let scanned: Result<Int, Never>.Publisher = Just(3).scan(10, +)
    #expect(scanned.result == .success(13))
  }

  /// Evidence: OpenCombine Sources/OpenCombine/Publishers/Publishers.Sequence.swift (the eager
  /// overloads, mirroring Combine's interface). (Matches.)
  @Test func sequenceOverloadsKeepCombinesTypesAndValues() {
    let filtered: Publishers.Sequence<[Int], Never> = [1, 2, 3].publisher.filter { $0 > 1 }
    #expect(filtered.sequence == [2, 3])
    let counted: Just<Int> = [1, 2].publisher.count()
    #expect(counted.output == 2)
    let first: Optional<Int>.Publisher = [4, 5].publisher.first()
    #expect(first.output == 4)
    let outOfRange: Optional<Int>.Publisher = [4, 5].publisher.output(at: 7)
    #expect(outOfRange.output == nil)
    let prefixed: Publishers.Sequence<PrefixSequence<[Int]>, Never> = [1, 2, 3].publisher.prefix(2)
    #expect(Array(prefixed.sequence) == [1, 2])
    let smallest: Optional<Int>.Publisher = [3, 1, 2].publisher.min()
    #expect(smallest.output == 1)
    let noSmallest: Optional<Int>.Publisher = [Int]().publisher.min()
    #expect(noSmallest.output == nil)
    let unique: Publishers.Sequence<[Int], Never> = [1, 1, 2, 1].publisher.removeDuplicates()
    #expect(unique.sequence == [1, 2, 1])
  }
}

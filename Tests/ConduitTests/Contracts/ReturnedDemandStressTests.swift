import Conduit
import ConduitTesting
import Dispatch
import Foundation
import Synchronization
import Testing

private enum ReturnedDemandError: Error, Equatable {
  case failed
}

/// A subscriber that asks for one value at a time (1 when subscribed, `.max(1)` returned from
/// each value) and measures how far the stack moves between values: a pipeline that recurses
/// once per value shows a depth that grows with the number of values.
private final class DepthProbe<Input, Failure: Error>: Subscriber, @unchecked Sendable {
  // Touched only by the delivering thread (one thread: the probe runs synchronously).
  private var lowest: UInt = .max
  private var highest: UInt = 0
  private(set) var count = 0
  private(set) var completion: Subscribers.Completion<Failure>?
  private let stopAt: Int?
  private var subscription: (any Subscription)?

  init(stopAt: Int? = nil) { self.stopAt = stopAt }

  var depth: UInt { highest >= lowest ? highest - lowest : 0 }

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    subscription.request(.max(1))
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    var marker = 0
    let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
    lowest = min(lowest, address)
    highest = max(highest, address)
    count += 1
    if let stopAt, count >= stopAt {
      subscription?.cancel()
      subscription = nil
      return .none
    }
    return .max(1)
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    self.completion = completion
    subscription = nil
  }
}

/// Runs `body` on one thread with a large stack, so that a pipeline that recurses per value is
/// measured rather than crashing the test process.
private func onLargeStack(_ body: @escaping @Sendable () -> Void) {
  let scope = CensusScope.current
  let done = DispatchSemaphore(value: 0)
  let thread = Thread {
    CensusScope.$current.withValue(scope) { body() }
    done.signal()
  }
  thread.stackSize = 1 << 29
  thread.start()
  done.wait()
}

private final class CountBox: Sendable {
  let value = Atomic<Int>(-1)
}

private let probeCount = 20_000
/// Far more than a pipeline that does not recurse per value uses, far less than 20,000 levels.
private let depthLimit: UInt = 256 * 1024

/// The synchronous upstreams the probes run through each operator: every one of them meets
/// demand from inside `request`.
private func upstream(_ name: String) -> AnyPublisher<Int, Never> {
  let values = 0..<probeCount
  let erased = values.publisher.eraseToAnyPublisher()
  switch name {
  case "sequence": return values.publisher.eraseToAnyPublisher()
  case "deferred": return Deferred { values.publisher }.eraseToAnyPublisher()
  case "map": return erased.map { $0 }.eraseToAnyPublisher()
  case "record": return Record(output: Array(values), completion: .finished).eraseToAnyPublisher()
  case "append": return Just(-1).eraseToAnyPublisher().append(erased).eraseToAnyPublisher()
  case "bufferByRequest":
    return erased.buffer(size: 4, prefetch: .byRequest, whenFull: .dropNewest).eraseToAnyPublisher()
  case "bufferKeepFull":
    return erased.buffer(size: 4, prefetch: .keepFull, whenFull: .dropNewest).eraseToAnyPublisher()
  case "flatMapJust1": return erased.flatMap(maxPublishers: .max(1)) { Just($0) }.eraseToAnyPublisher()
  case "flatMapJust": return erased.flatMap { Just($0) }.eraseToAnyPublisher()
  case "flatMapSequence": return Just(0).flatMap { _ in values.publisher }.eraseToAnyPublisher()
  case "switchToLatestJust": return erased.map { Just($0) }.switchToLatest().eraseToAnyPublisher()
  case "switchToLatestSequence": return Just(erased).switchToLatest().eraseToAnyPublisher()
  case "merge": return erased.merge(with: Empty()).eraseToAnyPublisher()
  case "zip": return erased.zip(erased).map { $0.0 }.eraseToAnyPublisher()
  case "combineLatest": return Just(0).combineLatest(erased).map { $0.1 }.eraseToAnyPublisher()
  case "retry": return erased.retry(1).eraseToAnyPublisher()
  case "output": return erased.output(in: 0..<probeCount).eraseToAnyPublisher()
  case "dropFirst": return erased.dropFirst(1).eraseToAnyPublisher()
  case "collect1": return erased.collect(1).map { $0[0] }.eraseToAnyPublisher()
  case "shareReplay": return erased.share(replay: 1).eraseToAnyPublisher()
  case "combineLatestTwoSequences": return erased.combineLatest(erased).map { $0.0 }.eraseToAnyPublisher()
  case "switchToLatestSequences": return erased.map { [$0].publisher }.switchToLatest().eraseToAnyPublisher()
  case "pump":
    return HandDrivenUpstream<Int, Never>(pumping: 0..<probeCount, emitsOnRequest: true, finishes: true)
      .eraseToAnyPublisher()
  default: fatalError("unknown upstream \(name)")
  }
}

private let upstreamNames = [
  "sequence", "deferred", "map", "record", "append", "bufferByRequest", "bufferKeepFull", "flatMapJust1",
  "flatMapJust", "flatMapSequence", "switchToLatestJust", "switchToLatestSequence", "merge", "zip",
  "combineLatest", "retry", "output", "dropFirst", "collect1", "shareReplay", "pump",
  "combineLatestTwoSequences", "switchToLatestSequences",
]

/// Upstreams that drop values no demand covers.
private let lossy: Set<String> = [
  "switchToLatestJust", "shareReplay", "bufferByRequest", "dropFirst", "combineLatestTwoSequences",
  // Inner publishers that arrive while a zip has no demand are replaced before they send.
  "switchToLatestSequences",
]

/// Probes `pipeline` one value at a time; returns (values, depth, completed).
private func probe(_ pipeline: AnyPublisher<Int, Never>, stopAt: Int? = nil) -> (Int, UInt, Bool) {
  let result = Locked((0, UInt(0), false))
  let pipeline = pipeline
  onLargeStack {
    let probe = DepthProbe<Int, Never>(stopAt: stopAt)
    pipeline.subscribe(probe)
    result.withLock { $0 = (probe.count, probe.depth, probe.completion != nil) }
  }
  return result.withLock { $0 }
}

/// Demand a subscriber returns, asked for or returned upstream by `combineLatest`, `retry` and
/// `switchToLatest` (and `zip` for contrast): exact under races, and asked one value at a time
/// over synchronous upstreams without growing the stack.
@Suite(.leakChecked(timeout: .seconds(3)), .serialized)
struct ReturnedDemandStressTests {
  // MARK: Stack depth, one value at a time

  @Test(arguments: upstreamNames)
  func retryAskedOneValueAtATimeDoesNotRecurse(_ name: String) {
    let (count, depth, completed) = probe(upstream(name).retry(1).eraseToAnyPublisher())
    #expect(count >= probeCount || lossy.contains(name), "\(name): \(count) values")
    #expect(completed, "\(name)")
    #expect(depth < depthLimit, "\(name).retry(1): stack moved \(depth) bytes over \(count) values")
  }

  @Test(arguments: upstreamNames)
  func combineLatestSenderAskedOneValueAtATimeDoesNotRecurse(_ name: String) {
    let (count, depth, completed) = probe(
      Just(0).combineLatest(upstream(name)).map { $0.1 }.eraseToAnyPublisher())
    #expect(count >= probeCount || lossy.contains(name), "\(name): \(count) values")
    #expect(completed, "\(name)")
    #expect(depth < depthLimit, "combineLatest(\(name)): stack moved \(depth) bytes over \(count) values")
  }

  @Test(arguments: upstreamNames)
  func switchToLatestInnerAskedOneValueAtATimeDoesNotRecurse(_ name: String) {
    let (count, depth, completed) = probe(Just(upstream(name)).switchToLatest().eraseToAnyPublisher())
    #expect(count >= probeCount || lossy.contains(name), "\(name): \(count) values")
    #expect(completed, "\(name)")
    #expect(depth < depthLimit, "switchToLatest(\(name)): stack moved \(depth) bytes over \(count) values")
  }

  @Test(arguments: upstreamNames)
  func zipSenderAskedOneValueAtATimeDoesNotRecurse(_ name: String) {
    let (count, depth, completed) = probe(
      upstream(name).zip((0..<probeCount).publisher).map { $0.0 }.eraseToAnyPublisher())
    #expect(count >= probeCount || lossy.contains(name), "\(name): \(count) values")
    #expect(completed, "\(name)")
    #expect(depth < depthLimit, "zip(\(name)): stack moved \(depth) bytes over \(count) values")
  }

  /// An upstream that sends one value and fails, retried without limit, asked one value at a
  /// time: each retry must not add to the stack.
  @Test(arguments: ["record", "append", "deferredRecord", "flatMap"])
  func retryOfAValueThenAFailureAskedOneValueAtATimeDoesNotRecurse(_ kind: String) {
    let failing: AnyPublisher<Int, ReturnedDemandError> =
      switch kind {
      case "record": Record(output: [1], completion: .failure(ReturnedDemandError.failed)).eraseToAnyPublisher()
      case "append":
        Just(1).setFailureType(to: ReturnedDemandError.self).append(Fail(error: ReturnedDemandError.failed))
          .eraseToAnyPublisher()
      case "deferredRecord":
        Deferred { Record(output: [1], completion: .failure(ReturnedDemandError.failed)) }.eraseToAnyPublisher()
      default:
        Just(1).setFailureType(to: ReturnedDemandError.self).flatMap {
          Just($0).setFailureType(to: ReturnedDemandError.self).append(Fail(error: .failed))
        }
        .eraseToAnyPublisher()
      }
    let pipeline = Publishers.Retry(upstream: failing, retries: nil).eraseToAnyPublisher()
    let result = Locked((0, UInt(0)))
    onLargeStack {
      let probe = DepthProbe<Int, ReturnedDemandError>(stopAt: probeCount)
      pipeline.subscribe(probe)
      result.withLock { $0 = (probe.count, probe.depth) }
    }
    let (count, depth) = result.withLock { $0 }
    #expect(count == probeCount, "\(kind): \(count) values")
    #expect(depth < depthLimit, "\(kind).retry(): stack moved \(depth) bytes over \(count) values")
  }

  // MARK: Races: switchToLatest's fast path

  private static let rounds = 2_000

  /// The latest inner publisher delivers (its downstream answering `.max(1)` each time, so its
  /// demand comes back from `receive`) while the upstream switches to a new inner publisher.
  /// The new one must be asked for exactly what the subscriber has outstanding: it then sends
  /// every value, and is asked for 1 plus one per value, no more.
  @Test func switchToLatestFastPathRacingASwitchHandsOverExactlyTheOutstandingDemand() {
    typealias Round = (
      upstream: PassthroughSubject<HandDrivenUpstream<Int, Never>, Never>, first: HandDrivenUpstream<Int, Never>,
      second: HandDrivenUpstream<Int, Never>,
      subscriber: TestSubscriber<Int, Never>
    )
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (
          PassthroughSubject(), HandDrivenUpstream<Int, Never>(pumping: 0..<50, emitsOnRequest: false),
          HandDrivenUpstream<Int, Never>(pumping: 1_000..<1_020, emitsOnRequest: true),
          TestSubscriber(initialDemand: .max(1), demandPerValue: .max(1))
        )
        round.upstream.switchToLatest().subscribe(round.subscriber)
        round.upstream.send(round.first)
        return round
      },
      sides: [
        { $0.first.pump() },
        { $0.upstream.send($0.second) },
      ],
      check: { round in
        round.second.pump()
        let fromSecond = round.subscriber.values.filter { $0 >= 1_000 }
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        if fromSecond != Array(1_000..<1_020) { return "second sent \(fromSecond)" }
        if round.second.totalRequested != .max(21) { return "second asked for \(round.second.totalRequested)" }
        if !round.first.isCancelled { return "first not cancelled" }
        round.subscriber.cancel()
        return nil
      })
    #expect(problem == nil, "\(problem ?? "")")
  }

  /// The inner publisher delivers through the fast path while another thread requests one
  /// value at a time: the inner publisher is asked for 1, plus one per value, plus each request.
  @Test func switchToLatestFastPathRacingRequestsKeepsDemandExact() {
    typealias Round = (
      upstream: PassthroughSubject<HandDrivenUpstream<Int, Never>, Never>, source: HandDrivenUpstream<Int, Never>,
      subscriber: TestSubscriber<Int, Never>
    )
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (
          PassthroughSubject(), HandDrivenUpstream<Int, Never>(pumping: 0..<60, emitsOnRequest: false),
          TestSubscriber(initialDemand: .max(1), demandPerValue: .max(1))
        )
        round.upstream.switchToLatest().subscribe(round.subscriber)
        round.upstream.send(round.source)
        return round
      },
      sides: [
        { for _ in 0..<20 { $0.source.pump() } },
        { for _ in 0..<10 { $0.subscriber.request(.max(1)) } },
      ],
      check: { round in
        round.source.pump()
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        if round.subscriber.values != Array(0..<60) { return "values \(round.subscriber.values.count)" }
        if round.source.totalRequested != .max(1 + 60 + 10) { return "asked for \(round.source.totalRequested)" }
        round.subscriber.cancel()
        return nil
      })
    #expect(problem == nil, "\(problem ?? "")")
  }

  /// The fast path racing the subscriber's cancel: nothing after cancel, inner cancelled, freed.
  @Test func switchToLatestFastPathRacingCancel() {
    typealias Round = (
      upstream: PassthroughSubject<HandDrivenUpstream<Int, Never>, Never>, source: HandDrivenUpstream<Int, Never>,
      subscriber: TestSubscriber<Int, Never>,
      atCancel: CountBox
    )
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (
          PassthroughSubject(), HandDrivenUpstream<Int, Never>(pumping: 0..<1_000, emitsOnRequest: false),
          TestSubscriber(initialDemand: .max(1), demandPerValue: .max(1)), CountBox()
        )
        round.upstream.switchToLatest().subscribe(round.subscriber)
        round.upstream.send(round.source)
        return round
      },
      sides: [
        { $0.source.pump() },
        { round in
          round.subscriber.cancel()
          let count = round.subscriber.values.count
          round.atCancel.value.store(count, ordering: .releasing)
        },
      ],
      check: { round in
        round.source.pump()
        let atCancel = round.atCancel.value.load(ordering: .acquiring)
        let count = round.subscriber.values.count
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        if count > atCancel + 1 { return "\(count - atCancel) values after cancel returned" }
        if !round.source.isCancelled { return "inner not cancelled" }
        return nil
      })
    #expect(problem == nil, "\(problem ?? "")")
  }

  /// The fast path racing the upstream's failure: one failure, nothing after it.
  @Test func switchToLatestFastPathRacingUpstreamFailure() {
    typealias Round = (
      upstream: PassthroughSubject<AnyPublisher<Int, ReturnedDemandError>, ReturnedDemandError>,
      source: HandDrivenUpstream<Int, Never>,
      subscriber: TestSubscriber<Int, ReturnedDemandError>
    )
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (
          PassthroughSubject(), HandDrivenUpstream<Int, Never>(pumping: 0..<1_000, emitsOnRequest: false),
          TestSubscriber(initialDemand: .max(1), demandPerValue: .max(1))
        )
        round.upstream.switchToLatest().subscribe(round.subscriber)
        round.upstream.send(round.source.setFailureType(to: ReturnedDemandError.self).eraseToAnyPublisher())
        return round
      },
      sides: [
        { $0.source.pump() },
        { $0.upstream.send(completion: .failure(.failed)) },
      ],
      check: { round in
        let count = round.subscriber.values.count
        round.source.pump()
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        if round.subscriber.completion != .failure(.failed) {
          return "completion \(String(describing: round.subscriber.completion))"
        }
        if round.subscriber.values.count != count { return "values after failure" }
        if !round.source.isCancelled { return "inner not cancelled" }
        return nil
      })
    #expect(problem == nil, "\(problem ?? "")")
  }

  // MARK: Races: combineLatest asks every upstream, the sender included

  /// Two upstreams deliver on two threads while the subscriber answers `.max(1)` to each
  /// output: every upstream is asked for exactly 1 plus one per output.
  @Test func combineLatestTwoSendersOnTwoThreadsAreEachAskedOncePerOutput() {
    typealias Round = (
      first: HandDrivenUpstream<Int, Never>, second: HandDrivenUpstream<Int, Never>,
      subscriber: TestSubscriber<Int, Never>
    )
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (
          HandDrivenUpstream<Int, Never>(pumping: 0..<80, emitsOnRequest: false),
          HandDrivenUpstream<Int, Never>(pumping: 1_000..<1_080, emitsOnRequest: false),
          TestSubscriber(initialDemand: .max(1), demandPerValue: .max(1))
        )
        round.first.combineLatest(round.second).map { $0.0 + $0.1 }.subscribe(round.subscriber)
        return round
      },
      sides: [
        { for _ in 0..<5 { $0.first.pump() } },
        { for _ in 0..<5 { $0.second.pump() } },
      ],
      check: { round in
        for _ in 0..<5 {
          round.first.pump()
          round.second.pump()
        }
        let count = round.subscriber.values.count
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        let expected = Subscribers.Demand.max(1 + count)
        if round.first.totalRequested != expected || round.second.totalRequested != expected {
          return "\(count) outputs; first asked \(round.first.totalRequested), second \(round.second.totalRequested)"
        }
        if !round.first.isExhausted && !round.second.isExhausted { return "stalled after \(count) outputs" }
        round.subscriber.cancel()
        return nil
      })
    #expect(problem == nil, "\(problem ?? "")")
  }

  /// A sender that emits from inside `request` while a third thread requests one at a time.
  @Test func combineLatestSenderEmittingFromRequestWhileAnotherThreadRequests() {
    typealias Round = (
      first: HandDrivenUpstream<Int, Never>, second: HandDrivenUpstream<Int, Never>,
      subscriber: TestSubscriber<Int, Never>
    )
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (
          HandDrivenUpstream<Int, Never>(pumping: 0..<300, emitsOnRequest: true),
          HandDrivenUpstream<Int, Never>(pumping: 1_000..<1_300, emitsOnRequest: true),
          TestSubscriber(initialDemand: .max(1), demandPerValue: .none)
        )
        round.first.combineLatest(round.second).map { $0.0 + $0.1 }.subscribe(round.subscriber)
        return round
      },
      sides: [
        { round in for _ in 0..<10 { round.subscriber.request(.max(1)) } },
        { round in for _ in 0..<10 { round.subscriber.request(.max(1)) } },
      ],
      check: { round in
        let count = round.subscriber.values.count
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        if round.first.totalRequested != .max(21) || round.second.totalRequested != .max(21) {
          return "first asked \(round.first.totalRequested), second \(round.second.totalRequested)"
        }
        if count != 21 { return "\(count) outputs for 21 requested" }
        round.subscriber.cancel()
        return nil
      })
    #expect(problem == nil, "\(problem ?? "")")
  }

  // MARK: Races: retry requests returned demand

  /// The upstream delivers (the subscriber answering `.max(1)`) while another thread requests:
  /// the upstream is asked for exactly 1 plus one per value plus each request.
  @Test func retryReturnedDemandRacingRequestsKeepsDemandExact() {
    typealias Round = (source: HandDrivenUpstream<Int, Never>, subscriber: TestSubscriber<Int, Never>)
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (
          HandDrivenUpstream<Int, Never>(pumping: 0..<60, emitsOnRequest: false),
          TestSubscriber(initialDemand: .max(1), demandPerValue: .max(1))
        )
        round.source.retry(2).subscribe(round.subscriber)
        return round
      },
      sides: [
        { for _ in 0..<20 { $0.source.pump() } },
        { for _ in 0..<10 { $0.subscriber.request(.max(1)) } },
      ],
      check: { round in
        round.source.pump()
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        if round.subscriber.values != Array(0..<60) { return "values \(round.subscriber.values.count)" }
        if round.source.totalRequested != .max(1 + 60 + 10) { return "asked for \(round.source.totalRequested)" }
        round.subscriber.cancel()
        return nil
      })
    #expect(problem == nil, "\(problem ?? "")")
  }

  // MARK: Races: zip cancels the failed upstream too

  fileprivate typealias ZipRound = (
    first: PassthroughSubject<Int, ReturnedDemandError>, second: PassthroughSubject<Int, ReturnedDemandError>,
    subscriber: TestSubscriber<Int, ReturnedDemandError>
  )

  /// Races `sides` on the zip of two subjects, then runs `afterwards` and checks that exactly one
  /// failure reached the subscriber and nothing broke the contract; returns the first problem.
  private static func raceZipOfTwoSubjects(
    sides: [(ZipRound) -> Void], afterwards: @escaping (ZipRound) -> String? = { _ in nil }
  ) -> String? {
    race(
      rounds: rounds,
      setup: { () -> ZipRound in
        let round: ZipRound = (PassthroughSubject(), PassthroughSubject(), TestSubscriber(initialDemand: .unlimited))
        round.first.zip(round.second).map { $0.0 + $0.1 }.subscribe(round.subscriber)
        return round
      },
      sides: sides,
      check: { round in
        let found = afterwards(round)
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        if round.subscriber.completion != .failure(.failed) {
          return "completion \(String(describing: round.subscriber.completion))"
        }
        return found
      })
  }

  /// One upstream fails while the other sends: one failure, nothing after it, both cancelled
  /// or completed, and everything freed.
  @Test func zipFailureRacingTheOtherSender() {
    let problem = Self.raceZipOfTwoSubjects(
      sides: [
        { $0.first.send(completion: .failure(.failed)) },
        { round in for value in 0..<20 { round.second.send(value) } },
      ],
      afterwards: { round in
        round.first.send(1)
        round.second.send(1)
        return round.subscriber.values.isEmpty ? nil : "values \(round.subscriber.values)"
      })
    #expect(problem == nil, "\(problem ?? "")")
  }

  /// Both upstreams fail at once on two threads: exactly one failure reaches the subscriber.
  @Test func zipBothUpstreamsFailingOnTwoThreads() {
    let problem = Self.raceZipOfTwoSubjects(sides: [
      { $0.first.send(completion: .failure(.failed)) },
      { $0.second.send(completion: .failure(.failed)) },
    ])
    #expect(problem == nil, "\(problem ?? "")")
  }

  // MARK: zip cancels the failed upstream from inside its failure

  @Test(arguments: [
    "fail", "future", "subject", "currentValue", "record", "flatMap", "switchToLatest", "zip", "merge", "combineLatest",
    "share", "retry",
  ])
  func zipCancellingAnUpstreamFromInsideItsFailureEndsOnce(_ kind: String) {
    let subject = PassthroughSubject<Int, ReturnedDemandError>()
    let failing: AnyPublisher<Int, ReturnedDemandError>
    switch kind {
    case "fail": failing = Fail(error: ReturnedDemandError.failed).eraseToAnyPublisher()
    case "future": failing = Future { $0(.failure(ReturnedDemandError.failed)) }.eraseToAnyPublisher()
    case "subject", "currentValue", "share": failing = subject.eraseToAnyPublisher()
    case "record": failing = Record(output: [1], completion: .failure(ReturnedDemandError.failed)).eraseToAnyPublisher()
    case "flatMap":
      failing = Just(1).setFailureType(to: ReturnedDemandError.self).flatMap { _ in
        Fail<Int, ReturnedDemandError>(error: .failed)
      }.eraseToAnyPublisher()
    case "switchToLatest":
      failing = Just(Fail<Int, ReturnedDemandError>(error: .failed)).setFailureType(to: ReturnedDemandError.self)
        .switchToLatest().eraseToAnyPublisher()
    case "zip": failing = subject.zip(Fail<Int, ReturnedDemandError>(error: .failed)).map { $0.0 }.eraseToAnyPublisher()
    case "merge": failing = subject.merge(with: Fail<Int, ReturnedDemandError>(error: .failed)).eraseToAnyPublisher()
    case "combineLatest":
      failing = subject.combineLatest(Fail<Int, ReturnedDemandError>(error: .failed)).map { $0.0 }.eraseToAnyPublisher()
    case "retry": failing = Fail<Int, ReturnedDemandError>(error: .failed).retry(2).eraseToAnyPublisher()
    default: fatalError()
    }
    let current = CurrentValueSubject<Int, ReturnedDemandError>(0)
    let source: AnyPublisher<Int, ReturnedDemandError> =
      switch kind {
      case "currentValue": current.eraseToAnyPublisher()
      case "share": subject.share().eraseToAnyPublisher()
      default: failing
      }
    let other = PassthroughSubject<Int, ReturnedDemandError>()
    let subscriber = TestSubscriber<Int, ReturnedDemandError>(initialDemand: .max(1), demandPerValue: .max(1))
    source.zip(other).map { (pair: (Int, Int)) -> Int in pair.0 }.subscribe(subscriber)
    other.send(7)
    subject.send(completion: .failure(.failed))
    current.send(completion: .failure(.failed))
    other.send(8)
    #expect(subscriber.completion == .failure(.failed), "\(kind)")
    #expect(subscriber.violations.isEmpty, "\(kind): \(subscriber.violations)")
    #expect(subscriber.values.count <= 1, "\(kind)")
  }

  // MARK: Re-entrant switches

  /// The subscriber switches to a new inner publisher from inside `receive` and answers
  /// `.max(1)`: the demand it returns must reach the new inner publisher exactly once, and the
  /// new one sends all its values.
  @Test func switchToLatestSwitchFromInsideReceiveHandsTheReturnedDemandToTheNewInner() {
    let upstream = PassthroughSubject<HandDrivenUpstream<Int, Never>, Never>()
    // The first sends when pumped, not from inside the subject's send: a send from inside
    // that one would wait for it to return.
    let first = HandDrivenUpstream<Int, Never>(pumping: 0..<5, emitsOnRequest: false)
    let second = HandDrivenUpstream<Int, Never>(pumping: 100..<105, emitsOnRequest: true)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    subscriber.onValue { if $0 == 2 { upstream.send(second) } }
    upstream.switchToLatest().subscribe(subscriber)
    upstream.send(first)
    first.pump()
    #expect(subscriber.values == [0, 1, 2, 100, 101, 102, 103, 104])
    #expect(subscriber.violations.isEmpty)
    #expect(first.isCancelled)
    #expect(second.totalRequested == .max(6))
    subscriber.cancel()
  }

  /// As above, with the new inner publisher switched to on another thread while the first
  /// delivers through the fast path with the subscriber asking from inside `receive`.
  @Test func switchToLatestFastPathRacingASwitchWithReentrantRequests() {
    typealias Round = (
      upstream: PassthroughSubject<HandDrivenUpstream<Int, Never>, Never>, first: HandDrivenUpstream<Int, Never>,
      second: HandDrivenUpstream<Int, Never>,
      subscriber: StressSubscriber
    )
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (
          PassthroughSubject(),
          HandDrivenUpstream<Int, Never>(pumping: 0..<50, emitsOnRequest: true, sendsSubscription: false),
          HandDrivenUpstream<Int, Never>(pumping: 1_000..<1_020, emitsOnRequest: true),
          StressSubscriber(demand: .max(1), cancelAt: 1_000_000)
        )
        round.upstream.switchToLatest().subscribe(round.subscriber)
        round.upstream.send(round.first)
        return round
      },
      sides: [
        { $0.first.sendSubscription() },
        { $0.upstream.send($0.second) },
      ],
      check: { round in
        round.second.pump()
        let fromSecond = round.subscriber.values.filter { $0 >= 1_000 }
        if round.subscriber.overlaps > 0 { return "overlapping calls" }
        if fromSecond != Array(1_000..<1_020) { return "second sent \(fromSecond)" }
        if round.second.totalRequested != .max(21) { return "second asked for \(round.second.totalRequested)" }
        round.subscriber.cancelAndRecord()
        return nil
      })
    #expect(problem == nil, "\(problem ?? "")")
  }
}

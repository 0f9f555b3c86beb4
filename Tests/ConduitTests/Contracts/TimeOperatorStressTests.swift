import Conduit
import ConduitTesting
import Dispatch
import Foundation
import Synchronization
import Testing

/// The time operators on real `DispatchQueue`s, serial and concurrent, with intervals of tens
/// of microseconds, so that timers fire while several threads send, request, complete and
/// cancel. Each round checks the subscriber saw no contract violation (DESIGN.md §2): calls
/// that never overlap, no value beyond the demand, at most one completion, nothing after a
/// cancel has returned but the one event already on its way, and each sender's values in the
/// order sent wherever the operator keeps the upstream's order. CI runs this suite under
/// ThreadSanitizer (`swift test --sanitize=thread --filter Stress`).
///
/// Rounds wait for what is still on its way on the real clock with semaphores bounded by
/// `patience`, and for what is running on a queue with a barrier, never by sleeping.
@Suite(.leakChecked(timeout: .seconds(3)), .serialized)
struct TimeOperatorStressTests {
  private static let rounds = 300
  private static let senders = 3
  private static let valuesPerSender = 10

  // MARK: debounce

  @Test(arguments: StressQueueKind.allCases)
  func debounceDeliversTheLastOfValuesFromSeveralThreadsWhileItsTimerFires(_ kind: StressQueueKind) {
    let problem = raceOnQueue(
      kind, failing: Never.self, awaiting: finalValue,
      pipeline: { $0.debounce(for: .microseconds(50), scheduler: $1) },
      sides: senderSides(),
      check: { round in
        round.upstream.send(finalValue)
        guard round.witness.waitForArrival() else { return "the last value never came" }
        let values = round.witness.recorder.values
        if values.last != finalValue { return "the last value is not last: \(values)" }
        if Set(values).count != values.count { return "a value came twice: \(values)" }
        if !everySenderInOrder(values, consecutive: false) { return "out of order: \(values)" }
        return round.witness.problem
      })
    #expect(problem == nil)
  }

  @Test(arguments: StressQueueKind.allCases)
  func debounceDeliversNothingAfterACancelThatRacesItsTimer(_ kind: StressQueueKind) {
    let problem = raceOnQueue(
      kind, failing: Never.self, forbidden: { $0 == forbiddenValue },
      pipeline: { $0.debounce(for: .microseconds(50), scheduler: $1) },
      setup: { $0.upstream.send(stamp(0, 0)) },
      sides: [
        { round in for index in 1...5 { round.upstream.send(stamp(0, index)) } },
        { round in
          spin(nanoseconds: round.pause)
          round.witness.cancelAndRecord()
          round.upstream.send(forbiddenValue)
        },
      ],
      check: { round in
        round.queue.sync(flags: .barrier) {}
        return round.witness.problemAfterCancel
      })
    #expect(problem == nil)
  }

  @Test(arguments: StressQueueKind.allCases)
  func debounceCompletesOnceWhenTheUpstreamFinishesWhileItsTimerFires(_ kind: StressQueueKind) {
    let problem = raceOnQueue(
      kind, failing: Never.self,
      pipeline: { $0.debounce(for: .microseconds(50), scheduler: $1) },
      sides: [
        { round in for index in 0..<5 { round.upstream.send(stamp(0, index)) } },
        { round in
          spin(nanoseconds: round.pause)
          round.upstream.send(completion: .finished)
        },
      ],
      check: { round in
        guard round.witness.waitForArrival() else { return "no completion" }
        if round.witness.recorder.completion != .finished { return "no finish" }
        if !everySenderInOrder(round.witness.recorder.values, consecutive: false) {
          return "out of order: \(round.witness.recorder.values)"
        }
        return round.witness.problem
      })
    #expect(problem == nil)
  }

  // MARK: throttle

  @Test(arguments: StressQueueKind.allCases, [false, true])
  func throttleDeliversValuesFromSeveralThreadsInOrder(_ kind: StressQueueKind, latest: Bool) {
    let problem = raceOnQueue(
      kind, failing: Never.self,
      pipeline: { $0.throttle(for: .microseconds(100), scheduler: $1, latest: latest) },
      sides: senderSides(),
      check: { round in
        round.upstream.send(completion: .finished)
        guard round.witness.waitForArrival() else { return "no completion" }
        let values = round.witness.recorder.values
        if Set(values).count != values.count { return "a value came twice: \(values)" }
        if !everySenderInOrder(values, consecutive: false) { return "out of order: \(values)" }
        // The first value is never replaced, and with `latest` the last one always goes out.
        if !latest, let first = values.first, first % senderStride != 0 { return "not the first value: \(values)" }
        if latest, let last = values.last, last % senderStride != Self.valuesPerSender - 1 {
          return "not the latest value: \(values)"
        }
        if round.witness.recorder.completion != .finished { return "no finish" }
        return round.witness.problem
      })
    #expect(problem == nil)
  }

  @Test(arguments: StressQueueKind.allCases, [false, true])
  func throttleNeverExceedsDemandRequestedFromAnotherThread(_ kind: StressQueueKind, latest: Bool) {
    let requests = 5
    let problem = raceOnQueue(
      kind, failing: Never.self, demand: .max(1),
      pipeline: { $0.throttle(for: .microseconds(50), scheduler: $1, latest: latest) },
      sides: [
        { round in
          for index in 0..<40 {
            round.upstream.send(stamp(0, index))
            spin(nanoseconds: 2_000)
          }
        },
        { round in
          for _ in 0..<requests {
            spin(nanoseconds: round.pause)
            round.witness.recorder.request(.max(1))
          }
        },
      ],
      check: { round in
        round.upstream.send(completion: .finished)
        guard round.witness.waitForArrival() else { return "no completion" }
        let values = round.witness.recorder.values
        if values.count > requests + 1 { return "\(values.count) values for a demand of \(requests + 1)" }
        if !everySenderInOrder(values, consecutive: false) { return "out of order: \(values)" }
        return round.witness.problem
      })
    #expect(problem == nil)
  }

  @Test(arguments: StressQueueKind.allCases)
  func throttleDeliversNothingAfterACancelThatRacesAnEmission(_ kind: StressQueueKind) {
    let problem = raceOnQueue(
      kind, failing: Never.self, forbidden: { $0 == forbiddenValue },
      pipeline: { $0.throttle(for: .microseconds(50), scheduler: $1, latest: true) },
      sides: [
        { round in
          for index in 0..<20 {
            round.upstream.send(stamp(0, index))
            spin(nanoseconds: 1_000)
          }
        },
        { round in
          spin(nanoseconds: round.pause)
          round.witness.cancelAndRecord()
          round.upstream.send(forbiddenValue)
        },
      ],
      check: { round in
        round.queue.sync(flags: .barrier) {}
        return round.witness.problemAfterCancel
      })
    #expect(problem == nil)
  }

  // MARK: timeout

  @Test(arguments: StressQueueKind.allCases)
  func timeoutFailsOnceWhileValuesFromSeveralThreadsRaceItsTimer(_ kind: StressQueueKind) {
    let problem = raceOnQueue(
      kind, failing: Oops.self,
      pipeline: { $0.timeout(.microseconds(100), scheduler: $1, customError: { Oops() }) },
      sides: senderSides(),
      check: { round in
        guard round.witness.waitForArrival() else { return "no timeout" }
        if round.witness.recorder.completion != .failure(Oops()) { return "not the custom error" }
        // The timeout drops only what was still queued: each sender's first values went out.
        let values = round.witness.recorder.values
        if !everySenderInOrder(values, consecutive: true) { return "out of order or with a gap: \(values)" }
        return round.witness.problem
      })
    #expect(problem == nil)
  }

  @Test(arguments: StressQueueKind.allCases)
  func timeoutCompletesOnceWhenTheUpstreamFinishesWhileItsTimerFires(_ kind: StressQueueKind) {
    typealias Round = (
      upstream: PassthroughSubject<Int, Oops>, accepted: AcceptedCount, witness: TimeWitness<Int, Oops>, pause: Int
    )
    let queue = kind.makeQueue()
    var index = 0
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        index += 1
        let round: Round = (PassthroughSubject(), AcceptedCount(), TimeWitness(), pauseFor(index))
        let accepted = round.accepted
        round.upstream
          .handleEvents(receiveOutput: { _ in accepted.count.wrappingAdd(1, ordering: .relaxed) })
          .timeout(.microseconds(50), scheduler: queue, customError: { Oops() })
          .subscribe(round.witness)
        return round
      },
      sides: [
        { round in for index in 0..<5 { round.upstream.send(stamp(0, index)) } },
        { round in
          spin(nanoseconds: round.pause)
          round.upstream.send(completion: .finished)
        },
      ],
      check: { round in
        guard round.witness.waitForArrival() else { return "no completion" }
        let completion = round.witness.recorder.completion
        if completion != .finished && completion != .failure(Oops()) {
          return "completion \(String(describing: completion))"
        }
        let values = round.witness.recorder.values
        if !everySenderInOrder(values, consecutive: true) { return "out of order or with a gap: \(values)" }
        // A finish that won the race waits for every value that came before it.
        let accepted = round.accepted.count.load(ordering: .relaxed)
        if completion == .finished && values.count != accepted { return "finished after \(values) of \(accepted)" }
        let problem = round.witness.problem
        round.witness.recorder.cancel()
        return problem
      })
    queue.sync(flags: .barrier) {}
    #expect(problem == nil)
  }

  @Test(arguments: StressQueueKind.allCases)
  func timeoutDeliversNothingAfterACancelThatRacesItsTimer(_ kind: StressQueueKind) {
    let problem = raceOnQueue(
      kind, failing: Oops.self, forbidden: { $0 == forbiddenValue },
      pipeline: { $0.timeout(.microseconds(50), scheduler: $1, customError: { Oops() }) },
      sides: [
        { round in for index in 0..<10 { round.upstream.send(stamp(0, index)) } },
        { round in
          spin(nanoseconds: round.pause)
          round.witness.cancelAndRecord()
          round.upstream.send(forbiddenValue)
        },
      ],
      check: { round in
        round.queue.sync(flags: .barrier) {}
        return round.witness.problemAfterCancel
      })
    #expect(problem == nil)
  }

  @Test(arguments: StressQueueKind.allCases)
  func timeoutPassesRequestsFromAnotherThreadWithoutExceedingDemand(_ kind: StressQueueKind) {
    let requests = 10
    let problem = raceOnQueue(
      kind, failing: Oops.self, demand: .max(1),
      pipeline: { $0.timeout(.milliseconds(50), scheduler: $1, customError: { Oops() }) },
      sides: [
        { round in for index in 0..<40 { round.upstream.send(stamp(0, index)) } },
        { round in for _ in 0..<requests { round.witness.recorder.request(.max(1)) } },
      ],
      check: { round in
        round.upstream.send(completion: .finished)
        guard round.witness.waitForArrival() else { return "no completion" }
        let values = round.witness.recorder.values
        if values.count > requests + 1 { return "\(values.count) values for a demand of \(requests + 1)" }
        if !everySenderInOrder(values, consecutive: false) { return "out of order: \(values)" }
        return round.witness.problem
      })
    #expect(problem == nil)
  }

  // MARK: delay, receive(on:)

  @Test(arguments: StressQueueKind.allCases, [false, true])
  func delayAndReceiveOnDeliverEveryValueFromSeveralThreadsInOrder(_ kind: StressQueueKind, delayed: Bool) {
    let problem = raceOnQueue(
      kind, failing: Never.self,
      pipeline: { upstream, queue in
        delayed
          ? upstream.delay(for: .microseconds(50), scheduler: queue).eraseToAnyPublisher()
          : upstream.receive(on: queue).eraseToAnyPublisher()
      },
      sides: senderSides(),
      check: { round in
        round.upstream.send(completion: .finished)
        guard round.witness.waitForArrival() else { return "no completion" }
        let values = round.witness.recorder.values
        if values.count != Self.senders * Self.valuesPerSender { return "\(values.count) values" }
        if !everySenderInOrder(values, consecutive: true) { return "out of order: \(values)" }
        if round.witness.recorder.completion != .finished { return "no finish" }
        return round.witness.problem
      })
    #expect(problem == nil)
  }

  @Test(arguments: StressQueueKind.allCases, [false, true])
  func delayAndReceiveOnDeliverNothingAfterACancelThatRacesDeliveries(_ kind: StressQueueKind, delayed: Bool) {
    let problem = raceOnQueue(
      kind, failing: Never.self, forbidden: { $0 == forbiddenValue },
      pipeline: { upstream, queue in
        delayed
          ? upstream.delay(for: .microseconds(50), scheduler: queue).eraseToAnyPublisher()
          : upstream.receive(on: queue).eraseToAnyPublisher()
      },
      sides: [
        { round in for index in 0..<20 { round.upstream.send(stamp(0, index)) } },
        { round in
          spin(nanoseconds: round.pause)
          round.witness.cancelAndRecord()
          round.upstream.send(forbiddenValue)
        },
      ],
      check: { round in
        round.queue.sync(flags: .barrier) {}
        return round.witness.problemAfterCancel
      })
    #expect(problem == nil)
  }

  @Test(arguments: StressQueueKind.allCases, [false, true])
  func delayAndReceiveOnNeverExceedDemandRequestedFromAnotherThread(_ kind: StressQueueKind, delayed: Bool) {
    let requests = 10
    let problem = raceOnQueue(
      kind, failing: Never.self, demand: .none,
      pipeline: { upstream, queue in
        delayed
          ? upstream.delay(for: .microseconds(50), scheduler: queue).eraseToAnyPublisher()
          : upstream.receive(on: queue).eraseToAnyPublisher()
      },
      sides: [
        { round in for index in 0..<40 { round.upstream.send(stamp(0, index)) } },
        { round in for _ in 0..<requests { round.witness.recorder.request(.max(1)) } },
      ],
      check: { round in
        round.upstream.send(completion: .finished)
        guard round.witness.waitForArrival() else { return "no completion" }
        let values = round.witness.recorder.values
        if values.count > requests { return "\(values.count) values for a demand of \(requests)" }
        if !everySenderInOrder(values, consecutive: false) { return "out of order: \(values)" }
        return round.witness.problem
      })
    #expect(problem == nil)
  }

  // MARK: subscribe(on:)

  @Test(arguments: StressQueueKind.allCases)
  func subscribeOnDeliversASequenceInOrderForRequestsFromTwoThreads(_ kind: StressQueueKind) {
    let count = 40
    let queue = kind.makeQueue()
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> TimeWitness<Int, Never> in
        let witness = TimeWitness<Int, Never>(initialDemand: .none, awaiting: count - 1)
        (0..<count).publisher.subscribe(on: queue).subscribe(witness)
        // The subscription comes down on the queue; requests made before it would be lost.
        spin { witness.recorder.subscription != nil }
        return witness
      },
      sides: Array(
        repeating: { (witness: TimeWitness<Int, Never>) in
          for _ in 0..<count / 2 { witness.recorder.request(.max(1)) }
        }, count: 2),
      check: { witness in
        guard witness.waitForArrival() else { return "the last value never came" }
        if witness.recorder.values != Array(0..<count) { return "values \(witness.recorder.values)" }
        let problem = witness.problem
        witness.recorder.cancel()
        return problem
      })
    queue.sync(flags: .barrier) {}
    #expect(problem == nil)
  }

  @Test(arguments: StressQueueKind.allCases)
  func subscribeOnDeliversNothingAfterACancelThatRacesDeliveries(_ kind: StressQueueKind) {
    let queue = kind.makeQueue()
    var index = 0
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> (witness: TimeWitness<Int, Never>, pause: Int) in
        index += 1
        let witness = TimeWitness<Int, Never>(initialDemand: .max(200))
        (0..<1_000).publisher.subscribe(on: queue).subscribe(witness)
        spin { witness.recorder.subscription != nil }
        return (witness, pauseFor(index))
      },
      sides: [
        { round in
          spin(nanoseconds: round.pause)
          round.witness.cancelAndRecord()
        }
      ],
      check: { round in
        queue.sync(flags: .barrier) {}
        return round.witness.problemAfterCancel
      })
    #expect(problem == nil)
  }

  // On a concurrent queue, the request the subscriber makes from inside `receive(subscription:)`
  // may run on another thread at once; the values it releases must still wait until that call
  // returns. Whether Dispatch starts a second thread in time depends on its pool, so the same
  // round also runs on a scheduler that gives every action a thread of its own.
  @Test(arguments: [false, true])
  func subscribeOnOnAConcurrentSchedulerCallsNothingWhileTheSubscriberTakesItsSubscription(threadPerAction: Bool) {
    let queue = StressQueueKind.concurrent.makeQueue()
    for _ in 0..<100 {
      let witness = HandDownWitness()
      if threadPerAction {
        (0..<10).publisher.subscribe(on: ThreadPerActionScheduler()).subscribe(witness)
      } else {
        (0..<10).publisher.subscribe(on: queue).subscribe(witness)
      }
      guard witness.finished.wait(timeout: .now() + 10) == .success else {
        Issue.record("the sequence never finished")
        break
      }
      if witness.overlapped.load(ordering: .acquiring) {
        Issue.record("a value or the completion came while the subscriber was inside receive(subscription:)")
        break
      }
      #expect(witness.count.load(ordering: .acquiring) == 10)
    }
    queue.sync(flags: .barrier) {}
  }

  // MARK: measureInterval

  @Test(arguments: StressQueueKind.allCases)
  func measureIntervalMeasuresValuesFromSeveralThreadsWithoutOverlap(_ kind: StressQueueKind) {
    typealias IntervalRound = (
      upstream: PassthroughSubject<Int, Never>, witness: TimeWitness<DispatchQueue.SchedulerTimeType.Stride, Never>
    )
    let queue = kind.makeQueue()
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> IntervalRound in
        let round: IntervalRound = (PassthroughSubject(), TimeWitness())
        round.upstream.measureInterval(using: queue).subscribe(round.witness)
        return round
      },
      sides: Array(
        repeating: { (round: IntervalRound) in
          for index in 0..<Self.valuesPerSender { round.upstream.send(index) }
        }, count: Self.senders),
      check: { round in
        round.upstream.send(completion: .finished)
        let intervals = round.witness.recorder.values
        if intervals.count != Self.senders * Self.valuesPerSender { return "\(intervals.count) intervals" }
        if intervals.contains(where: { $0 < .zero }) { return "a negative interval: \(intervals)" }
        if round.witness.recorder.completion != .finished { return "no finish" }
        return round.witness.problem
      })
    #expect(problem == nil)
  }

  // MARK: collect by time

  @Test(arguments: StressQueueKind.allCases, [nil, 4])
  func collectByTimeGroupsValuesFromSeveralThreadsInOrderWhileItsTimerFires(_ kind: StressQueueKind, count: Int?) {
    let problem = raceOnQueue(
      kind, failing: Never.self,
      pipeline: { upstream, queue in
        let strategy: Publishers.TimeGroupingStrategy<DispatchQueue> =
          if let count { .byTimeOrCount(queue, .microseconds(100), count) } else { .byTime(queue, .microseconds(100)) }
        return upstream.collect(strategy, options: nil)
      },
      sides: senderSides(),
      check: { round in
        round.upstream.send(completion: .finished)
        guard round.witness.waitForArrival() else { return "no completion" }
        let groups = round.witness.recorder.values
        if groups.contains(where: \.isEmpty) { return "an empty group: \(groups)" }
        if let count, groups.contains(where: { $0.count > count }) { return "a group over \(count): \(groups)" }
        let values = groups.flatMap { $0 }
        if values.count != Self.senders * Self.valuesPerSender { return "\(values.count) values" }
        if !everySenderInOrder(values, consecutive: true) { return "out of order: \(groups)" }
        return round.witness.problem
      })
    #expect(problem == nil)
  }

  @Test(arguments: StressQueueKind.allCases)
  func collectByTimeKeepsEveryGroupForDemandRequestedFromAnotherThread(_ kind: StressQueueKind) {
    let requests = 5
    let problem = raceOnQueue(
      kind, failing: Never.self, demand: .max(1),
      pipeline: { $0.collect(.byTime($1, .microseconds(50)), options: nil) },
      sides: [
        { round in
          for index in 0..<40 {
            round.upstream.send(stamp(0, index))
            spin(nanoseconds: 1_000)
          }
        },
        { round in
          for _ in 0..<requests {
            spin(nanoseconds: round.pause)
            round.witness.recorder.request(.max(1))
          }
        },
      ],
      check: { round in
        let delivered = round.witness.recorder.values.count
        if delivered > requests + 1 { return "\(delivered) groups for a demand of \(requests + 1)" }
        if let problem = round.witness.problem { return problem }
        // Groups without demand wait; none is lost.
        round.witness.recorder.request(.unlimited)
        round.upstream.send(completion: .finished)
        guard round.witness.waitForArrival() else { return "no completion" }
        let values = round.witness.recorder.values.flatMap { $0 }
        if values != (0..<40).map({ stamp(0, $0) }) { return "values \(values)" }
        return round.witness.problem
      })
    #expect(problem == nil)
  }

  @Test(arguments: StressQueueKind.allCases)
  func collectByTimeCompletesOnceWhenTheUpstreamFinishesWhileItsTimerFires(_ kind: StressQueueKind) {
    let problem = raceOnQueue(
      kind, failing: Never.self,
      pipeline: { $0.collect(.byTime($1, .microseconds(50)), options: nil) },
      sides: [
        { round in for index in 0..<Self.valuesPerSender { round.upstream.send(stamp(0, index)) } },
        { round in for index in 0..<Self.valuesPerSender { round.upstream.send(stamp(1, index)) } },
        { round in
          spin(nanoseconds: round.pause)
          round.upstream.send(completion: .finished)
        },
      ],
      check: { round in
        guard round.witness.waitForArrival() else { return "no completion" }
        // Values sent after the finish are ignored; each sender's values before it all arrive.
        let values = round.witness.recorder.values.flatMap { $0 }
        if !everySenderInOrder(values, consecutive: true) { return "out of order or with a gap: \(values)" }
        if round.witness.recorder.completion != .finished { return "no finish" }
        return round.witness.problem
      })
    #expect(problem == nil)
  }

  @Test(arguments: StressQueueKind.allCases)
  func collectByTimeDeliversNothingAfterACancelThatRacesItsTimer(_ kind: StressQueueKind) {
    let problem = raceOnQueue(
      kind, failing: Never.self, forbidden: { $0.contains(forbiddenValue) },
      pipeline: { $0.collect(.byTime($1, .microseconds(50)), options: nil) },
      sides: [
        { round in
          for index in 0..<20 {
            round.upstream.send(stamp(0, index))
            spin(nanoseconds: 1_000)
          }
        },
        { round in
          spin(nanoseconds: round.pause)
          round.witness.cancelAndRecord()
          round.upstream.send(forbiddenValue)
        },
      ],
      check: { round in
        round.queue.sync(flags: .barrier) {}
        return round.witness.problemAfterCancel
      })
    #expect(problem == nil)
  }

  // MARK: Helpers

  /// Sides that each send `valuesPerSender` values, stamped with their sender.
  private func senderSides<Input: Equatable, Failure: Error>() -> [(TimeStressRound<Input, Failure>) -> Void] {
    (0..<Self.senders).map { sender in
      { round in for index in 0..<Self.valuesPerSender { round.upstream.send(stamp(sender, index)) } }
    }
  }

  /// Races `sides` over a fresh pipeline on one queue of `kind` per round; `setup` runs on
  /// each round once it is subscribed. The queue is drained before the test ends, so that its
  /// leak check sees what the last round left on it.
  private func raceOnQueue<Input: Equatable, Failure: Error, Output: Publisher>(
    _ kind: StressQueueKind, failing _: Failure.Type, demand: Subscribers.Demand = .unlimited, awaiting: Input? = nil,
    forbidden: ((Input) -> Bool)? = nil,
    pipeline: @escaping (PassthroughSubject<Int, Failure>, DispatchQueue) -> Output,
    setup: @escaping (TimeStressRound<Input, Failure>) -> Void = { _ in },
    sides: [(TimeStressRound<Input, Failure>) -> Void], check: @escaping (TimeStressRound<Input, Failure>) -> String?
  ) -> String? where Output.Output == Input, Output.Failure == Failure {
    let queue = kind.makeQueue()
    var index = 0
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> TimeStressRound<Input, Failure> in
        index += 1
        let round = TimeStressRound(
          upstream: PassthroughSubject<Int, Failure>(),
          witness: TimeWitness<Input, Failure>(initialDemand: demand, awaiting: awaiting, forbidden: forbidden),
          queue: queue, pause: pauseFor(index))
        pipeline(round.upstream, queue).subscribe(round.witness)
        setup(round)
        return round
      },
      sides: sides,
      check: { round in
        let problem = check(round)
        round.witness.recorder.cancel()
        return problem
      })
    queue.sync(flags: .barrier) {}
    return problem
  }
}

/// How many values reached the operator under test.
final class AcceptedCount: Sendable {
  let count = Atomic<Int>(0)
}

/// A serial or a concurrent queue of the test's own (a barrier drains either).
enum StressQueueKind: CaseIterable, Sendable {
  case serial
  case concurrent

  func makeQueue() -> DispatchQueue {
    switch self {
    case .serial: DispatchQueue(label: "TimeOperatorStressTests.serial")
    case .concurrent: DispatchQueue(label: "TimeOperatorStressTests.concurrent", attributes: .concurrent)
    }
  }
}

/// One round of `raceOnQueue`: the upstream the sides send to, the subscriber, the queue, and
/// how long, in nanoseconds, a side that races a timer waits before it acts.
struct TimeStressRound<Input: Equatable, Failure: Error> {
  let upstream: PassthroughSubject<Int, Failure>
  let witness: TimeWitness<Input, Failure>
  let queue: DispatchQueue
  let pause: Int
}

/// Wraps a `TestSubscriber`, which checks the contract, so that a round can wait on the real
/// clock for an awaited value or the completion, and check what came after a cancel.
final class TimeWitness<Input: Equatable, Failure: Error>: Subscriber, @unchecked Sendable {
  let recorder: TestSubscriber<Input, Failure>
  private let awaited: Input?
  private let forbidden: ((Input) -> Bool)?
  private let arrived = DispatchSemaphore(value: 0)
  private let forbiddenSeen = Atomic<Bool>(false)
  private let eventsAtCancel = Atomic<Int>(-1)

  init(
    initialDemand: Subscribers.Demand = .unlimited, demandPerValue: Subscribers.Demand = .none, awaiting: Input? = nil,
    forbidden: ((Input) -> Bool)? = nil
  ) {
    recorder = TestSubscriber(initialDemand: initialDemand, demandPerValue: demandPerValue)
    awaited = awaiting
    self.forbidden = forbidden
  }

  func receive(subscription: any Subscription) {
    recorder.receive(subscription: subscription)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    if forbidden?(input) == true { forbiddenSeen.store(true, ordering: .relaxed) }
    let more = recorder.receive(input)
    if input == awaited { arrived.signal() }
    return more
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    recorder.receive(completion: completion)
    arrived.signal()
  }

  /// Waits, with a generous bound for a loaded machine, for the awaited value or the completion.
  func waitForArrival() -> Bool {
    arrived.wait(timeout: .now() + patience) == .success
  }

  /// Cancels, then notes how many events had arrived by the time `cancel` returned. When two
  /// threads cancel at once, the one that finds the subscription already taken returns before
  /// the other's cancel has reached the publisher, so the later of the two notes counts.
  func cancelAndRecord() {
    recorder.cancel()
    eventsAtCancel.max(recorder.events.count, ordering: .relaxed)
  }

  /// The contract violations seen, if any.
  var problem: String? {
    let violations = recorder.violations
    return violations.isEmpty ? nil : "\(violations)"
  }

  /// What broke the contract after `cancelAndRecord()`: one event may have been on its way in
  /// when `cancel` returned, nothing after it, and never a value sent after the cancel.
  var problemAfterCancel: String? {
    if let problem { return problem }
    if forbiddenSeen.load(ordering: .relaxed) { return "a value sent after the cancel arrived" }
    let atCancel = eventsAtCancel.load(ordering: .relaxed)
    if atCancel >= 0 && recorder.events.count > atCancel + 1 {
      return "\(recorder.events.count - atCancel) events after the cancel"
    }
    return nil
  }
}

/// How long a round waits for what is on its way on the real clock.
private let patience = DispatchTimeInterval.seconds(5)

/// Sent last, and awaited.
private let finalValue = -1

/// Sent right after a cancel returned: it must never arrive.
private let forbiddenValue = -2

/// How long a racing side waits in round `index`: from nothing to about the timers' interval,
/// so that its action lands before, during and after a timer firing.
private func pauseFor(_ index: Int) -> Int { (index % 25) * 4_000 }

/// Spins for `nanoseconds` on the real clock: short enough to spin rather than sleep.
private func spin(nanoseconds: Int) {
  let end = DispatchTime.now().uptimeNanoseconds + UInt64(nanoseconds)
  while DispatchTime.now().uptimeNanoseconds < end {}
}

/// A subscriber that lingers inside `receive(subscription:)` after requesting, and records
/// whether anything reached it before that call returned.
private final class HandDownWitness: Subscriber, Sendable {
  typealias Input = Int
  typealias Failure = Never

  let inside = Atomic(false)
  let overlapped = Atomic(false)
  let count = Atomic(0)
  let finished = DispatchSemaphore(value: 0)

  func receive(subscription: any Subscription) {
    inside.store(true, ordering: .releasing)
    subscription.request(.unlimited)
    // Lingers until a value arrives (which it must not) or a millisecond has passed.
    let end = DispatchTime.now().uptimeNanoseconds + 1_000_000
    while count.load(ordering: .acquiring) == 0, DispatchTime.now().uptimeNanoseconds < end {}
    inside.store(false, ordering: .releasing)
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    if inside.load(ordering: .acquiring) { overlapped.store(true, ordering: .releasing) }
    count.add(1, ordering: .acquiringAndReleasing)
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    if inside.load(ordering: .acquiring) { overlapped.store(true, ordering: .releasing) }
    finished.signal()
  }
}

/// Runs each action at once on a new thread: the most a concurrent queue may do.
private struct ThreadPerActionScheduler: Scheduler, Sendable {
  typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType
  typealias SchedulerOptions = DispatchQueue.SchedulerOptions

  var now: SchedulerTimeType { DispatchQueue.main.now }
  var minimumTolerance: SchedulerTimeType.Stride { .zero }

  func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    // The thread is the action's only caller.
    nonisolated(unsafe) let action = action
    Thread { action() }.start()
  }

  func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) {
    preconditionFailure("ThreadPerActionScheduler runs only immediate actions")
  }

  func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?, _ action: @escaping () -> Void
  ) -> any Cancellable {
    preconditionFailure("ThreadPerActionScheduler runs only immediate actions")
  }
}

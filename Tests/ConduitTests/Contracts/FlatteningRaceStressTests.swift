import Conduit
import ConduitTesting
import Dispatch
import Synchronization
import Testing

private enum RaceError: Error, Equatable {
  case failed
}

/// How many of an inner publisher's values were answered with more demand.
private final class ReturnedDemandCount: Sendable {
  let count = Atomic<Int>(0)
}

/// Races between the upstream, inner publishers, the subscriber's requests and cancels of
/// flatMap, switchToLatest, `Future`, retry, catch, buffer, append and
/// prefix(untilOutputFrom:) (on its value path). Each round checks the subscriber saw no contract
/// violation.
@Suite(.leakChecked(timeout: .seconds(3)), .serialized)
struct FlatteningRaceStressTests {
  private static let rounds = 2_000

  @Test func switchToLatestCompletesOnceWhenTheUpstreamAndTheLatestInnerFinishOnTwoThreads() {
    typealias Round = (
      upstream: PassthroughSubject<HandDrivenUpstream<Int, Never>, Never>, inner: HandDrivenUpstream<Int, Never>,
      subscriber: TestSubscriber<Int, Never>
    )
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (PassthroughSubject(), HandDrivenUpstream(), TestSubscriber())
        round.upstream.switchToLatest().subscribe(round.subscriber)
        round.upstream.send(round.inner)
        return round
      },
      sides: [
        { $0.upstream.send(completion: .finished) },
        { $0.inner.send(completion: .finished) },
      ],
      check: { round in
        if round.subscriber.completion != .finished { return "no completion" }
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        return nil
      })
    #expect(problem == nil)
  }

  @Test func flatMapCompletesOnceWhenTheUpstreamAndTheLastInnerFinishOnTwoThreads() {
    typealias Round = (
      upstream: PassthroughSubject<Int, Never>, inner: HandDrivenUpstream<Int, Never>,
      subscriber: TestSubscriber<Int, Never>
    )
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (PassthroughSubject(), HandDrivenUpstream(), TestSubscriber())
        let inner = round.inner
        round.upstream.flatMap(maxPublishers: .max(1)) { _ in inner }.subscribe(round.subscriber)
        round.upstream.send(0)
        return round
      },
      sides: [
        { $0.upstream.send(completion: .finished) },
        { $0.inner.send(completion: .finished) },
      ],
      check: { round in
        if round.subscriber.completion != .finished { return "no completion" }
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        return nil
      })
    #expect(problem == nil)
  }

  @Test func flatMapScalarValueWaitingForDemandWhileTheUpstreamFinishes() {
    typealias Round = (upstream: PassthroughSubject<Int, Never>, subscriber: TestSubscriber<Int, Never>)
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (PassthroughSubject(), TestSubscriber(initialDemand: .none))
        round.upstream.flatMap { Just($0) }.subscribe(round.subscriber)
        round.upstream.send(1)
        round.upstream.send(2)
        return round
      },
      sides: [
        { $0.upstream.send(completion: .finished) },
        { $0.subscriber.request(.max(1)) },
        { $0.subscriber.request(.max(1)) },
      ],
      check: { round in
        if round.subscriber.values.sorted() != [1, 2] { return "values \(round.subscriber.values)" }
        if round.subscriber.completion != .finished { return "no completion" }
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        return nil
      })
    #expect(problem == nil)
  }

  @Test func switchToLatestScalarSwitchWhileDemandArrives() {
    typealias Round = (upstream: PassthroughSubject<Int, Never>, subscriber: TestSubscriber<Int, Never>)
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (PassthroughSubject(), TestSubscriber(initialDemand: .none))
        round.upstream.map { Just($0) }.switchToLatest().subscribe(round.subscriber)
        round.upstream.send(1)
        return round
      },
      sides: [
        { round in
          round.upstream.send(2)
          round.upstream.send(completion: .finished)
        },
        { $0.subscriber.request(.max(1)) },
        { $0.subscriber.request(.max(1)) },
      ],
      check: { round in
        let values = round.subscriber.values
        // 1 may be delivered or replaced by 2; 2 always arrives, last.
        if values != [2] && values != [1, 2] { return "values \(values)" }
        if round.subscriber.completion != .finished { return "no completion" }
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        return nil
      })
    #expect(problem == nil)
  }

  @Test func flatMapInnerFailureRacingValuesOfAnotherInner() {
    typealias Round = (
      upstream: PassthroughSubject<Int, RaceError>, inners: [HandDrivenUpstream<Int, RaceError>],
      subscriber: TestSubscriber<Int, RaceError>
    )
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (PassthroughSubject(), [HandDrivenUpstream(), HandDrivenUpstream()], TestSubscriber())
        let inners = round.inners
        round.upstream.flatMap { inners[$0] }.subscribe(round.subscriber)
        round.upstream.send(0)
        round.upstream.send(1)
        return round
      },
      sides: [
        { $0.inners[0].send(completion: .failure(.failed)) },
        { round in for value in 0..<5 { round.inners[1].send(value) } },
      ],
      check: { round in
        if round.subscriber.completion != .failure(.failed) { return "no failure" }
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        if round.inners[1].isActive == true { return "the other inner is still subscribed" }
        return nil
      })
    #expect(problem == nil)
  }

  /// Two inner publishers send on two threads, each only what it was granted, against a finite
  /// demand that covers every value: a value that arrives while the other thread is inside the
  /// subscriber's `receive(_:)` takes its demand at once and answers `.max(1)`; one that
  /// arrives otherwise waits and its inner is asked again once it is delivered. Either way each
  /// inner is granted exactly one more value per value delivered, every value arrives once, in
  /// its inner's order, and calls into the subscriber never overlap or exceed its demand.
  @Test func flatMapInnersOnTwoThreadsAreGrantedOneValueMorePerValueDelivered() {
    typealias Round = (
      upstream: PassthroughSubject<Int, Never>, inners: [HandDrivenUpstream<Int, Never>],
      returned: [ReturnedDemandCount], subscriber: TestSubscriber<Int, Never>
    )
    let perInner = 3
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (
          PassthroughSubject(), [HandDrivenUpstream(), HandDrivenUpstream()],
          [ReturnedDemandCount(), ReturnedDemandCount()], TestSubscriber(initialDemand: .max(2 * perInner))
        )
        let inners = round.inners
        round.upstream.flatMap { inners[$0] }.subscribe(round.subscriber)
        round.upstream.send(0)
        round.upstream.send(1)
        return round
      },
      sides: (0..<2).map { inner in
        { round in
          let upstream = round.inners[inner]
          let link = upstream.link!
          for index in 0..<perInner {
            // Sends only what was granted: requested, or returned by an earlier value.
            spin { link.requested > .max(index - round.returned[inner].count.load(ordering: .relaxed)) }
            let answer = upstream.send(inner * 10 + index)
            if answer != .none { round.returned[inner].count.wrappingAdd(1, ordering: .relaxed) }
          }
        }
      },
      check: { round in
        let values = round.subscriber.values
        if values.sorted() != [0, 1, 2, 10, 11, 12] { return "values \(values)" }
        if values.filter({ $0 < 10 }) != [0, 1, 2] || values.filter({ $0 >= 10 }) != [10, 11, 12] {
          return "out of order \(values)"
        }
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        for inner in 0..<2 {
          let returned = round.returned[inner].count.load(ordering: .relaxed)
          let granted = round.inners[inner].link!.requested + .max(returned)
          if granted != .max(perInner + 1) { return "inner \(inner) granted \(granted)" }
        }
        round.subscriber.cancel()
        return nil
      })
    #expect(problem == nil)
  }

  @Test func futurePromiseRacingSubscribersAndACancel() {
    typealias Round = (
      future: Future<Int, Never>, promise: Future<Int, Never>.Promise, kept: TestSubscriber<Int, Never>,
      cancelled: TestSubscriber<Int, Never>
    )
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        var promise: Future<Int, Never>.Promise?
        let future = Future<Int, Never> { promise = $0 }
        return (future, promise!, TestSubscriber(), TestSubscriber())
      },
      sides: [
        { $0.promise(.success(7)) },
        { $0.future.subscribe($0.kept) },
        { round in
          round.future.subscribe(round.cancelled)
          round.cancelled.cancel()
        },
      ],
      check: { round in
        if round.kept.events != [.subscription, .value(7), .completion(.finished)] { return "\(round.kept.events)" }
        if !round.kept.violations.isEmpty || !round.cancelled.violations.isEmpty { return "violations" }
        return nil
      })
    #expect(problem == nil)
  }

  @Test func retryResubscribingWhileTheSubscriberCancels() {
    typealias Round = (upstream: HandDrivenUpstream<Int, RaceError>, subscriber: TestSubscriber<Int, RaceError>)
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (HandDrivenUpstream(), TestSubscriber())
        round.upstream.retry(3).subscribe(round.subscriber)
        return round
      },
      sides: [
        { $0.upstream.send(completion: .failure(.failed)) },
        { $0.subscriber.cancel() },
      ],
      check: { round in
        if round.upstream.holdsAnySubscriber { return "an upstream subscription is still active" }
        if round.subscriber.completion != nil { return "completed after cancel" }
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        return nil
      })
    #expect(problem == nil)
  }

  @Test func catchReplacingWhileTheSubscriberCancels() {
    typealias Round = (
      upstream: HandDrivenUpstream<Int, RaceError>, replacement: HandDrivenUpstream<Int, RaceError>,
      subscriber: TestSubscriber<Int, RaceError>
    )
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (HandDrivenUpstream(), HandDrivenUpstream(), TestSubscriber())
        let replacement = round.replacement
        round.upstream.catch { _ in replacement }.subscribe(round.subscriber)
        return round
      },
      sides: [
        { $0.upstream.send(completion: .failure(.failed)) },
        { $0.subscriber.cancel() },
      ],
      check: { round in
        if round.replacement.holdsAnySubscriber { return "the replacement is still subscribed" }
        if round.subscriber.completion != nil { return "completed after cancel" }
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        return nil
      })
    #expect(problem == nil)
  }

  @Test func bufferValuesAndCompletionRacingRequestsFromTwoThreads() {
    typealias Round = (upstream: HandDrivenUpstream<Int, Never>, subscriber: TestSubscriber<Int, Never>)
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (HandDrivenUpstream(), TestSubscriber(initialDemand: .none))
        round.upstream.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest).subscribe(round.subscriber)
        return round
      },
      sides: [
        { round in
          round.upstream.send(1)
          round.upstream.send(2)
          round.upstream.send(completion: .finished)
        },
        { $0.subscriber.request(.max(1)) },
        { $0.subscriber.request(.max(1)) },
      ],
      check: { round in
        if round.subscriber.values != [1, 2] { return "values \(round.subscriber.values)" }
        // The finish waits for demand beyond the last element, as in Combine.
        if round.subscriber.completion != nil { return "completed without demand" }
        round.subscriber.request(.max(1))
        if round.subscriber.completion != .finished { return "no completion" }
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        return nil
      })
    #expect(problem == nil)
  }

  @Test func concatenateCarriesDemandRequestedWhileThePrefixFinishes() {
    typealias Round = (
      prefix: HandDrivenUpstream<Int, Never>, suffix: HandDrivenUpstream<Int, Never>,
      subscriber: TestSubscriber<Int, Never>
    )
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (HandDrivenUpstream(), HandDrivenUpstream(), TestSubscriber(initialDemand: .none))
        round.prefix.append(round.suffix).subscribe(round.subscriber)
        return round
      },
      sides: [
        { $0.prefix.send(completion: .finished) },
        { $0.subscriber.request(.max(2)) },
      ],
      check: { round in
        let requests = round.suffix.link?.requests ?? []
        round.subscriber.cancel()
        if requests.reduce(.none, +) != .max(2) { return "suffix asked \(requests)" }
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        return nil
      })
    #expect(problem == nil)
  }

  @Test func prefixUntilOutputTriggerRacingUpstreamValues() {
    typealias Round = (
      upstream: HandDrivenUpstream<Int, Never>, trigger: HandDrivenUpstream<Void, Never>,
      subscriber: TestSubscriber<Int, Never>
    )
    let problem = race(
      rounds: Self.rounds,
      setup: { () -> Round in
        let round: Round = (HandDrivenUpstream(), HandDrivenUpstream(), TestSubscriber())
        round.upstream.prefix(untilOutputFrom: round.trigger).subscribe(round.subscriber)
        return round
      },
      sides: [
        { $0.trigger.send(()) },
        { round in
          round.upstream.send(1)
          round.upstream.send(2)
        },
      ],
      check: { round in
        let values = round.subscriber.values
        if values != [] && values != [1] && values != [1, 2] { return "values \(values)" }
        if round.subscriber.completion != .finished { return "no completion" }
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        if round.upstream.isActive == true { return "upstream still subscribed" }
        return nil
      })
    #expect(problem == nil)
  }
}

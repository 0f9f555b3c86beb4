import ConduitTesting
import Dispatch
import Synchronization
import Testing

@testable import Conduit

@Suite(.leakChecked)
struct ShareReplayTests {
  @Test func lateSubscriberGetsTheLastValues() {
    let source = PassthroughSubject<Int, Never>()
    let shared = source.share(replay: 2)
    let early = TestSubscriber<Int, Never>()
    shared.subscribe(early)
    source.send(1)
    source.send(2)
    source.send(3)
    let late = TestSubscriber<Int, Never>()
    shared.subscribe(late)
    #expect(late.values == [2, 3])
    source.send(4)
    #expect(early.values == [1, 2, 3, 4])
    #expect(late.values == [2, 3, 4])
    early.cancel()
    late.cancel()
  }

  @Test func replayWaitsForDemand() {
    let source = PassthroughSubject<Int, Never>()
    let shared = source.share(replay: 3)
    let early = TestSubscriber<Int, Never>()
    shared.subscribe(early)
    source.send(1)
    source.send(2)
    let late = TestSubscriber<Int, Never>(initialDemand: .none)
    shared.subscribe(late)
    #expect(late.values.isEmpty)
    late.request(.max(1))
    #expect(late.values == [1])
    late.request(.max(5))
    #expect(late.values == [1, 2])
    source.send(3)
    #expect(late.values == [1, 2, 3])
    #expect(late.violations.isEmpty)
    early.cancel()
    late.cancel()
  }

  /// A live value goes straight down only when nothing waits: one that arrives while the
  /// subscriber has no demand waits, and goes before the later ones.
  @Test func liveValuesKeepTheirOrderAcrossDemand() {
    let source = PassthroughSubject<Int, Never>()
    let shared = source.share(replay: 4)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    shared.subscribe(subscriber)
    source.send(1)
    source.send(2)
    source.send(3)
    #expect(subscriber.values == [1])
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2])
    subscriber.request(.max(3))
    #expect(subscriber.values == [1, 2, 3])
    source.send(4)
    source.send(5)
    #expect(subscriber.values == [1, 2, 3, 4, 5])
    source.send(6)
    #expect(subscriber.values == [1, 2, 3, 4, 5])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  /// A value sent from inside the subscriber's `receive(_:)` waits for that call to return, and
  /// demand the subscriber returns from it counts.
  @Test func reentrantSendAndReturnedDemandKeepOrder() {
    let source = PassthroughSubject<Int, Never>()
    let shared = source.share(replay: 1)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    subscriber.onValue { value in
      if value < 3 { source.send(value + 1) }
    }
    shared.subscribe(subscriber)
    source.send(1)
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func subscriberAfterCompletionGetsReplayThenCompletion() {
    let shared = [1, 2, 3].publisher.share(replay: 1)
    let first = TestSubscriber<Int, Never>()
    shared.subscribe(first)
    #expect(first.values == [1, 2, 3])
    let late = TestSubscriber<Int, Never>()
    shared.subscribe(late)
    #expect(late.values == [3])
    #expect(late.completion == .finished)
  }

  @Test func upstreamRunsOnce() {
    var runs = 0
    let source = PassthroughSubject<Int, Never>()
    let shared = Deferred { () -> PassthroughSubject<Int, Never> in
      runs += 1
      return source
    }.share(replay: 1)
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    shared.subscribe(first)
    shared.subscribe(second)
    source.send(1)
    #expect(runs == 1)
    #expect(first.values == [1] && second.values == [1])
    first.cancel()
    second.cancel()
  }

  /// A cancelled subscriber is let go of after its conduit's lock: one whose `deinit` sends to
  /// the shared upstream (which offers the value to that same conduit) used to stop the process
  /// on the lock taken twice.
  @Test func subscriberMaySendUpstreamInItsDeinit() {
    final class Holder {
      var subscription: (any Subscription)?
      var sentInDeinit = false
    }
    final class Sender: Subscriber {
      let upstream: PassthroughSubject<Int, Never>
      let holder: Holder
      let combineIdentifier = CombineIdentifier()
      init(upstream: PassthroughSubject<Int, Never>, holder: Holder) {
        self.upstream = upstream
        self.holder = holder
      }
      func receive(subscription: any Subscription) {
        holder.subscription = subscription
        subscription.request(.unlimited)
      }
      func receive(_ input: Int) -> Subscribers.Demand { .none }
      func receive(completion: Subscribers.Completion<Never>) {}
      deinit {
        upstream.send(2)
        holder.sentInDeinit = true
      }
    }
    let upstream = PassthroughSubject<Int, Never>()
    let shared = upstream.share(replay: 1)
    let staying = TestSubscriber<Int, Never>()
    shared.subscribe(staying)
    let holder = Holder()
    shared.subscribe(Sender(upstream: upstream, holder: holder))
    upstream.send(1)
    holder.subscription?.cancel()
    #expect(holder.sentInDeinit)
    #expect(staying.values == [1, 2])
    holder.subscription = nil
    staying.cancel()
  }

  @Test func cancelStopsDelivery() {
    let source = PassthroughSubject<Int, Never>()
    let shared = source.share(replay: 1)
    let subscriber = TestSubscriber<Int, Never>()
    shared.subscribe(subscriber)
    source.send(1)
    subscriber.cancel()
    source.send(2)
    #expect(subscriber.values == [1])
  }

  /// A late subscriber gets the replay, then the live values, with no gap and no duplicate,
  /// while values are sent concurrently with the join.
  @Test func replayLateSubscriberSeesNoGapNorDuplicate() {
    for _ in 0..<200 {
      let upstream = PassthroughSubject<Int, Never>()
      let shared = upstream.share(replay: 2)
      let first = TestSubscriber<Int, Never>()
      shared.subscribe(first)
      let late = TestSubscriber<Int, Never>()
      let group = DispatchGroup()
      DispatchQueue.global().async(group: group) {
        for value in 0..<200 { upstream.send(value) }
      }
      DispatchQueue.global().async(group: group) { shared.subscribe(late) }
      group.wait()
      upstream.send(completion: .finished)
      #expect(first.values == Array(0..<200))
      let values = late.values
      if let start = values.first {
        #expect(values == Array(start..<200), "late subscriber got \(values.prefix(8))…")
      }
      #expect(late.completion == .finished)
      #expect(late.violations.isEmpty)
    }
  }
}

@Suite(.leakChecked, .serialized)
struct ShareReplayStressTests {
  /// How many values `joinCancelAndRequestWhileSending` sends.
  static let values = 20_000

  /// Subscribers joining on one thread while values and the completion arrive on another see the
  /// replay followed by every later value, without a gap, and the completion. A value or the
  /// completion that reached a joining subscriber before its replay was set up used to be
  /// overwritten by the replay.
  @Test func lateSubscribersRacingLiveValuesMissNothing() {
    typealias Round = (
      upstream: PassthroughSubject<Int, Never>, shared: Publishers.ShareReplay<PassthroughSubject<Int, Never>>,
      first: TestSubscriber<Int, Never>, late: [TestSubscriber<Int, Never>]
    )
    let count = 8
    let problem = race(
      rounds: 10_000,
      setup: { () -> Round in
        let upstream = PassthroughSubject<Int, Never>()
        let shared = upstream.share(replay: 2)
        let round: Round = (upstream, shared, TestSubscriber(), (0..<3).map { _ in TestSubscriber() })
        shared.subscribe(round.first)
        return round
      },
      sides: [
        { round in
          for value in 0..<count { round.upstream.send(value) }
          round.upstream.send(completion: .finished)
        },
        { round in
          for subscriber in round.late { round.shared.subscribe(subscriber) }
        },
      ],
      check: { round in
        defer { for subscriber in [round.first] + round.late { subscriber.cancel() } }
        for (index, subscriber) in round.late.enumerated() {
          let values = subscriber.values
          let contiguous = zip(values, values.dropFirst()).allSatisfy { $1 == $0 + 1 }
          if !contiguous || values.last != count - 1 || subscriber.completion != .finished {
            return "late subscriber \(index) got \(values), completion \(String(describing: subscriber.completion))"
          }
          if !subscriber.violations.isEmpty { return "\(subscriber.violations)" }
        }
        return nil
      })
    #expect(problem == nil)
  }

  /// Subscribers cancelling on one thread while values arrive on another: each gets an unbroken
  /// run of values, and after its `cancel()` has returned at most the one already on its way;
  /// the subscriber that stays gets every value.
  @Test func subscribersCancellingWhileValuesArriveKeepOrder() {
    typealias Round = (
      upstream: PassthroughSubject<Int, Never>, shared: Publishers.ShareReplay<PassthroughSubject<Int, Never>>,
      staying: TestSubscriber<Int, Never>, leaving: [TestSubscriber<Int, Never>]
    )
    let count = 8
    // Written by the cancelling side, read by `check` once both sides are done.
    final class Box: @unchecked Sendable { var seenAtCancel: [Int] = [] }
    let box = Box()
    let problem = race(
      rounds: 10_000,
      setup: { () -> Round in
        let upstream = PassthroughSubject<Int, Never>()
        let shared = upstream.share(replay: 1)
        let round: Round = (upstream, shared, TestSubscriber(), (0..<3).map { _ in TestSubscriber() })
        shared.subscribe(round.staying)
        for subscriber in round.leaving { shared.subscribe(subscriber) }
        box.seenAtCancel = []
        return round
      },
      sides: [
        { round in
          for value in 0..<count { round.upstream.send(value) }
        },
        { round in
          for subscriber in round.leaving {
            subscriber.cancel()
            box.seenAtCancel.append(subscriber.values.count)
          }
        },
      ],
      check: { round in
        defer { round.staying.cancel() }
        if round.staying.values != Array(0..<count) { return "staying subscriber got \(round.staying.values)" }
        for (index, subscriber) in round.leaving.enumerated() {
          let values = subscriber.values
          if values != Array(0..<values.count) { return "leaving subscriber \(index) got \(values)" }
          // The value already on its way when `cancel()` ran may still arrive; nothing else.
          if values.count > box.seenAtCancel[index] + 1 {
            return "leaving subscriber \(index) got \(values.count - box.seenAtCancel[index]) values after cancel"
          }
          if !subscriber.violations.isEmpty { return "\(subscriber.violations)" }
        }
        return nil
      })
    #expect(problem == nil)
  }

  /// One thread sends, others join, cancel and request.
  @Test func joinCancelAndRequestWhileSending() {
    let upstream = PassthroughSubject<Int, Never>()
    let shared = upstream.share(replay: 3)
    let witness = StressSubscriber()
    shared.subscribe(witness)
    let joiners = (0..<12).map { position in
      position % 3 == 2
        ? StressSubscriber(demand: .max(1), cancelAt: Int.max) : StressSubscriber(forbidden: -1 - position)
    }
    let sent = Atomic<Int>(0)
    runOnThreads(3) { thread in
      switch thread {
      case 0:
        for value in 0..<Self.values {
          upstream.send(value)
          sent.store(value + 1, ordering: .releasing)
        }
      case 1:
        for (position, joiner) in joiners.enumerated() {
          while sent.load(ordering: .acquiring) < position * 1_000 {}
          shared.subscribe(joiner)
        }
      default:
        for (position, joiner) in joiners.enumerated() where position % 3 == 1 {
          while sent.load(ordering: .acquiring) < position * 1_000 + 500 {}
          while joiner.count == 0 {}  // subscribed: the replay has begun
          joiner.cancelAndRecord()
          upstream.send(-1 - position)  // the marker it must never see
        }
      }
    }
    upstream.send(completion: .finished)

    #expect(witness.overlaps == 0)
    #expect(witness.completed)
    for (position, joiner) in joiners.enumerated() {
      #expect(joiner.overlaps == 0)
      let values = joiner.values.filter { $0 >= 0 }
      switch position % 3 {
      case 0:
        // Unlimited demand: the replay then every live value, with no gap nor duplicate.
        #expect(joiner.completed)
        if let first = values.first { #expect(values == Array(first..<Self.values), "joiner \(position)") }
      case 1:
        #expect(!joiner.sawForbidden)
        #expect(joiner.count <= joiner.countWhenCancelReturned + 1)
        if let first = values.first { #expect(values == Array(first..<first + values.count), "joiner \(position)") }
      default:
        // One at a time: what waits beyond the buffer is dropped, but nothing goes backwards.
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 }, "joiner \(position)")
      }
    }
  }
}

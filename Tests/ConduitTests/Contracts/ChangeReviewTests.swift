import ConduitTesting
import Dispatch
import Synchronization
import Testing

@testable import Conduit

/// A value whose deinit records whether a probe saw a lock free at that moment.
private final class HeldCount: Sendable {
  let count = Atomic<Int>(0)
}

private final class LockProbe: @unchecked Sendable {
  let id: Int
  let probe: @Sendable () -> Bool
  let sawLockHeld: HeldCount

  init(_ id: Int, sawLockHeld: HeldCount, probe: @escaping @Sendable () -> Bool) {
    self.id = id
    self.sawLockHeld = sawLockHeld
    self.probe = probe
  }

  deinit {
    if !probe() { sawLockHeld.count.add(1, ordering: .relaxed) }
  }
}

private struct Boom: Error, Equatable {}

/// Checks written while reviewing the changes to share(replay:), replaceError, Concatenate,
/// AnySubscriber of a subject and Assign: releases after the lock, ordering, early demand and
/// cancel before the upstream's subscription.
@Suite(.leakChecked)
struct ChangeReviewTests {
  // MARK: share(replay:)

  /// DESIGN §3: the value a replay subject evicts from its buffer is a user value; its deinit
  /// must not run under the subject's lock (it may subscribe, or send to the subject).
  @Test func replaySubjectReleasesAnEvictedValueOutsideItsLock() {
    let held = HeldCount()
    let subject = ReplaySubject<LockProbe, Never>(bufferSize: 1)
    let probe: @Sendable () -> Bool = { subject.state.mutex.withLockIfAvailable { _ in true } ?? false }
    subject.send(LockProbe(1, sawLockHeld: held, probe: probe))
    subject.send(LockProbe(2, sawLockHeld: held, probe: probe))  // evicts 1
    #expect(held.count.load(ordering: .relaxed) == 0)
    subject.send(completion: .finished)
  }

  /// A subscriber with no demand keeps at most `bufferSize` values; the ones it drops, and the
  /// ones a cancel drops, must not be released under the conduit's lock.
  @Test func replayConduitReleasesDroppedValuesOutsideItsLock() throws {
    let held = HeldCount()
    let subject = ReplaySubject<LockProbe, Never>(bufferSize: 1)
    let subscriber = TestSubscriber<LockProbe, Never>(initialDemand: .none)
    subject.receive(subscriber: subscriber)
    let conduit = try #require(subscriber.subscription as? ReplayConduit<TestSubscriber<LockProbe, Never>>)
    let probe: @Sendable () -> Bool = { conduit.state.mutex.withLockIfAvailable { _ in true } ?? false }
    subject.send(LockProbe(1, sawLockHeld: held, probe: probe))
    subject.send(LockProbe(2, sawLockHeld: held, probe: probe))  // the conduit drops 1
    #expect(held.count.load(ordering: .relaxed) == 0, "a dropped value was released under the conduit's lock")
    subject.send(completion: .finished)  // the subject lets go of 2; the conduit still holds it
    subscriber.cancel()  // the conduit drops 2
    #expect(held.count.load(ordering: .relaxed) == 0, "a value dropped by cancel was released under the conduit's lock")
    #expect(subscriber.values.isEmpty)
    #expect(subscriber.violations.isEmpty)
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

  // MARK: AnySubscriber(subject)

  /// The relay passes the first subscription, values and the completion; it cancels a second
  /// subscription and lets go of everything once the upstream completes.
  @Test func anySubscriberOfASubjectRelaysOnceAndLetsGo() throws {
    try withLeakCheck { _ in
      let first = PassthroughSubject<Int, Never>()
      let second = ManualUpstream<Int, Never>()
      let target = PassthroughSubject<Int, Never>()
      let received = TestSubscriber<Int, Never>()
      target.subscribe(received)
      let relay = AnySubscriber(target)
      first.subscribe(relay)
      second.subscribe(relay)
      #expect(second.cancelCount == 1)
      first.send(1)
      first.send(completion: .finished)
      _ = relay.receive(2)
      #expect(received.values == [1])
      #expect(received.completion == .finished)
      #expect(received.violations.isEmpty)
    }
  }

  // MARK: replaceError

  @Test func replaceErrorCancelledOnSubscribeCancelsUpstream() {
    let upstream = ManualUpstream<Int, Boom>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Publishers.ReplaceError(upstream: Empty<Int, Boom>(completeImmediately: false), output: 0)
      .subscribe(subscriber)
    subscriber.cancel()
    #expect(subscriber.violations.isEmpty)
    // Cancel from inside receive(subscription:), which comes once upstream's subscription has
    // arrived, as in Combine: the request made first goes upstream, then the cancel.
    let cancelling = CancelOnSubscribe<Int, Never>(requestFirst: .max(2))
    Publishers.ReplaceError(upstream: upstream, output: 9).subscribe(cancelling)
    #expect(upstream.cancelCount == 1)
    #expect(upstream.requests == [.max(2)])
    upstream.send(1)
    upstream.send(completion: .failure(Boom()))
    #expect(cancelling.events.isEmpty)
  }

  @Test func replaceErrorDemandAskedOnSubscribeIsForwarded() {
    let upstream = ManualUpstream<Int, Boom>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    Publishers.ReplaceError(upstream: upstream, output: 9).subscribe(subscriber)
    #expect(upstream.requests == [.max(2)])
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .failure(Boom()))
    // No demand left: the replacement waits for a request.
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion == nil)
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2, 9])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  // MARK: Concatenate

  @Test func concatenateCancelledOnSubscribeNeverSubscribesTheSuffix() {
    let prefix = ManualUpstream<Int, Never>()
    let suffix = ManualUpstream<Int, Never>()
    let cancelling = CancelOnSubscribe<Int, Never>(requestFirst: .max(1))
    Publishers.Concatenate(prefix: prefix, suffix: suffix).subscribe(cancelling)
    #expect(prefix.requests == [.max(1)])
    #expect(prefix.cancelCount == 1)
    prefix.send(completion: .finished)
    #expect(suffix.requests.isEmpty && suffix.cancelCount == 0)
    #expect(cancelling.events.isEmpty)
  }

  @Test func concatenateCarriesUnmetDemandToTheSuffix() {
    let prefix = ManualUpstream<Int, Never>()
    let suffix = ManualUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
    Publishers.Concatenate(prefix: prefix, suffix: suffix).subscribe(subscriber)
    prefix.send(1)
    prefix.send(completion: .finished)
    #expect(suffix.requests == [.max(2)])
    suffix.send(2)
    suffix.send(3)
    suffix.send(4)  // beyond demand: dropped
    suffix.send(completion: .finished)
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  // MARK: Assign

  @Test func assignWritesNothingBeforeItsSubscriptionNorAfterCancel() {
    final class Model { var value = 0 }
    let model = Model()
    let assign = Subscribers.Assign(object: model, keyPath: \Model.value)
    _ = assign.receive(1)
    #expect(model.value == 0)
    let upstream = ManualUpstream<Int, Never>()
    upstream.subscribe(assign)
    upstream.send(2)
    #expect(model.value == 2)
    assign.cancel()
    #expect(assign.object == nil)
    _ = assign.receive(3)
    #expect(model.value == 2)
    #expect(upstream.cancelCount == 1)
  }
}

/// Requests `requestFirst`, then cancels, from inside `receive(subscription:)`; records anything
/// that arrives afterwards.
private final class CancelOnSubscribe<Input, Failure: Error>: Subscriber, @unchecked Sendable {
  let combineIdentifier = CombineIdentifier()
  let requestFirst: Subscribers.Demand
  private(set) var events: [String] = []

  init(requestFirst: Subscribers.Demand) { self.requestFirst = requestFirst }

  func receive(subscription: any Subscription) {
    if requestFirst > 0 { subscription.request(requestFirst) }
    subscription.cancel()
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    events.append("value \(input)")
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) { events.append("completion") }
}

/// share(replay:) under threads: one thread sends, others join, cancel and request.
@Suite(.leakChecked)
struct ChangeReviewShareReplayStressTests {
  static let values = 20_000

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

import ConduitTesting
import Synchronization
import Testing

@testable import Conduit

/// The subject behind `share(replay:)`, which keeps the latest values for late subscribers.
@Suite(.leakChecked)
struct ReplaySubjectTests {
  /// The upstream subscriptions the replay subject lets go of at its completion are released
  /// after its lock (see `completeWithAnUpstreamThatUsesTheSubjectInItsDeinit`).
  @Test func upstreamSubscriptionMayUseTheReplaySubjectInItsDeinit() {
    let (completedInDeinit, subscriber) = completeWithAnUpstreamThatUsesTheSubjectInItsDeinit(
      ReplaySubject(bufferSize: 1))
    #expect(completedInDeinit)
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

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
}

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

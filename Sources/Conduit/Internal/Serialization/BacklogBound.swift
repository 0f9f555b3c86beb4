import Dispatch
import Synchronization

/// The bound on a backlog of events that one thread delivers and others post: beyond `limit`
/// events waiting, a thread that posts and is not itself delivering waits until the deliverer
/// has brought the backlog down to half the limit, as Combine's senders wait on a subject's lock.
/// `Serializer` (subjects, `merge`, `zip`, `combineLatest`) and `share(replay:)`'s subscribers
/// keep it.
///
/// It never deadlocks a sender:
/// - A thread that is delivering for a `Serializer` (`isDelivering`) never waits for
///   a subject's room, so re-entrant sends and cycles between subjects go straight to the queue.
///   It does wait for room at a `share(replay:)` subscriber: it is what moves the other senders'
///   values there, and would otherwise move them without bound.
/// - A sender gives up waiting when the deliverer handled nothing for `roomPatience`: the
///   deliverer may be waiting on that sender, or may be the sender itself, up the stack (a
///   subscriber that sends into its own subject from inside `receive(_:)`). The backlog is then
///   marked stalled, and later senders do not wait at all until the deliverer handles an event
///   again: a stall costs one patience, not one per value.
@usableFromInline
struct BacklogBound: ~Copyable, Sendable {
  /// Events waiting beyond which a sender that is not delivering waits.
  @usableFromInline static var limit: Int { 1_024 }
  /// How long a sender waits for room while the deliverer handles nothing. A deliverer that is
  /// merely descheduled on a loaded machine (tens of milliseconds) must not read as stalled: a
  /// stall lets senders past the bound until the deliverer handles an event again.
  static var roomPatience: DispatchTimeInterval { .seconds(1) }

  /// What only a backlog that has reached its limit needs.
  @usableFromInline
  final class Waiters: Sendable {
    // Events the deliverer has handled (or let go of) since a sender first waited, counted to
    // tell a slow deliverer from a stalled one.
    let handled = Atomic<Int>(0)
    // The count of `handled` at which a sender found the deliverer stalled; -1 when it is not.
    let stalledAt = Atomic<Int>(-1)
    // Senders waiting for room, each woken by one signal of `room`.
    let waiting = Atomic<Int>(0)
    let room = DispatchSemaphore(value: 0)

    init() {}
  }

  // Made by the first sender that waits: most backlogs never reach the limit, so the bound
  // costs them one word and one load per queued event.
  @usableFromInline
  let waitersStorage = AtomicLazyReference<Waiters>()

  @inlinable
  init() {}

  @TaskLocal static var delivering = false

  /// Whether this thread is delivering queued events for a `Serializer`: such a thread never
  /// waits for a subject's room, nor to take over another owner's delivery.
  @usableFromInline
  static var isDelivering: Bool { delivering }

  /// Runs `body`, during which `isDelivering` is true on this thread.
  @usableFromInline
  static func whileDelivering(_ body: () -> Void) {
    $delivering.withValue(true, operation: body)
  }

  /// Called by the deliverer for each event it handles or lets go of, with the number of events
  /// `left` waiting: wakes the waiting senders once the backlog is down to half the limit.
  @inlinable @inline(__always)
  func handledOne(left: Int) {
    guard let waiters = waitersStorage.load() else { return }
    handled(by: waiters, left: left)
  }

  @usableFromInline
  func handled(by waiters: Waiters, left: Int) {
    waiters.handled.wrappingAdd(1, ordering: .relaxed)
    if left <= Self.limit / 2 && waiters.waiting.load(ordering: .sequentiallyConsistent) > 0 {
      wake(waiters)
    }
  }

  /// Wakes every sender waiting for room (the deliverer has let go of the backlog).
  @usableFromInline
  func wakeWaiting() {
    if let waiters = waitersStorage.load() { wake(waiters) }
  }

  func wake(_ waiters: Waiters) {
    let count = waiters.waiting.exchange(0, ordering: .sequentiallyConsistent)
    for _ in 0..<count { waiters.room.signal() }
  }

  /// Waits, as a sender that posted, while `backlog()` is beyond the limit; returns at once when
  /// it is within it, or when the deliverer is known to be stalled.
  @usableFromInline
  func waitForRoom(backlog: () -> Int) {
    guard backlog() > Self.limit else { return }
    let waiters = waitersStorage.load() ?? waitersStorage.storeIfNil(Waiters())
    var progress = waiters.handled.load(ordering: .acquiring)
    if waiters.stalledAt.load(ordering: .relaxed) == progress { return }
    while backlog() > Self.limit {
      waiters.waiting.wrappingAdd(1, ordering: .sequentiallyConsistent)
      if backlog() > Self.limit / 2, waiters.room.wait(timeout: .now() + Self.roomPatience) == .success {
        continue
      }
      // Not waiting (any more): withdraw, or take the signal a deliverer that counted this
      // thread among the waiting has sent or is about to send.
      if !withdraw(from: waiters) { waiters.room.wait() }
      let now = waiters.handled.load(ordering: .acquiring)
      if now == progress {
        // Nothing handled for a whole patience: the deliverer may be waiting on this thread.
        waiters.stalledAt.store(now, ordering: .relaxed)
        return
      }
      progress = now
    }
  }

  /// Takes this thread off the count of waiting senders: `false` if a deliverer took the count
  /// already (its signal is then this thread's).
  func withdraw(from waiters: Waiters) -> Bool {
    var current = waiters.waiting.load(ordering: .sequentiallyConsistent)
    while current > 0 {
      let (exchanged, found) = waiters.waiting.compareExchange(
        expected: current, desired: current - 1, ordering: .sequentiallyConsistent)
      if exchanged { return true }
      current = found
    }
    return false
  }
}

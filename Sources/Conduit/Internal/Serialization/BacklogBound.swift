import Dispatch
import Synchronization

/// The bound on a backlog of events that one thread delivers and others post: beyond `limit`
/// events waiting, a thread that posts and is not itself delivering waits until the deliverer
/// has brought the backlog down to half the limit, as Combine's senders wait on a subject's lock.
/// `Serializer` (subjects) and `share(replay:)`'s subscribers keep it.
///
/// It never deadlocks a sender:
/// - A thread that is delivering for a `Serializer` (`Serializing.isDelivering`) never waits for
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
  /// How long a sender waits for room while the deliverer handles nothing.
  static var roomPatience: DispatchTimeInterval { .milliseconds(50) }

  // Events the deliverer has handled (or let go of), counted to tell a slow deliverer from a
  // stalled one.
  @usableFromInline
  let handled = Atomic<Int>(0)
  // The count of `handled` at which a sender found the deliverer stalled; -1 when it is not.
  @usableFromInline
  let stalledAt = Atomic<Int>(-1)
  // Senders waiting for room, each woken by one signal of `room`.
  @usableFromInline
  let waiting = Atomic<Int>(0)
  // Made by the first sender that waits: most backlogs never reach the limit.
  @usableFromInline
  let roomStorage = AtomicLazyReference<DispatchSemaphore>()

  @inlinable
  init() {}

  /// Called by the deliverer for each event it handles or lets go of, with the number of events
  /// `left` waiting: wakes the waiting senders once the backlog is down to half the limit.
  @inlinable @inline(__always)
  func handledOne(left: Int) {
    handled.wrappingAdd(1, ordering: .relaxed)
    if left <= Self.limit / 2 && waiting.load(ordering: .sequentiallyConsistent) > 0 {
      wakeWaiting()
    }
  }

  @usableFromInline
  func wakeWaiting() {
    let count = waiting.exchange(0, ordering: .sequentiallyConsistent)
    for _ in 0..<count { room.signal() }
  }

  /// Waits, as a sender that posted, while `backlog()` is beyond the limit; returns at once when
  /// it is within it, or when the deliverer is known to be stalled.
  @usableFromInline
  func waitForRoom(backlog: () -> Int) {
    guard backlog() > Self.limit else { return }
    var progress = handled.load(ordering: .acquiring)
    if stalledAt.load(ordering: .relaxed) == progress { return }
    while backlog() > Self.limit {
      waiting.wrappingAdd(1, ordering: .sequentiallyConsistent)
      if backlog() > Self.limit / 2, room.wait(timeout: .now() + Self.roomPatience) == .success {
        continue
      }
      // Not waiting (any more): withdraw, or take the signal a deliverer that counted this
      // thread among the waiting has sent or is about to send.
      if !withdrawWaiting() { room.wait() }
      let now = handled.load(ordering: .acquiring)
      if now == progress {
        // Nothing handled for a whole patience: the deliverer may be waiting on this thread.
        stalledAt.store(now, ordering: .relaxed)
        return
      }
      progress = now
    }
  }

  /// Takes this thread off the count of waiting senders: `false` if a deliverer took the count
  /// already (its signal is then this thread's).
  func withdrawWaiting() -> Bool {
    var current = waiting.load(ordering: .sequentiallyConsistent)
    while current > 0 {
      let (exchanged, found) = waiting.compareExchange(
        expected: current, desired: current - 1, ordering: .sequentiallyConsistent)
      if exchanged { return true }
      current = found
    }
    return false
  }

  var room: DispatchSemaphore {
    roomStorage.load() ?? roomStorage.storeIfNil(DispatchSemaphore(value: 0))
  }
}

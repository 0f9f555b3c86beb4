import Dispatch
import Synchronization

/// Serializes the delivery of events that several threads post: one thread at a time owns
/// delivery and handles every event, in the order they were posted; the others post and leave.
/// The subjects and the combining operators (`merge`, `zip`, `combineLatest`) deliver through it.
/// It keeps `DeliveryOwnership`'s contract (claim, post, drain, give back), with a count of the
/// deliveries owed in an atomic instead of a locked flag, and adds fairness and a bound:
///
/// - **Claim.** A thread that finds nobody owning delivery (`claim()`) handles its own event
///   directly, then calls `endDirect(_:)`, which drains whatever was posted meanwhile. An
///   uncontended event costs two atomic operations and no lock.
/// - **Post.** A thread that finds delivery owned queues its event (`enqueue(_:)`) and bumps
///   the count; if the count was 0 it owns delivery after all and drains (`drain(missed:_:)`).
/// - **Drain and give back.** The owner handles the queue batch by batch and subtracts from
///   the count what it owed before each batch; it gives delivery back when the count reaches 0,
///   so an event posted after that finds nobody owning delivery and is handled by its poster.
/// - **Fairness.** A sender that only queues is cheaper than the owner that delivers, so an
///   owner could be kept delivering another thread's stream for ever. Once an owner has
///   handled `successionThreshold` queued events it offers to hand over; the next thread that
///   posts a value (and is not itself delivering) takes the offer, waits for the owner to finish
///   the event in hand, and delivers the rest itself. It waits at most `patience`, so a
///   succession can slow a sender but never deadlock it.
/// - **Bound.** More than `BacklogBound.limit` events queued and not yet handled: a thread that
///   posts a value and is not itself delivering waits until the owner has brought the backlog down
///   to half the limit, as Combine's senders wait on a subject's lock (see `BacklogBound`, which
///   also says why the wait cannot deadlock).
///
/// Its methods are `@inlinable` so that a subject's sending path is specialized for the
/// subject's element type in the caller's module ("PassthroughSubject.send, 1 sink, per value").
@usableFromInline
struct Serializer<Event>: ~Copyable {
  /// Queued events an owner delivers before it offers to hand over.
  @usableFromInline static var successionThreshold: Int { 16 }
  /// How long a successor waits for the owner to finish the event in hand.
  @usableFromInline static var patience: DispatchTimeInterval { .milliseconds(10) }

  /// What a thread that posted must do next.
  @usableFromInline
  enum Claim {
    /// It owns delivery: it handles its event, then calls `endDirect(_:)`.
    case deliver
    /// It queued the event and found nobody owning delivery: it calls `drain(missed: 1, _:)`.
    case drain
    /// It queued the event for the owner: a sender of a value calls `afterQueued(_:)`.
    case queued
    /// There is no event (the stream had ended).
    case nothing
  }

  /// Where the handing over of delivery stands.
  @usableFromInline
  enum Succession {
    /// No owner offers to hand over.
    @usableFromInline static var none: Int { 0 }
    /// The owner has delivered enough queued events and hands over to a thread that claims.
    @usableFromInline static var offered: Int { 1 }
    /// A thread waits to take over at the owner's next event.
    @usableFromInline static var claimed: Int { 2 }
    /// The owner has let go; the thread that claimed owns delivery.
    @usableFromInline static var handedOver: Int { 3 }
  }

  // The number of deliveries owed: 0 means nobody owns delivery.
  @usableFromInline
  let owed = Atomic<Int>(0)
  // Guarded by its own lock: what was posted while another thread owned delivery.
  @usableFromInline
  let queue = Locked<[Event]>([])
  // Events queued and not yet handled; changed with the queue, under its lock, and by the owner
  // as it handles them.
  @usableFromInline
  let backlog = Atomic<Int>(0)
  // What keeps `backlog` within its bound.
  @usableFromInline
  let bound = BacklogBound()
  // Where the handing over of delivery stands (`Succession`).
  @usableFromInline
  let succession = Atomic<Int>(Succession.none)
  // Written by an owner before it hands over, read by its successor after: the count it owes.
  @usableFromInline
  let handedOverCount = Atomic<Int>(0)
  // Signalled by an owner when it hands over to the successor waiting on it; made by the first
  // of the two that needs it: most serializers never hand over.
  @usableFromInline
  let successorWakeStorage = AtomicLazyReference<DispatchSemaphore>()

  @inlinable
  init() {}

  /// Claims delivery if nobody owns it; the caller then handles its event and calls
  /// `endDirect(_:)`. It does not call out, so it may run under the caller's lock: events
  /// claimed under one lock are handled in the order they changed the caller's state.
  @inlinable @inline(__always)
  func claim() -> Bool {
    owed.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged
  }

  /// Claims delivery for `event`, or queues it for the owner.
  @inlinable @inline(__always)
  func claim(_ event: Event) -> Claim {
    claim() ? .deliver : enqueue(event)
  }

  /// Queues `event` for the owner of delivery.
  @inlinable
  func enqueue(_ event: Event) -> Claim {
    queue.withLock { queue in
      queue.append(event)
      backlog.wrappingAdd(1, ordering: .relaxed)
    }
    return owed.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0 ? .drain : .queued
  }

  /// What a sender whose value was queued for the owner does: it takes an owner's offer to
  /// hand over, or waits while the backlog is beyond the bound. Not for other events: a
  /// request or a completion never waits.
  @inlinable
  func afterQueued(_ process: (Event) -> Void) {
    _ = afterQueued(process, settle: Self.settled, restore: { _ in })
  }

  /// `afterQueued(_:)`, for an owner with work of its own (see `drain(missed:_:settle:restore:)`):
  /// returns what `settle` handed over if this thread took over delivery and then gave it back.
  @inlinable
  func afterQueued<Pending>(
    _ process: (Event) -> Void, settle: () -> Pending?, restore: (Pending) -> Void
  ) -> Pending? {
    if succession.load(ordering: .relaxed) == Succession.offered {
      return succeed(process, settle: settle, restore: restore)
    } else if backlog.load(ordering: .relaxed) > BacklogBound.limit, !BacklogBound.isDelivering {
      bound.waitForRoom { backlog.load(ordering: .relaxed) }
    }
    return nil
  }

  /// Gives delivery back after handling an event directly; handles whatever was posted meanwhile.
  @inlinable
  func endDirect(_ process: (Event) -> Void) {
    if !giveBackDirect() {
      drain(missed: 1, process)
    }
  }

  /// Gives delivery back after handling an event directly, unless something was posted
  /// meanwhile: then the caller still owns delivery, and drains with `missed: 1`.
  @inlinable @inline(__always)
  func giveBackDirect() -> Bool {
    owed.compareExchange(expected: 1, desired: 0, ordering: .releasing).exchanged
  }

  /// Handles the queue as the owner of delivery, owing `missed` deliveries, until it gives
  /// delivery back or hands it over.
  @inlinable
  func drain(missed: Int, _ process: (Event) -> Void) {
    _ = drain(missed: missed, process, settle: Self.settled, restore: { _ in })
  }

  /// `drain(missed:_:)`, for an owner with work of its own between events (the combining
  /// operators deliver the outputs that events make): whenever the queue is empty, `settle` does
  /// that work, stopping early once an event is queued (`hasQueued`), and hands over what is to
  /// be done after delivery is given back (requests to upstreams, which a synchronous upstream
  /// then answers on the uncontended path). If an event was posted meanwhile, the owner keeps
  /// delivery, gives that back to `restore` and goes on. Returns what `settle` handed over last,
  /// for the caller to do now that it has given delivery back, or `nil` when it handed delivery
  /// over to a successor, which settles in its turn.
  @inlinable
  func drain<Pending>(
    missed: Int, _ process: (Event) -> Void, settle: () -> Pending?, restore: (Pending) -> Void
  ) -> Pending? {
    var pending: Pending?
    BacklogBound.whileDelivering {
      pending = drainQueue(owed: missed, process, settle: settle, restore: restore)
    }
    return pending
  }

  /// The `settle` of an owner with no work of its own.
  @inlinable
  static func settled() -> Never? { nil }

  /// Whether an event waits in the queue, for an owner's `settle` to stop at.
  @inlinable
  var hasQueued: Bool { backlog.load(ordering: .acquiring) > 0 }

  @inlinable
  func drainQueue<Pending>(
    owed start: Int, _ process: (Event) -> Void, settle: () -> Pending?, restore: (Pending) -> Void
  ) -> Pending? {
    var owes = start
    // Events handled in this drain, counted towards offering to hand over.
    var handled = 0
    while true {
      let events = queue.withLock { queue in
        defer { queue = [] }
        return queue
      }
      var index = events.startIndex
      while index < events.endIndex {
        process(events[index])
        index += 1
        handled += 1
        bound.handledOne(left: backlog.wrappingSubtract(1, ordering: .relaxed).newValue)
        if handled >= Self.successionThreshold {
          switch succession.load(ordering: .acquiring) {
          case Succession.none:
            succession.store(Succession.offered, ordering: .releasing)
          case Succession.claimed:
            if handOver(events[index...], owed: owes) { return nil }
          default:
            break
          }
        }
      }
      if handled >= Self.successionThreshold {
        // Withdraw the offer before letting go; a thread that took it gets delivery instead.
        let (withdrawn, current) = succession.compareExchange(
          expected: Succession.offered, desired: Succession.none, ordering: .acquiringAndReleasing)
        if !withdrawn && current == Succession.claimed && handOver([], owed: owes) { return nil }
      }
      let pending = settle()
      owes = owed.wrappingSubtract(owes, ordering: .acquiringAndReleasing).newValue
      if owes == 0 { return pending }
      if let pending { restore(pending) }
    }
  }

  /// Takes an owner's offer to hand delivery over, if this thread may.
  @inlinable
  func succeed<Pending>(
    _ process: (Event) -> Void, settle: () -> Pending?, restore: (Pending) -> Void
  ) -> Pending? {
    // A thread that is delivering never waits for another: two owners waiting for each other
    // would otherwise wait out their patience on every value.
    guard !BacklogBound.isDelivering,
      succession.compareExchange(
        expected: Succession.offered, desired: Succession.claimed, ordering: .acquiringAndReleasing
      ).exchanged
    else { return nil }
    if successorWake.wait(timeout: .now() + Self.patience) == .timedOut {
      let (withdrawn, _) = succession.compareExchange(
        expected: Succession.claimed, desired: Succession.none, ordering: .acquiringAndReleasing)
      if withdrawn { return nil }
      // The owner handed over just as the wait ran out; its signal is on its way.
      successorWake.wait()
    }
    let owes = handedOverCount.load(ordering: .relaxed)
    succession.store(Succession.none, ordering: .relaxed)
    return drain(missed: owes, process, settle: settle, restore: restore)
  }

  /// Gives delivery to the thread that claimed it, unless it has stopped waiting: what is left
  /// of the batch in hand goes back to the front of the queue, and the successor takes over the
  /// count this owner owes. Returns whether it handed over.
  @inlinable
  func handOver(_ rest: ArraySlice<Event>, owed owes: Int) -> Bool {
    guard
      succession.compareExchange(
        expected: Succession.claimed, desired: Succession.handedOver, ordering: .acquiringAndReleasing
      ).exchanged
    else { return false }
    // The successor reads none of this before the signal.
    if !rest.isEmpty {
      queue.withLock { queue in queue.insert(contentsOf: rest, at: 0) }
    }
    handedOverCount.store(owes, ordering: .relaxed)
    successorWake.signal()
    return true
  }

  @inlinable
  var successorWake: DispatchSemaphore {
    successorWakeStorage.load() ?? successorWakeStorage.storeIfNil(DispatchSemaphore(value: 0))
  }

  /// The number of deliveries owed, for a caller that must know whether anything waits.
  @inlinable
  var owedCount: Int { owed.load(ordering: .acquiring) }
}

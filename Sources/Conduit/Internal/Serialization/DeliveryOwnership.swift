// Serialization: who calls a downstream, and when.
//
// Every operator whose events arrive on several threads (upstreams, children, its subscriber's
// requests, a scheduler) delivers through the contract stated on `DeliveryOwnership` below: one
// thread at a time owns delivery, the others post their work and leave it to the owner.
// - `DeliveryOwnership.swift`: the contract, the ownership flag and the owner's loop (`Locked.drain`).
// - `Serializer.swift`: the same contract with an atomic count, a queue of events, hand-over to
//   a waiting sender and a bound on the backlog; subjects deliver through it.
// - `BacklogBound.swift`: the bound on a backlog (a subject's, a `share(replay:)` subscriber's):
//   beyond it, senders wait for the deliverer; and whether this thread is delivering.
// - `Locked.swift`: the lock around every operator's state (`Mutex`, made visible to TSan).
// - `ValueQueue.swift`: the queue of values waiting for demand or for the owner.

/// Which thread may call a downstream: the mechanism by which an operator whose events arrive on
/// several threads (its upstreams, its children, its subscriber's requests) calls its downstream
/// from one thread at a time, in order, and never recursively.
///
/// The contract, which every user keeps:
/// - **Who owns.** Ownership is a flag in the operator's locked state. A thread owns delivery
///   from the `claim()` that returned `true` until it gives delivery back; only the owner calls
///   the downstream, and only outside the lock.
/// - **How work is posted.** A thread with something for the downstream (a value, demand that
///   frees queued values, a completion) records it in the state under the lock, in the same
///   critical section in which it tries to `claim()` delivery. If the claim fails, it returns at
///   once: the owner delivers its work.
/// - **How the owner drains.** The owner loops: under the lock it takes the next piece of work
///   the state allows (a queued value with demand for it, the completion after the last value),
///   then performs it outside the lock, then takes the next. `Locked.drain(_:perform:)` is the
///   loop; `FlatMap` and `SwitchToLatest` write the same loop out, for their benchmarks (see there).
/// - **How ownership is given back.** In the same critical section in which the owner finds
///   nothing left to deliver, it calls `giveBack()`. So no work is ever left behind: a thread
///   that posts after that section claims delivery itself, and one that posted before it is
///   seen by it. Once the stream has ended (completed, failed, cancelled), the owner keeps
///   delivery for good, so that nothing reaches the downstream after the end.
/// - **Re-entrancy.** A call the downstream makes from inside a delivery (a `request`, a
///   `cancel`, a `send` to a subject upstream) finds delivery claimed, posts its work and
///   returns; the loop below it picks the work up. Calls into the downstream never nest, and
///   a synchronous source that answers each value with more demand does not grow the stack.
///
/// Three specialised forms keep the same contract without the lock, each for a measured reason:
/// - `Serializer` (subjects) and `CombiningSubscription` count the deliveries owed in an atomic
///   instead of a locked flag: the flag costs about as much again as "PassthroughSubject.send,
///   1 sink, per value" (see the two "reference: one delivery per value claimed by …"
///   workloads). `Serializer` also queues the events itself, hands delivery over to a waiting
///   sender, and bounds its backlog.
/// - `TriggeredSubscription` counts the depth of nested calls into downstream:
///   `drop(untilOutputFrom:)` and `prefix(untilOutputFrom:)` pass upstream's values straight
///   through, nested when a synchronous upstream delivers from inside a request made inside
///   `receive`, as Combine does, and hold back only the trigger's completion until the outermost
///   call returns. The flag would have them queue those values instead, returning from `request`
///   before they arrive.
@usableFromInline
package struct DeliveryOwnership {
  @usableFromInline
  var isClaimed: Bool

  /// Delivery owned by nobody, or (`claimed: true`) by the thread creating the state, until it
  /// gives it back.
  @inlinable
  package init(claimed: Bool = false) {
    isClaimed = claimed
  }

  /// Claims delivery for the calling thread: whether it now owns it. Called under the state's
  /// lock, with the work the thread posts.
  @inlinable
  package mutating func claim() -> Bool {
    if isClaimed { return false }
    isClaimed = true
    return true
  }

  /// Gives delivery back. Called by the owner only, under the state's lock, in the critical
  /// section in which it found nothing left to deliver.
  @inlinable
  package mutating func giveBack() {
    isClaimed = false
  }
}

/// What the owner of delivery does next; see `Locked.drain(_:perform:)`.
@usableFromInline
enum NextDelivery<Work> {
  /// Perform this work outside the lock, then ask again.
  case perform(Work)
  /// Perform this work outside the lock, then stop: the stream has ended (delivery stays
  /// claimed for good), or delivery was given back in this critical section and the work is
  /// what must still follow it (demand to forward upstream, say).
  case performAndStop(Work)
  /// Stop: delivery was given back in this critical section, or the stream has ended.
  case stop
}

extension Locked {
  /// The owner's loop of `DeliveryOwnership`: asks `next`, under the lock, for what to do, and
  /// does it with `perform` after the lock, until `next` says stop. `next` gives delivery back
  /// itself when it finds nothing to deliver (it is the critical section of the contract);
  /// what `perform` learns (the demand the downstream returned) reaches the next `next` through
  /// the caller's own variables.
  @inlinable @inline(__always)
  borrowing func drain<Work>(_ next: (inout State) -> NextDelivery<Work>, perform: (Work) -> Void) {
    while true {
      switch withLock(next) {
      case .perform(let work):
        perform(work)
      case .performAndStop(let work):
        perform(work)
        return
      case .stop:
        return
      }
    }
  }
}

import Synchronization

/// The values one upstream of a `zip` delivered that have not gone into an output yet, or the
/// latest value of one upstream of a `combineLatest`.
///
/// Kept inline in the slot set, which lives in the subscription, rather than in an object per
/// upstream: an object of a generic class is freed by its unspecialized deinit, which looks up
/// the metadata of its fields' types, and each would cost an allocation and a census token on
/// every subscription.
///
/// Owned, like all its state, by the thread that owns the `CombiningSubscription`.
@usableFromInline
struct CombiningSlot<Value> {
  // The oldest value queued (Zip), kept apart from the others: a zip whose upstreams take turns
  // never has more than one value waiting per slot, and then never touches `later`.
  @usableFromInline
  var oldest: Value?
  // The values queued after `oldest` (Zip).
  @usableFromInline
  var later = ValueQueue<Value>()
  // The latest value (CombineLatest).
  @usableFromInline
  var latest: Value?

  @inlinable
  init() {}

  /// Whether no value is queued.
  @inlinable
  var isDrained: Bool { oldest == nil }

  /// Queues `value` behind those already queued.
  @inlinable @inline(__always)
  mutating func push(_ value: Value) {
    if oldest == nil {
      oldest = value
    } else {
      later.append(value)
    }
  }

  /// Takes the oldest value queued; there must be one.
  @inlinable @inline(__always)
  mutating func takeOldest() -> Value {
    let value = oldest.take()!
    if !later.isEmpty { oldest = later.popFirst() }
    return value
  }

  /// Forgets every value held.
  @inlinable
  mutating func forget() {
    oldest = nil
    later.removeAll()
    latest = nil
  }
}

import Synchronization

/// What a subject's subscription handle needs of one subscriber: its demand and whether it has
/// ended.
///
/// It is not generic, so that `SubjectHandle` is not either: a subscriber calls `request` and
/// `cancel` through `any Subscription`, and the witnesses of a generic class run unspecialized.
///
/// A delivery reads these fields, the conduit's `offer` and the subscriber, and they all sit in
/// the first 64 bytes of the object: with many subscribers, each cache line more is a miss more
/// per value. Everything else the class hierarchy holds comes after them.
@usableFromInline
class SubjectMember: @unchecked Sendable {
  /// What a handle asks the subject to do for a member.
  @usableFromInline
  enum Notice {
    /// The subscriber cancelled: take the member off the subject's list and let it go.
    case cancelled
    /// Demand arrived while the member was owed the current value.
    case wantsCurrentValue
    /// Demand arrived for a passthrough subject's member.
    case demanded
  }

  // Demand not yet used, `UInt.max` for unlimited.
  @usableFromInline
  let demand = Atomic<UInt>(0)
  // Set once, by a cancel or by the completion, whichever comes first; after it nothing more is
  // delivered.
  @usableFromInline
  let terminated = Atomic<Bool>(false)
  // A current-value subject's subscriber gets the value with its first demand, and again with
  // the next demand after it missed a value for want of demand, as in Combine.
  @usableFromInline
  let awaitingCurrentValue: Atomic<Bool>
  // Immutable: whether the subject is a current-value subject.
  @usableFromInline
  let tracksCurrentValue: Bool
  // Owned by the subject's delivery: whether `receive(subscription:)` has returned, so that the
  // subscriber may be called.
  @usableFromInline @exclusivity(unchecked)
  var ready = false
  // Owned by the subject's delivery: whether a current-value subject's subscriber is owed the
  // current value, having had no value since it joined or since it missed one. This, not
  // `awaitingCurrentValue` (which only tells a request to ask), decides whether an offer of the
  // current value still stands when the delivery comes to it.
  @usableFromInline @exclusivity(unchecked)
  var owedCurrentValue: Bool

  @inlinable
  init(tracksCurrentValue: Bool) {
    self.tracksCurrentValue = tracksCurrentValue
    awaitingCurrentValue = Atomic(tracksCurrentValue)
    owedCurrentValue = tracksCurrentValue
  }

  /// The subscriber and the subject's type, for the handle's mirror; the subject's delivery may be
  /// using them meanwhile, which reading them does not disturb.
  @usableFromInline
  func reflected() -> (downstream: Any?, subject: Any.Type?) { (nil, nil) }

  @inlinable @inline(__always)
  func takeDemand() -> Bool {
    var current = demand.load(ordering: .relaxed)
    while true {
      if current == .max { return true }
      if current == 0 { return false }
      let (exchanged, original) = demand.compareExchange(
        expected: current, desired: current - 1, ordering: .relaxed)
      if exchanged { return true }
      current = original
    }
  }

  @inlinable
  func addDemand(_ more: Subscribers.Demand) {
    var current = demand.load(ordering: .relaxed)
    while current != .max {
      let updated = (Subscribers.Demand(rawValue: current) + more).rawValue
      let (exchanged, original) = demand.compareExchange(
        expected: current, desired: updated, ordering: .sequentiallyConsistent)
      if exchanged { return }
      current = original
    }
  }
}

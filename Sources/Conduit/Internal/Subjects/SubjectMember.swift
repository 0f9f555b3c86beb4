import Synchronization

/// One subscriber of a subject, as the subject's delivery and the subscriber's subscription see it:
/// its demand, whether it has ended, and the calls the delivery makes into it.
///
/// It names neither the element type nor the subscriber's, so that `SubjectSubscription` is not
/// generic (a subscriber calls `request` and `cancel` through `any Subscription`, and the
/// witnesses of a generic class run unspecialized), and `SubjectDownstream`, the one subclass,
/// is made where the subscriber's type is known.
///
/// Everything here except the atomics is touched only by the thread that owns the subject's
/// delivery (see `SubjectCore`), so calls into the subscriber never overlap. `offer` is a
/// function stored at subscription time rather than a method: it is created where the
/// subscriber's type is known, so the delivery of a value is specialized for it (a class method
/// of a generic class always runs unspecialized). The rarer events, which would push the
/// subscriber out of the object's first cache line if they were stored functions too, are
/// methods.
///
/// A delivery reads these fields, `offer` and the subscriber, and they all sit in the first 64
/// bytes of the object: with many subscribers, each cache line more is a miss more per value.
@usableFromInline
class SubjectMember {
  /// What a subscription asks the subject to do for a member.
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
  // Fields with unchecked exclusivity skip the runtime check, which costs in "PassthroughSubject.send, 100 sinks, per delivery".
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

  // Hands the subscriber a value, which comes by pointer, as the subject's `Output`: a function
  // type that named `Output` would make this class generic, and would be called through a
  // reabstraction thunk (the stored function takes its argument indirectly, the specialized
  // closure directly), a second call per subscriber per value.
  @usableFromInline
  let offer: (SubjectMember, UnsafeRawPointer) -> Void

  @inlinable
  init(tracksCurrentValue: Bool, offer: @escaping (SubjectMember, UnsafeRawPointer) -> Void) {
    self.tracksCurrentValue = tracksCurrentValue
    awaitingCurrentValue = Atomic(tracksCurrentValue)
    owedCurrentValue = tracksCurrentValue
    self.offer = offer
  }

  /// `receive(subscription:)` has returned: delivers what waited for it.
  @usableFromInline
  func becomeReady() {}

  /// Demand came while the subscriber was owed the current value: delivers the value the subject
  /// broadcast last, unless the subscriber has had a value since.
  @usableFromInline
  func offerCurrentValue() {}

  /// Delivers the completion (once ready) and ends the subscription.
  @usableFromInline
  func finish(_ completion: SubjectState.Completion) {}

  /// Breaks the link with the subscription once the subscription has ended.
  @usableFromInline
  func unlink() {}

  /// Lets go of the subscription, which cancelled and has already forgotten this member.
  @usableFromInline
  func dropHandle() {}

  /// The subscriber and the subject's type, for the subscription's mirror; the subject's delivery may be
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

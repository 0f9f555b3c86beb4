import Synchronization

/// One subscriber of a subject, as the subject's delivery sees it.
///
/// Everything here except the atomics of `SubjectMember` is touched only by the thread that owns
/// the subject's delivery (see `SubjectCore`), so calls into the subscriber never overlap.
/// `offer` is a function stored at subscription time rather than a method: it is created where
/// the subscriber's type is known, so the delivery of a value is specialized for it (a class
/// method of a generic class always runs unspecialized). The rarer events, which would push the
/// subscriber out of the object's first cache line if they were stored functions too, are
/// methods.
@usableFromInline
class SubjectConduit<Output, Failure: Error>: SubjectMember, @unchecked Sendable {
  // The value comes by pointer: a function type that names `Output` directly would be called
  // through a reabstraction thunk (the stored function takes its argument indirectly, the
  // specialized closure directly), which costs a second call per subscriber per value.
  @usableFromInline
  let offer: (SubjectConduit<Output, Failure>, UnsafePointer<Output>) -> Void

  @inlinable
  init(
    tracksCurrentValue: Bool, offer: @escaping (SubjectConduit<Output, Failure>, UnsafePointer<Output>) -> Void
  ) {
    self.offer = offer
    super.init(tracksCurrentValue: tracksCurrentValue)
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
  func finish(_ completion: Subscribers.Completion<Failure>) {}

  /// Breaks the link with the handle once the subscription has ended.
  @usableFromInline
  func unlink() {}

  /// Lets go of the handle, which cancelled and has already forgotten this member.
  @usableFromInline
  func dropHandle() {}
}

/// The downstream and the upstream subscription of an operator's subscription once subscribed,
/// in one object that never changes.
///
/// An operator that keeps them in its locked state takes this object out for each value with one
/// retain and one release (`Locked.withRetained`), where copying the state's payload out would
/// copy the upstream subscription's existential and retain the downstream's references one by
/// one. The state drops the object when the stream completes or is cancelled; a call still
/// running keeps it until it returns.
/// `dropFirst`, `replaceError`, `retry` and `catch` share it; `retry` and `catch` make one per
/// upstream subscription.
@usableFromInline
final class SubscribedTargets<Downstream: Subscriber> {
  @usableFromInline
  let downstream: Downstream
  @usableFromInline
  let upstream: any Subscription

  @inlinable
  init(downstream: Downstream, upstream: any Subscription) {
    self.downstream = downstream
    self.upstream = upstream
  }
}

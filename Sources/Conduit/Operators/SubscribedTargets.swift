/// The downstream and the upstream subscription of an operator's subscription once subscribed,
/// in one object that never changes.
///
/// An operator that keeps them in its locked state takes this object out for each value with one
/// retain and one release (`Locked.withRetained`), where copying the state's payload out copied
/// the upstream subscription's existential and retained the downstream's references one by one. The state drops the object
/// when the stream completes or is cancelled; a call still running keeps it until it returns.
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

/// A subscriber in an object that never changes, for subscriptions that hand it to the thread
/// that delivers: one retain and one release per value however many references the subscriber
/// holds, or none where the subscription references the box unmanaged. `share(replay:)`'s
/// conduits and the combining operators (`merge`, `zip`, `combineLatest`) keep theirs in one.
@usableFromInline
final class DownstreamBox<Downstream> {
  @usableFromInline
  let downstream: Downstream

  @inlinable
  init(_ downstream: Downstream) {
    self.downstream = downstream
  }
}

/// What a flattening operator (`flatMap`, `switchToLatest`) takes out of its locked state when it
/// fails or is cancelled: the subscriptions to cancel, and what it lets go of after the lock (a
/// transform with what it captured, or a value held back, and the values not delivered), whose
/// deinits may call back into the same subscription.
@usableFromInline
struct DetachedState<Held, Value> {
  @usableFromInline
  var cancelled: [any Subscription] = []
  @usableFromInline
  var held: Held?
  @usableFromInline
  var backlog = ValueQueue<Value>()

  @inlinable
  init() {}
}

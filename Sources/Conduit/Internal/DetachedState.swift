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

/// Calls into a downstream subscriber through functions built in the caller's `@inlinable`
/// initializer, where every type is known.
///
/// An operator whose values arrive from its children (flatMap, switchToLatest) would otherwise
/// call the next operator of the same kind directly, and the optimizer refuses to specialize a
/// call from `Inner<U>` into `Inner<Wrapper<U>>` (it takes it for an endless specialization
/// loop), so every level after the first would run unspecialized generic code. Functions created
/// on the subscribe path carry no such chain of types.
@usableFromInline
struct DownstreamRelay<Downstream: Subscriber> {
  @usableFromInline
  let value: (Downstream, Downstream.Input) -> Subscribers.Demand
  @usableFromInline
  let completion: (Downstream, Subscribers.Completion<Downstream.Failure>) -> Void

  @inlinable
  init() {
    value = { downstream, value in downstream.receive(value) }
    completion = { downstream, completion in downstream.receive(completion: completion) }
  }
}

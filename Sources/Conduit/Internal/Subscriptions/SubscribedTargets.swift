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

/// The locked state of a subscription whose decisions are a state machine's: the machine, and
/// the downstream, kept beside it so that the call that takes delivery picks both up in one
/// critical section.
@usableFromInline
struct MachineAndDownstream<Machine, Downstream> {
  @usableFromInline
  var machine: Machine
  /// Until the completion goes out, or the downstream cancels.
  @usableFromInline
  var downstream: Downstream?

  @inlinable
  init(machine: Machine, downstream: Downstream) {
    self.machine = machine
    self.downstream = downstream
  }
}

/// A subscriber in an object that never changes, for subscriptions that hand it to the thread
/// that delivers: one retain and one release per value however many references the subscriber
/// holds, or none where the subscription references the box unmanaged. `share(replay:)`'s
/// conduits and the combining operators (`merge`, `zip`, `combineLatest`) keep theirs in one.
@usableFromInline
package final class DownstreamBox<Downstream> {
  @usableFromInline
  package let downstream: Downstream

  @inlinable
  package init(_ downstream: Downstream) {
    self.downstream = downstream
  }
}

import Synchronization

/// The ``StepSubscriber`` of an operator whose values may change type (`tryMap`, `decode` …).
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`). The link carries the step with the downstream: a step nested in its
/// publisher contains the upstream, but the link contains the next use's link, so it shrinks
/// from one use to the next.
@usableFromInline
final class FallibleInner<Types: FallibleLink>: StepSubscriber, CensusScoped, @unchecked Sendable
where Types.Downstream.Input == Types.Step.Emitted, Types.Downstream.Failure == Types.Step.Failure {
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Types.Failure
  @usableFromInline
  typealias Step = Types.Step
  @usableFromInline
  typealias Downstream = Types.Downstream

  @usableFromInline
  let downstream: Downstream
  // Touched only from upstream's calls, which never overlap (contract 3), so the runtime check
  // is skipped.
  @usableFromInline @exclusivity(unchecked)
  var step: Step
  @usableFromInline
  let subscription: StepSubscription<FallibleInner>
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(downstream: Downstream, step: Step) {
    census = CensusToken(FallibleInner.self, inheritingFrom: downstream)
    self.downstream = downstream
    self.step = step
    subscription = StepSubscription(inheritingFrom: downstream)
    subscription.inner = self
  }

  deinit {
    subscription.inner = nil
  }
}

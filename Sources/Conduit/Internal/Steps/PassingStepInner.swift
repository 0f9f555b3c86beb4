import Synchronization

/// The ``StepSubscriber`` of an operator that passes on values of the type it receives
/// (`removeDuplicates`, `output(in:)`), whose step is not nested in its publisher: generic over
/// the step and the downstream, a type that nests one level per use, as an operator that passes
/// on the values and errors it receives can (see `OperatorLink`).
@usableFromInline
final class PassingStepInner<Step: FallibleStep, Downstream: Subscriber>: StepSubscriber, CensusScoped
where Downstream.Input == Step.Emitted, Downstream.Failure == Step.Failure {
  @usableFromInline
  typealias Input = Step.Input
  @usableFromInline
  typealias Failure = Step.UpstreamFailure

  @usableFromInline
  let downstream: Downstream
  // Fields with unchecked exclusivity skip the runtime check, which costs in "(0..<N).publisher -> map -> filter -> … -> sink".
  // Touched only from upstream's calls, which never overlap (contract 3), so the runtime check
  // is skipped.
  @usableFromInline @exclusivity(unchecked)
  var step: Step
  @usableFromInline
  let subscription: StepSubscription<PassingStepInner>
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(downstream: Downstream, step: Step) {
    census = CensusToken(PassingStepInner.self, inheritingFrom: downstream)
    self.downstream = downstream
    self.step = step
    subscription = StepSubscription(inheritingFrom: downstream)
    subscription.inner = self
  }

  deinit {
    subscription.inner = nil
  }
}

import Synchronization

/// The `FallibleLink` of a subscriber that runs `Step` and sends on to `Downstream`. Never
/// instantiated.
@usableFromInline
enum FallibleTypes<Step: FallibleStep, Downstream: Subscriber>: FallibleLink {
  @usableFromInline
  typealias Input = Step.Input
  @usableFromInline
  typealias Failure = Step.UpstreamFailure
}

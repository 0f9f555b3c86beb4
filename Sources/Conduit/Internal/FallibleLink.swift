import Synchronization

/// The `OperatorLink` of a ``FallibleInner``: also names the step it runs.
@usableFromInline
protocol FallibleLink: OperatorLink where Input == Step.Input, Failure == Step.UpstreamFailure {
  /// The per-operator part of the subscriber.
  associatedtype Step: FallibleStep
}

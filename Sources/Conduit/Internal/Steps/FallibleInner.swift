import Synchronization

/// The ``StepSubscriber`` of an operator whose values may change type (`tryMap`, `decode` …).
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`). The link carries the step with the downstream: a step nested in its
/// publisher contains the upstream, but the link contains the next use's link, so it shrinks
/// from one use to the next.
@usableFromInline
final class FallibleInner<Types: FallibleLink>: StepSubscriber, CensusScoped
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
  // Fields with unchecked exclusivity skip the runtime check, which costs in "tryMap, prefix, dropFirst, output(in:), mapError, 3 x each".
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

/// The `OperatorLink` of a ``FallibleInner``: also names the step it runs.
@usableFromInline
protocol FallibleLink: OperatorLink where Input == Step.Input, Failure == Step.UpstreamFailure {
  /// The per-operator part of the subscriber.
  associatedtype Step: FallibleStep
}

/// The `FallibleLink` of a subscriber that runs `Step` and sends on to `Downstream`. Never
/// instantiated.
@usableFromInline
enum FallibleTypes<Step: FallibleStep, Downstream: Subscriber>: FallibleLink {
  @usableFromInline
  typealias Input = Step.Input
  @usableFromInline
  typealias Failure = Step.UpstreamFailure
}

/// The per-operator part of a ``FallibleInner``: what one upstream value becomes, and any state
/// carried from one value to the next. Only the inner's serialized calls touch it.
@usableFromInline
protocol FallibleStep {
  /// The kind of values received from upstream.
  associatedtype Input
  /// The kind of values sent downstream.
  associatedtype Emitted
  /// The kind of errors received from upstream.
  associatedtype UpstreamFailure: Error
  /// The kind of errors sent downstream; `step` throws them to fail the stream.
  associatedtype Failure: Error

  /// The operator's name, the inner's `description`.
  static var name: String { get }

  /// Which of Combine's subscriptions the inner behaves as.
  static var kind: CombineSubscriptionKind { get }

  /// The children of the inner's `customMirror`, as Combine's subscription of the operator has
  /// them; `step` is `nil` once the stream has ended.
  static func mirrorChildren(of step: Self?, _ inner: FallibleReflection) -> [Mirror.Child]

  /// Handles one upstream value; a thrown error cancels upstream and fails the stream.
  mutating func step(_ input: Input) throws(Failure) -> FallibleStepResult<Emitted>

  /// The failure sent downstream for a failure from upstream.
  static func failure(_ failure: UpstreamFailure) -> Failure
}

extension FallibleStep where Failure == any Error {
  @usableFromInline
  static func failure(_ failure: UpstreamFailure) -> any Error { failure }
}

/// What a ``FallibleStep`` makes of one upstream value.
@usableFromInline
enum FallibleStepResult<Output> {
  /// Send this value downstream.
  case emit(Output)
  /// Send nothing and ask upstream for one more in place of the value.
  case drop
  /// Cancel upstream and finish the stream.
  case finish
}

/// What a ``FallibleInner`` shows in its `customMirror`, for its step to choose from: Combine's
/// subscriptions of the operators show different parts of themselves.
@usableFromInline
struct FallibleReflection {
  /// The subscriber, or `nil` once let go of.
  @usableFromInline
  let downstream: Any
  /// Whether the stream has ended.
  @usableFromInline
  let finished: Bool
  /// The phase's name: `awaitingSubscription`, `subscribed` or `terminal`.
  @usableFromInline
  let status: String
  /// Upstream's subscription, or `nil` before it arrives.
  @usableFromInline
  let upstream: Any

  @inlinable
  init(downstream: Any, finished: Bool, status: String, upstream: Any) {
    self.downstream = downstream
    self.finished = finished
    self.status = status
    self.upstream = upstream
  }
}

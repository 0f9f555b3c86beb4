import Synchronization

// Steps: one-to-one operators whose per-value work (the step) may change the type, throw or end
// the stream (`tryMap`, `decode`, `removeDuplicates`, `prefix(while:)`, `output(in:)` …).
//
// - `OperatorLink.swift`: the one generic parameter that names an operator subscriber's types.
// - `StepSubscriber.swift`: the subscriber upstream holds; implements the calls once.
// - `StepSubscription.swift`: the subscription downstream holds; where the stream stands.
// - `FallibleInner.swift`: the step protocol (`FallibleStep`) and the subscriber of steps that
//   change the type; `PassingStepInner.swift` the one of steps that pass values on.

/// The subscriber a one-to-one operator whose step may end the stream (`tryMap`,
/// `prefix(while:)`, `removeDuplicates`, `output(in:)`, `decode`…) gives upstream. It holds what
/// upstream's calls use (the subscriber, the step); its ``StepSubscription``, which downstream
/// gets as its subscription, as in Combine, holds where the stream stands and upstream's
/// subscription. The calls are implemented once, here; ``FallibleInner`` and
/// ``PassingStepInner`` store what they use.
///
/// Upstream alone holds the subscriber, so the downstream and the step go when upstream lets go
/// of it: at its completion, or when it is cancelled, even if downstream keeps the cancelled
/// subscription. They are stored in a `let` and a plain `var`, not optionals, so that a value
/// reaches the downstream without a retain, and the deinit, which runs unspecialized, has no
/// generic optional to look up.
///
/// To whoever reaches it as a subscription (only a test can, before upstream's subscription
/// arrives) it is its subscription; it is described and reflected as its subscription is.
@usableFromInline
protocol StepSubscriber: AnyObject, Subscriber, Subscription, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
where Input == Step.Input, Failure == Step.UpstreamFailure {
  /// The per-operator part.
  associatedtype Step: FallibleStep
  /// The subscriber it sends on to.
  associatedtype Downstream: Subscriber where Downstream.Input == Step.Emitted, Downstream.Failure == Step.Failure

  /// The subscriber; touched only from upstream's calls.
  var downstream: Downstream { get }
  /// The step; touched only from upstream's calls, which never overlap (contract 3).
  var step: Step { get set }
  /// The subscription downstream gets.
  var subscription: StepSubscription<Self> { get }
}

extension StepSubscriber {
  @usableFromInline
  var description: String { subscription.description }
  @usableFromInline
  var playgroundDescription: Any { subscription.playgroundDescription }
  @usableFromInline
  var customMirror: Mirror { subscription.customMirror }

  // MARK: Upstream's serialized calls

  @usableFromInline
  func receive(subscription upstream: any Subscription) {
    guard subscription.accept(upstream) else { return }
    downstream.receive(subscription: subscription)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    if !subscription.phase.isSubscribed, !subscription.phase.admitsValue(Step.kind) { return .none }
    let result: FallibleStepResult<Step.Emitted>
    do throws(Step.Failure) {
      result = try step.step(input)
    } catch {
      end(.failure(error))
      return .none
    }
    switch result {
    case .emit(let output): return downstream.receive(output)
    case .drop: return .max(1)
    case .finish: end(.finished)
    }
    return .none
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    guard subscription.phase.admitsCompletion(Step.kind) else { return }
    downstream.receive(completion: completion.mapFailure { Step.failure($0) })
  }

  /// Cancels upstream and completes downstream, unless downstream has cancelled (or, for some
  /// operators, the subscription is still to come: see `CombineSubscriptionKind`).
  @usableFromInline
  func end(_ completion: Subscribers.Completion<Step.Failure>) {
    guard let ending = subscription.phase.end(Step.kind) else { return }
    if ending.cancelsUpstream { subscription.upstream?.cancel() }
    if ending.completesDownstream { downstream.receive(completion: completion) }
  }

  // MARK: Subscription (only a test reaches these: see above)

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    subscription.request(demand)
  }

  @usableFromInline
  func cancel() {
    subscription.cancel()
  }
}

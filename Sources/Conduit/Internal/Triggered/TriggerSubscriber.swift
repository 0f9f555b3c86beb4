/// Receives the events of the second publisher of `drop(untilOutputFrom:)` and
/// `prefix(untilOutputFrom:)` on behalf of the operator's subscription, `target`.
///
/// It describes and reflects itself as its target does, and not at all when the target does
/// not (Combine's `prefix(untilOutputFrom:)` gives neither a description).
@usableFromInline
struct TriggerSubscriber<Target: TriggerTarget, Input>: Subscriber {
  @usableFromInline
  typealias Failure = Target.TriggerFailure

  @usableFromInline
  let target: Target

  @inlinable
  init(target: Target) {
    self.target = target
  }

  @usableFromInline
  var combineIdentifier: CombineIdentifier { target.combineIdentifier }

  @usableFromInline
  func receive(subscription: any Subscription) { target.triggerReceive(subscription: subscription) }
  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand { target.triggerFired() }
  @usableFromInline
  func receive(completion: Subscribers.Completion<Target.TriggerFailure>) { target.triggerCompleted(completion) }
}

extension TriggerSubscriber: CustomStringConvertible where Target: CustomStringConvertible {
  @usableFromInline
  var description: String { target.description }
}

extension TriggerSubscriber: CustomReflectable where Target: CustomReflectable {
  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
}

extension TriggerSubscriber: CustomPlaygroundDisplayConvertible where Target: CustomPlaygroundDisplayConvertible {
  @usableFromInline
  var playgroundDescription: Any { target.playgroundDescription }
}

extension TriggerSubscriber: CensusTransparent {
  /// What is created on this subscriber's behalf joins the census scope of its target.
  @usableFromInline
  var censusWrapped: Any? { target }
}

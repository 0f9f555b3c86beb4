/// The subscription that owns `ChildSubscriber`s: one operator subscription that subscribes to
/// inner publishers on the downstream's behalf (`flatMap`, `switchToLatest`).
@usableFromInline
protocol ChildSubscriberParent: AnyObject, CensusScoped, CustomStringConvertible, CustomCombineIdentifierConvertible {
  /// The kind of values the inner publishers send.
  associatedtype ChildInput
  /// The kind of errors the inner publishers send.
  associatedtype ChildFailure: Error

  /// The inner publisher of child `id` sent its subscription.
  func childSubscribed(_ id: Int, _ subscription: any Subscription)
  /// The inner publisher of child `id` sent a value; returns the demand to ask of it.
  func childReceived(_ id: Int, _ value: ChildInput) -> Subscribers.Demand
  /// The inner publisher of child `id` completed.
  func childCompleted(_ id: Int, _ completion: Subscribers.Completion<ChildFailure>)
}

/// What a `TriggerSubscriber` reports the second publisher's events to.
@usableFromInline
protocol TriggerTarget: AnyObject, CustomCombineIdentifierConvertible {
  /// The kind of errors the second publisher sends.
  associatedtype TriggerFailure: Error

  /// The second publisher sent its subscription.
  func triggerReceive(subscription: any Subscription)
  /// The second publisher sent a value; returns the demand to ask of it.
  func triggerFired() -> Subscribers.Demand
  /// The second publisher completed.
  func triggerCompleted(_ completion: Subscribers.Completion<TriggerFailure>)
}

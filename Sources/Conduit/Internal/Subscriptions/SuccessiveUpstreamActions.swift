/// What an operator that subscribes to one upstream after another (`catch`, `tryCatch`, `retry`,
/// `append`/`prepend`) does with a subscription that arrives, once its lock is released.
enum SuccessiveSubscriptionAction<Downstream> {
  /// The first upstream's subscription is kept: hand the operator's subscription to the
  /// downstream.
  case handDown(Downstream)
  /// A later upstream's subscription is kept: ask it for the demand the one before left.
  case request(Subscribers.Demand)
  /// A later upstream's subscription is kept, and no demand is left to ask it for.
  case none
  /// Not wanted (a second one from the same upstream, or one after the end): cancel it.
  case cancel
}

extension SuccessiveSubscriptionAction where Downstream: Subscriber {
  /// Performs the action for `subscription`, handing `own` down when it is the first.
  func perform(for subscription: any Subscription, handingDown own: some Subscription) {
    switch self {
    case .handDown(let downstream): downstream.receive(subscription: own)
    case .request(let demand): subscription.request(demand)
    case .none: break
    case .cancel: subscription.cancel()
    }
  }
}

/// What such an operator does with the downstream's request, once counted.
enum SuccessiveRequestAction<Current> {
  /// Pass it on to the current upstream.
  case forward(Current)
  /// No upstream subscription is current, or the stream has ended: nothing (what was counted is
  /// asked of the next upstream when its subscription arrives).
  case none
}

/// What such an operator does with the downstream's cancel.
enum SuccessiveCancelAction<Current, Ended> {
  /// Already ended: nothing.
  case none
  /// Cancel the current upstream, if a subscription is current, then let go of what the stream
  /// held (`ended`), after the lock: the deinits of the downstream and of the user's closures may
  /// call back into the subscription.
  case cancel(Current?, ended: Ended)
}

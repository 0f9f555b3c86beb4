import Conduit

/// What a subscription was asked to do.
enum SubscriptionEvent: Equatable {
  case requested(Subscribers.Demand)
  case cancelled
}

import Conduit

/// What a subscription was asked to do.
enum SubscriptionEvent: Equatable {
  case requested(Subscribers.Demand)
  case cancelled
}

extension [SubscriptionEvent] {
  /// The demands requested, in order.
  var requests: [Subscribers.Demand] {
    compactMap { event in
      guard case .requested(let demand) = event else { return nil }
      return demand
    }
  }

  /// How many times the subscription was cancelled.
  var cancelCount: Int { count(where: { $0 == .cancelled }) }
}

import Conduit

/// The description of `subscription`, if there is one.
func subscriptionDescription(_ subscription: (any Subscription)?) -> String? {
  subscription.map { String(describing: $0) }
}

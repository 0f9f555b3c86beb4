import Synchronization

/// A subscription whose `request` and `cancel` forward to specialized code; see
/// `SubscriptionRequest`.
@usableFromInline
protocol SubscriptionRequestHandler: AnyObject {
  func handleDemand(_ demand: Subscribers.Demand)
  func handleCancel()
}

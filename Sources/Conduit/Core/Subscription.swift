/// A protocol representing the connection of a subscriber to a publisher.
///
/// Subscriptions carry demand from the subscriber to the publisher, and cancelling one releases
/// the resources the publisher allocated for the subscriber.
///
/// ```swift
/// func receive(subscription: any Subscription) {
///     subscription.request(.max(1))
/// }
/// ```
public protocol Subscription: Cancellable, CustomCombineIdentifierConvertible {
  /// Tells a publisher that it may send more values to the subscriber.
  ///
  /// Demand adds up. Requesting `.none` is a programming error.
  func request(_ demand: Subscribers.Demand)
}

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

/// A namespace for symbols related to subscriptions.
public enum Subscriptions {
  /// Returns the "empty" subscription: one that ignores requests and cancellation.
  ///
  /// Publishers use it for subscribers that must be told they have subscribed before they
  /// immediately receive a completion.
  ///
  /// ```swift
  /// subscriber.receive(subscription: Subscriptions.empty)
  /// subscriber.receive(completion: .finished)
  /// ```
  public static var empty: any Subscription { EmptySubscription.shared }
}

/// Described, reflected and shown in playgrounds as Combine's empty subscription is: "Empty",
/// with no children.
private final class EmptySubscription: Subscription, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible, Sendable
{
  static let shared = EmptySubscription()
  var description: String { "Empty" }
  var customMirror: Mirror { Mirror(self, children: [:]) }
  var playgroundDescription: Any { description }
  func request(_ demand: Subscribers.Demand) {}
  func cancel() {}
}

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

import Synchronization

/// What a subscriber asks of its subscription.
///
/// Subscribers hold their subscription as `any Subscription`, and a call through a protocol
/// witness of a generic class runs unspecialized, looking up generic metadata at every step.
/// Subscriptions therefore store one function, created in their `@inlinable` initializer where
/// every type is known, and their witnesses only forward to it.
@usableFromInline
enum SubscriptionRequest {
  case demand(Subscribers.Demand)
  case cancel
}

extension SubscriptionRequest {
  /// The function a subscription stores as its `handle`. Built in the subscription's `@inlinable`
  /// initializer, where `Handler` is concrete, so the calls it makes are specialized.
  @inlinable
  static func dispatcher<Handler: SubscriptionRequestHandler>() -> @Sendable (Handler, SubscriptionRequest) -> Void {
    { handler, request in
      switch request {
      case .demand(let demand): handler.handleDemand(demand)
      case .cancel: handler.handleCancel()
      }
    }
  }
}

/// A subscription whose `request` and `cancel` forward to specialized code; see
/// `SubscriptionRequest`.
@usableFromInline
protocol SubscriptionRequestHandler: AnyObject, SendableMetatype {
  func handleDemand(_ demand: Subscribers.Demand)
  func handleCancel()
}

extension Subscribers.Demand {
  /// Contract 2: requesting nothing is a programming error.
  @inlinable
  package func assertPositive(file: StaticString = #file, line: UInt = #line) {
    precondition(
      rawValue > 0,
      "Subscription.request(.none): a subscriber must request a positive demand (.max(n) with n > 0, or .unlimited)",
      file: file, line: line)
  }
}

import Conduit

/// Requests `requestFirst`, then cancels, from inside `receive(subscription:)`; records anything
/// that arrives afterwards.
final class RequestThenCancelSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
  let combineIdentifier = CombineIdentifier()
  let requestFirst: Subscribers.Demand
  private(set) var events: [String] = []

  init(requestFirst: Subscribers.Demand) { self.requestFirst = requestFirst }

  func receive(subscription: any Subscription) {
    if requestFirst > 0 { subscription.request(requestFirst) }
    subscription.cancel()
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    events.append("value \(input)")
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) { events.append("completion") }
}

import Conduit

/// Asks for `.unlimited`, records the subscription, and subscribes itself again from inside
/// `receive(subscription:)` until it has ten.
final class ResubscribingSubscriber: Subscriber {
  typealias Input = Int
  typealias Failure = Never

  let subscribeAgain: (ResubscribingSubscriber) -> Void
  private(set) var subscriptions: [any Subscription] = []
  private(set) var values: [Int] = []

  init(subscribe: @escaping (ResubscribingSubscriber) -> Void) {
    subscribeAgain = subscribe
  }

  func receive(subscription: any Subscription) {
    subscription.request(.unlimited)
    subscriptions.append(subscription)
    if subscriptions.count < 10 { subscribeAgain(self) }
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    values.append(input)
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    subscriptions = []
  }
}

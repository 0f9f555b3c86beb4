import Conduit

/// Records every call it gets, and runs the given closures from inside them.
final class ReentrantSubscriber<Input, Failure: Error>: Subscriber {
  let onSubscription: (any Subscription) -> Void
  let onValue: (any Subscription) -> Void
  let returningFor: (Input) -> Subscribers.Demand
  private(set) var subscription: (any Subscription)?
  private(set) var calls: [String] = []

  init(
    onSubscription: @escaping (any Subscription) -> Void,
    onValue: @escaping (any Subscription) -> Void = { _ in },
    returning: Subscribers.Demand = .none
  ) {
    self.onSubscription = onSubscription
    self.onValue = onValue
    returningFor = { _ in returning }
  }

  init(
    onSubscription: @escaping (any Subscription) -> Void,
    returningFor: @escaping (Input) -> Subscribers.Demand
  ) {
    self.onSubscription = onSubscription
    onValue = { _ in }
    self.returningFor = returningFor
  }

  func receive(subscription: any Subscription) {
    calls.append("subscription")
    self.subscription = subscription
    onSubscription(subscription)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    calls.append("\(input)")
    if let subscription { onValue(subscription) }
    return returningFor(input)
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    calls.append(completion.isFinished ? "finished" : "failure")
    subscription = nil
  }
}

import Conduit

/// A hand-written subscriber that asks for two values at a time.
private final class TwoAtATime: Subscriber {
  typealias Input = Int
  typealias Failure = Never

  private var receivedSinceRequest = 0
  private let stopAfter: Int?
  private var total = 0
  private var subscription: (any Subscription)?

  /// Asks for more after every second value, until `stopAfter` values have arrived.
  init(stopAfter: Int? = nil) {
    self.stopAfter = stopAfter
  }

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    show("subscribed; request(\(Subscribers.Demand.max(2)))")
    subscription.request(.max(2))
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    total += 1
    receivedSinceRequest += 1
    show("value \(input)")
    guard receivedSinceRequest == 2 else { return .none }
    receivedSinceRequest = 0
    if let stopAfter, total >= stopAfter {
      show("has what it wants; asks for nothing more")
      return .none
    }
    show("returns \(Subscribers.Demand.max(2)) from receive(_:): two more, please")
    return .max(2)
  }

  func receive(completion: Subscribers.Completion<Never>) {
    show("completion: \(completion)")
    subscription = nil
  }

  func cancel() {
    show("cancel()")
    subscription?.cancel()
    subscription = nil
  }
}

extension Page {
  static let demand = Page(name: "demand", title: "a subscriber that asks for two values at a time") {
    say(
      "Demand is how a subscriber pushes back. It asks its subscription for a number of values;",
      "the publisher never sends more than the total asked so far. sink always asks for",
      ".unlimited, so we write a Subscriber by hand to see demand at work.")

    say("receive(subscription:) asks for 2. Each receive(_:) may return more demand, which adds up.")
    (1...5).publisher.subscribe(TwoAtATime())

    say(
      "A subscriber that stops asking gets nothing more: no values, and no completion either,",
      "because the sequence has not ended. It cancels to let the publisher go.")
    let stopping = TwoAtATime(stopAfter: 2)
    (1...100).publisher.subscribe(stopping)
    stopping.cancel()
  }
}

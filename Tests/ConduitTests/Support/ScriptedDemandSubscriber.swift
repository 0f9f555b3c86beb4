import Conduit

/// Requests `initial` (nothing for `nil`) on subscription and returns the demands of `returned`
/// in turn from its values, then `.none`.
final class ScriptedDemandSubscriber<Input, Failure: Error>: Subscriber {
  let initial: Subscribers.Demand?
  let returned: [Subscribers.Demand]
  private(set) var subscriptions = 0
  private(set) var values: [Input] = []
  private(set) var completions: [Subscribers.Completion<Failure>] = []

  init(initial: Subscribers.Demand?, returned: [Subscribers.Demand]) {
    self.initial = initial
    self.returned = returned
  }

  func receive(subscription: any Subscription) {
    subscriptions += 1
    if let initial { subscription.request(initial) }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    defer { values.append(input) }
    return values.count < returned.count ? returned[values.count] : .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    completions.append(completion)
  }
}

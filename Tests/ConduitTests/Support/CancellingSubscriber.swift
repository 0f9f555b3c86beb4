import Conduit

/// Cancels its subscription at once (unless told not to), and records what it gets, with the
/// subscription's description.
final class CancellingSubscriber<Input, Failure: Error>: Subscriber {
  let cancels: Bool
  private(set) var calls: [String] = []

  init(cancels: Bool = true) {
    self.cancels = cancels
  }

  func receive(subscription: any Subscription) {
    calls.append("subscription \(subscription)")
    if cancels { subscription.cancel() }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    calls.append("\(input)")
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    calls.append(completion.isFinished ? "finished" : "failure")
  }
}

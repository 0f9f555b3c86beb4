import Conduit

/// A subscriber that records everything it receives as text, without judging it (unlike
/// `TestSubscriber`, which flags what breaks the contracts), and keeps the latest subscription it
/// was given, so a test can still request or cancel through it after a completion or a cancel.
///
/// `history` reads `"subscription(<the subscription's description>)"`, `"value(<value>)"`,
/// `"finished"`, `"failure(<error>)"`, and whatever the test adds with `note(_:)`.
final class RecordingSubscriber<Input, Failure: Error>: Subscriber, CustomStringConvertible, @unchecked Sendable {
  private(set) var history: [String] = []
  private(set) var subscription: (any Subscription)?
  private let initialDemand: Subscribers.Demand
  private let demandPerValue: Subscribers.Demand
  /// Runs when a subscription arrives, after it is recorded and before the initial demand is
  /// requested.
  var onSubscription: ((any Subscription) -> Void)?
  /// Runs for each value, after it is recorded; what it returns is the demand answered, in place
  /// of `demandPerValue`.
  var onValue: ((Input) -> Subscribers.Demand)?
  /// Runs at the first completion, before it is recorded.
  var onCompletion: ((Subscribers.Completion<Failure>) -> Void)?
  let combineIdentifier = CombineIdentifier()

  /// - Parameters:
  ///   - initialDemand: requested of each subscription it receives; `.none` requests nothing.
  ///   - demandPerValue: the demand answered for each value, unless `onValue` is set.
  init(initialDemand: Subscribers.Demand = .none, demandPerValue: Subscribers.Demand = .none) {
    self.initialDemand = initialDemand
    self.demandPerValue = demandPerValue
  }

  var description: String { "RecordingSubscriber" }

  /// Adds a line of the test's own to the history.
  func note(_ line: String) { history.append(line) }

  func receive(subscription: any Subscription) {
    history.append("subscription(\(subscription))")
    self.subscription = subscription
    onSubscription?(subscription)
    if initialDemand > 0 { subscription.request(initialDemand) }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    history.append("value(\(input))")
    return onValue?(input) ?? demandPerValue
  }

  /// Lets go of the hooks (which may hold the pipeline or this subscriber) before running
  /// `onCompletion`; keeps the subscription.
  func receive(completion: Subscribers.Completion<Failure>) {
    let hook = onCompletion
    onSubscription = nil
    onValue = nil
    onCompletion = nil
    hook?(completion)
    switch completion {
    case .finished: history.append("finished")
    case .failure(let error): history.append("failure(\(error))")
    }
  }

  /// Lets go of the subscription and the hooks, which may hold the pipeline.
  func forget() {
    subscription = nil
    onSubscription = nil
    onValue = nil
    onCompletion = nil
  }
}

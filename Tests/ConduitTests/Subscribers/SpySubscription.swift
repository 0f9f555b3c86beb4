import Conduit

/// A subscription that records what is asked of it, for tests that hand one to a subscriber or
/// a subject by hand: what a sink or an assign subscriber requests, what a subject asks of an
/// upstream subscription it was given. Not locked: each test calls it from one thread. For the
/// requests and cancels as one ordered list, see `RecordingSubscription` in
/// `Contracts/ParityDoubles.swift`.
final class SpySubscription: Subscription {
  /// The demands requested, in order.
  private(set) var requests: [Subscribers.Demand] = []
  /// How many times it was cancelled.
  private(set) var cancelCount = 0

  func request(_ demand: Subscribers.Demand) { requests.append(demand) }
  func cancel() { cancelCount += 1 }
}

import Conduit

/// A subscription that records what is asked of it, for tests that hand one to a subscriber or
/// a subject by hand: what a sink or an assign subscriber requests, what a subject asks of an
/// upstream subscription it was given, and the subscription `ReducingUpstream` hands out. Not
/// locked: each test calls it from one thread.
///
/// The other subscription spies: `RecordingSubscription` records the requests and cancels as one
/// ordered list and describes itself by name, for tests that compare a subscriber's history as
/// text; `LockedSpySubscription` (Contracts/DemandHandOverStressTests.swift) takes a lock, for
/// stress tests that call it from several threads.
final class SpySubscription: Subscription {
  /// The demands requested, in order.
  private(set) var requests: [Subscribers.Demand] = []
  /// How many times it was cancelled.
  private(set) var cancelCount = 0

  func request(_ demand: Subscribers.Demand) { requests.append(demand) }
  func cancel() { cancelCount += 1 }
}

import Conduit

/// A subscription that only records what it is asked: the second or late subscription an
/// upstream hands its subscriber. It keeps the requests and cancels as one ordered list and is
/// described as "RecordingSubscription" in a `RecordingSubscriber`'s history; for the requests
/// and a count of cancels, see `SpySubscription`.
final class RecordingSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
  /// The requests and cancels, in order.
  private(set) var events: [SubscriptionEvent] = []
  let combineIdentifier = CombineIdentifier()

  var description: String { "RecordingSubscription" }

  func request(_ demand: Subscribers.Demand) { events.append(.requested(demand)) }

  func cancel() { events.append(.cancelled) }
}

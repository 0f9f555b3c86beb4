import Conduit

/// The one subscription spy of the test suites: a subscription that only records what it is
/// asked, for a test to compare with what an operator, a subscriber or a subject should have
/// asked of its upstream.
///
/// A test hands one to a subscriber or a subject by hand (also as the second or late subscription
/// a careless upstream sends), and `HandDrivenUpstream` hands one to each of its subscribers. It
/// describes itself by `name`, so a subscriber's or an operator's history that shows the
/// subscription it was given reads the same in every test. It takes a lock, so a stress test may
/// request and cancel from several threads; `onEvent` runs after the lock is released, so it may
/// call back into the spy.
final class SpySubscription: Subscription, CustomStringConvertible, CustomPlaygroundDisplayConvertible,
  @unchecked Sendable
{
  // Guards the events.
  private let state = Locked([SubscriptionEvent]())
  /// What the spy describes itself as.
  let name: String
  private let onEvent: ((SpySubscription, SubscriptionEvent) -> Void)?

  /// - Parameters:
  ///   - name: what it describes itself as.
  ///   - onEvent: runs inside `request(_:)` and `cancel()`, after the event is recorded; it is how
  ///     `HandDrivenUpstream` learns what its subscribers ask.
  init(name: String = "SpySubscription", onEvent: ((SpySubscription, SubscriptionEvent) -> Void)? = nil) {
    self.name = name
    self.onEvent = onEvent
  }

  var description: String { name }
  var playgroundDescription: Any { name }

  /// The requests and cancels, in order.
  var events: [SubscriptionEvent] { state.withLock { $0 } }

  /// The demands requested, in order.
  var requests: [Subscribers.Demand] { events.requests }

  /// The sum of the demand requested.
  var requested: Subscribers.Demand { requests.reduce(.none, +) }

  /// How many times it was cancelled.
  var cancelCount: Int { events.cancelCount }

  var isCancelled: Bool { cancelCount > 0 }

  func request(_ demand: Subscribers.Demand) { record(.requested(demand)) }

  func cancel() { record(.cancelled) }

  private func record(_ event: SubscriptionEvent) {
    state.withLock { $0.append(event) }
    onEvent?(self, event)
  }
}

/// Whether `subscription` is `spy`: what a state machine hands back is the spy it was given.
func same(_ subscription: (any Subscription)?, _ spy: SpySubscription) -> Bool {
  (subscription as? SpySubscription) === spy
}

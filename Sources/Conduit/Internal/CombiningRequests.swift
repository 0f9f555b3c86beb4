import Synchronization

/// What the owner of a `CombiningSubscription` asks of the upstreams once it has let go, so
/// that a synchronous upstream delivers through the uncontended path rather than into the inbox.
@usableFromInline
struct CombiningRequests {
  /// Asked of every upstream in `targets` except the one whose `receive(_:)` is on the stack.
  @usableFromInline
  var ask = Subscribers.Demand.none
  /// The upstreams when the owner let go.
  @usableFromInline
  var targets: [(any Subscription)?] = []
  /// The first request of upstreams that subscribed.
  @usableFromInline
  var starts: [(any Subscription, Subscribers.Demand)] = []

  @inlinable
  init() {}

  /// Makes the requests; `side` is the upstream whose `receive(_:)` is on the stack, if its share
  /// of `ask` is returned from that call instead.
  @inlinable
  func send(except side: Int?) {
    for (subscription, demand) in starts { subscription.request(demand) }
    if ask > 0 {
      for (index, upstream) in targets.enumerated() where index != side { upstream?.request(ask) }
    }
  }
}

import Conduit

/// An upstream subscription that asks nothing and runs `onDeinit` in its `deinit`, for tests that
/// hand it to a subscriber or a subject by hand.
final class DeinitSubscription: Subscription {
  let onDeinit: () -> Void

  init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }

  func request(_ demand: Subscribers.Demand) {}
  func cancel() {}

  deinit { onDeinit() }
}

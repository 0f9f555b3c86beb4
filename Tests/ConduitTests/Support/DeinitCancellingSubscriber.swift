import Conduit
import ConduitTesting

/// A subscriber that cancels its subscription in its `deinit`, a common clean-up, and asks for
/// nothing. Its subscription lives in `holder`, not in the subscriber, so that the publisher's
/// subscription can hold the last reference to it: a test cancels through `holder` and checks
/// that the subscription let go of the subscriber after its lock, not under it.
final class DeinitCancellingSubscriber<Input, Failure: Error>: Subscriber {
  /// Where the subscription lives, and whether the `deinit` ran.
  final class Holder {
    var subscription: (any Subscription)?
    var cancelledInDeinit = false
  }

  let holder: Holder
  let combineIdentifier = CombineIdentifier()

  init(holder: Holder) { self.holder = holder }

  func receive(subscription: any Subscription) { holder.subscription = subscription }
  func receive(_ input: Input) -> Subscribers.Demand { .none }
  func receive(completion: Subscribers.Completion<Failure>) {}

  deinit {
    holder.subscription?.cancel()
    holder.cancelledInDeinit = true
  }
}

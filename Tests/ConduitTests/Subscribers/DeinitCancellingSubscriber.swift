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

/// An object that runs `onDeinit` in its `deinit`: a value, or what a closure captures, that
/// calls back into the pipeline it is let go of by.
final class DeinitProbe {
  let onDeinit: () -> Void

  init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }

  deinit { onDeinit() }
}

/// An upstream subscription that asks nothing and runs `onDeinit` in its `deinit`, for tests that
/// hand it to a subscriber or a subject by hand.
final class DeinitSubscription: Subscription {
  let onDeinit: () -> Void

  init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }

  func request(_ demand: Subscribers.Demand) {}
  func cancel() {}

  deinit { onDeinit() }
}

/// Gives `subject` an upstream subscription that nothing else holds and whose `deinit` completes
/// the subject again, sends 1, then completes the subject, which lets go of its upstream
/// subscriptions. Returns whether the `deinit` ran, and a subscriber that was subscribed
/// throughout. The subscription used to be let go of under the subject's lock, and the `deinit`
/// stopped the process on the lock taken twice.
func completeWithAnUpstreamThatUsesTheSubjectInItsDeinit<S: Subject>(
  _ subject: S
) -> (completedInDeinit: Bool, subscriber: TestSubscriber<Int, Never>) where S.Output == Int, S.Failure == Never {
  let subscriber = TestSubscriber<Int, Never>()
  subject.subscribe(subscriber)
  var completedInDeinit = false
  subject.send(
    subscription: DeinitSubscription {
      subject.send(completion: .finished)
      completedInDeinit = true
    })
  subject.send(1)
  subject.send(completion: .finished)
  return (completedInDeinit, subscriber)
}

import Conduit

/// Forwards everything to `downstream` and counts itself into `released` in its `deinit`.
///
/// The test keeps `downstream` and lets the publisher hold the only reference to this
/// subscriber. So once `released` has counted it, the publisher has let go of it (DESIGN.md
/// §2.7), and nothing more can reach `downstream`, not even a delivery that was still running on
/// another thread: a test awaits that, instead of waiting on the clock, before it counts what
/// arrived after a cancel or the completion.
final class ReleaseCountingSubscriber<Downstream: Subscriber>: Subscriber {
  typealias Input = Downstream.Input
  typealias Failure = Downstream.Failure

  private let downstream: Downstream
  private let released: AwaitableCount

  init(_ downstream: Downstream, released: AwaitableCount) {
    self.downstream = downstream
    self.released = released
  }

  deinit { released.increment() }

  func receive(subscription: any Subscription) { downstream.receive(subscription: subscription) }

  func receive(_ input: Input) -> Subscribers.Demand { downstream.receive(input) }

  func receive(completion: Subscribers.Completion<Failure>) { downstream.receive(completion: completion) }
}

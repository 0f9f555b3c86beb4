import Conduit
import Dispatch
import Synchronization

/// A subscriber that takes one value at a time and asks for the next only some time after the
/// last arrived, on a queue of its own: the slow consumer a buffer stands in front of.
final class SlowConsumer<Failure: Error>: Subscriber, Sendable {
  typealias Input = Tagged

  /// A subscription carried to the consumer's queue: its `request(_:)` and `cancel()` are safe
  /// from any thread, as Combine's contract says.
  private struct Handle: @unchecked Sendable {
    let subscription: any Subscription
  }

  let combineIdentifier = CombineIdentifier()
  private let queue = DispatchQueue(label: "soak.slow-consumer")
  private let delay: DispatchTimeInterval
  // Held from the subscription until the completion or `cancel()`: the subscription holds the
  // consumer too, and letting go here ends that cycle.
  private let handle = Mutex<Handle?>(nil)
  private let onValue: @Sendable (Tagged) -> Void
  private let onCompletion: @Sendable (Subscribers.Completion<Failure>) -> Void

  init(
    delay: DispatchTimeInterval, onValue: @escaping @Sendable (Tagged) -> Void,
    onCompletion: @escaping @Sendable (Subscribers.Completion<Failure>) -> Void
  ) {
    self.delay = delay
    self.onValue = onValue
    self.onCompletion = onCompletion
  }

  func receive(subscription: any Subscription) {
    handle.withLock { $0 = Handle(subscription: subscription) }
    subscription.request(.max(1))
  }

  func receive(_ input: Tagged) -> Subscribers.Demand {
    onValue(input)
    queue.asyncAfter(deadline: .now() + delay) { [self] in
      handle.withLock { $0 }?.subscription.request(.max(1))
    }
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    handle.withLock { $0 = nil }
    onCompletion(completion)
  }

  /// Stops taking values, and lets go of the subscription.
  func cancel() {
    handle.withLock { $0.take() }?.subscription.cancel()
  }
}

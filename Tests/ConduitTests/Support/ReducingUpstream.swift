import Conduit

/// An upstream driven by hand, for the reducing operators' tests: it hands its subscriber a
/// subscription that records every request and cancel, and lets the test send values and
/// completions, including ones a well-behaved publisher would not send (after a cancel, after
/// a completion, before the subscription), to show that the operator ignores them.
///
/// Unlike `RecordingUpstream` and `ManualUpstream`, it is not its own subscription: the
/// subscription it hands out (a `SpySubscription`) is a separate object, so a test can tell the
/// operator's own subscription from upstream's, and it counts requests and cancels separately.
final class ReducingUpstream<Output, Failure: Error>: Publisher {
  /// The subscription handed to the subscriber; it only records.
  let recorder = SpySubscription()
  private var subscriber: AnySubscriber<Output, Failure>?
  private let sendsSubscription: Bool
  /// The operator's subscriber itself, unwrapped, for a test to inspect.
  private(set) var operatorSubscriber: Any?
  /// The operator's subscriber, which for most reducing operators is also the subscription they
  /// hand downstream: a test reaches it through this before upstream's subscription has arrived.
  var operatorSubscription: (any Subscription)? { operatorSubscriber as? any Subscription }

  /// - Parameter sendsSubscription: whether the subscriber gets its subscription at once; if not,
  ///   nothing is sent until `sendSubscription(_:)`.
  init(sendsSubscription: Bool = true) {
    self.sendsSubscription = sendsSubscription
  }

  /// The demands the subscriber requested, in order.
  var requests: [Subscribers.Demand] { recorder.requests }
  /// How many times the subscriber cancelled.
  var cancelCount: Int { recorder.cancelCount }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    self.subscriber = AnySubscriber(subscriber)
    operatorSubscriber = subscriber
    if sendsSubscription { subscriber.receive(subscription: recorder) }
  }

  @discardableResult
  func send(_ value: Output) -> Subscribers.Demand {
    subscriber?.receive(value) ?? .none
  }

  func send(completion: Subscribers.Completion<Failure>) {
    subscriber?.receive(completion: completion)
  }

  /// Sends a subscription: the recorder unless another is given (a further one is what a
  /// well-behaved publisher never sends).
  func sendSubscription(_ subscription: (any Subscription)? = nil) {
    subscriber?.receive(subscription: subscription ?? recorder)
  }
}

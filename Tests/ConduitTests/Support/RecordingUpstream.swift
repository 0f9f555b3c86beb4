import Conduit

/// An upstream driven by hand that is its own subscription and records what it is asked, like
/// OpenCombine's `CustomPublisher` (whose tests ran against Combine).
///
/// It keeps sending to its subscriber whatever it is told to, after a cancel or a completion
/// too, so a test sees what an operator does with a careless or racing upstream. It can hold its
/// subscription back (`sendsSubscription: false`) until `sendSubscription()`, or send a further
/// one (itself or another). It holds its subscriber until `detach()`, which a test calls at the
/// end so the pipeline can be freed.
final class RecordingUpstream<Output, Failure: Error>: Publisher, Subscription, CustomStringConvertible,
  @unchecked Sendable
{
  /// The requests and cancels this upstream was asked for, in order.
  private(set) var events: [SubscriptionEvent] = []
  /// `String(describing:)` of the latest subscriber, which names the operator subscribed.
  private(set) var subscriberDescription: String?
  /// How many subscribers it has been given.
  private(set) var subscriptionCount = 0
  /// The latest subscriber itself, unwrapped.
  private(set) var subscriberObject: Any?
  /// The latest subscriber as a subscription: an operator whose subscriber is also the
  /// subscription it hands downstream is reached through it before it has a subscription.
  var subscriberAsSubscription: (any Subscription)? { subscriberObject as? any Subscription }
  private var subscriber: AnySubscriber<Output, Failure>?
  private let sendsSubscription: Bool
  /// Runs inside `request(_:)`, after the request is recorded.
  var onRequest: ((Subscribers.Demand) -> Void)?
  /// Runs inside `cancel()`, after the cancel is recorded.
  var onCancel: (() -> Void)?
  let combineIdentifier = CombineIdentifier()

  /// - Parameter sendsSubscription: whether a new subscriber gets this upstream as its
  ///   subscription at once; if not, nothing is sent until `sendSubscription()`.
  init(sendsSubscription: Bool = true) { self.sendsSubscription = sendsSubscription }

  var description: String { "RecordingUpstream" }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    subscriberDescription = String(describing: subscriber)
    self.subscriber = AnySubscriber(subscriber)
    subscriberObject = subscriber
    subscriptionCount += 1
    if sendsSubscription { subscriber.receive(subscription: self) }
  }

  func request(_ demand: Subscribers.Demand) {
    events.append(.requested(demand))
    onRequest?(demand)
  }

  func cancel() {
    events.append(.cancelled)
    onCancel?()
  }

  /// Hands the subscriber a subscription: this upstream itself unless another is given.
  func sendSubscription(_ subscription: (any Subscription)? = nil) {
    subscriber?.receive(subscription: subscription ?? self)
  }

  /// Sends a value and returns the demand the subscriber answered with (`.none` if there is none).
  @discardableResult
  func send(_ value: Output) -> Subscribers.Demand { subscriber?.receive(value) ?? .none }

  func send(completion: Subscribers.Completion<Failure>) { subscriber?.receive(completion: completion) }

  /// Lets go of the subscriber and the hooks, which may hold this upstream, so the pipeline can
  /// be freed.
  func detach() {
    subscriber = nil
    subscriberObject = nil
    onRequest = nil
    onCancel = nil
  }
}

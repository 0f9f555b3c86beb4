import Conduit

// The test doubles of the Combine parity suites (CombineBehaviourParityTests,
// CombineDemandParityTests, CombineParityReview4Tests, CombineParityReview5Tests): an upstream
// driven by hand that is its own subscription, a second subscription to hand over, a subscriber
// that records what it receives as text, and a box for state a closure changes.
//
// None of them takes a lock: each test drives them from one thread. For an upstream that hands
// out a subscription per subscriber and may be called from several threads, see
// `HandDrivenPublisher`.

/// The error the parity suites fail their streams with when only its type matters.
struct ParityError: Error, Equatable {}

/// What a subscription was asked to do.
enum SubscriptionEvent: Equatable {
  case requested(Subscribers.Demand)
  case cancelled
}

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

/// A subscription that only records what it is asked: the second or late subscription an
/// upstream hands its subscriber.
final class RecordingSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
  /// The requests and cancels, in order.
  private(set) var events: [SubscriptionEvent] = []
  let combineIdentifier = CombineIdentifier()

  var description: String { "RecordingSubscription" }

  func request(_ demand: Subscribers.Demand) { events.append(.requested(demand)) }

  func cancel() { events.append(.cancelled) }
}

/// A subscriber that records everything it receives as text, without judging it (unlike
/// `TestSubscriber`, which flags what breaks the contracts), and keeps the latest subscription it
/// was given, so a test can still request or cancel through it after a completion or a cancel.
///
/// `history` reads `"subscription(<the subscription's description>)"`, `"value(<value>)"`,
/// `"finished"`, `"failure(<error>)"`, and whatever the test adds with `note(_:)`.
final class RecordingSubscriber<Input, Failure: Error>: Subscriber, CustomStringConvertible, @unchecked Sendable {
  private(set) var history: [String] = []
  private(set) var subscription: (any Subscription)?
  private let initialDemand: Subscribers.Demand
  private let demandPerValue: Subscribers.Demand
  /// Runs when a subscription arrives, after it is recorded and before the initial demand is
  /// requested.
  var onSubscription: ((any Subscription) -> Void)?
  /// Runs for each value, after it is recorded; what it returns is the demand answered, in place
  /// of `demandPerValue`.
  var onValue: ((Input) -> Subscribers.Demand)?
  /// Runs at the first completion, before it is recorded.
  var onCompletion: ((Subscribers.Completion<Failure>) -> Void)?
  let combineIdentifier = CombineIdentifier()

  /// - Parameters:
  ///   - initialDemand: requested of each subscription it receives; `.none` requests nothing.
  ///   - demandPerValue: the demand answered for each value, unless `onValue` is set.
  init(initialDemand: Subscribers.Demand = .none, demandPerValue: Subscribers.Demand = .none) {
    self.initialDemand = initialDemand
    self.demandPerValue = demandPerValue
  }

  var description: String { "RecordingSubscriber" }

  /// Adds a line of the test's own to the history.
  func note(_ line: String) { history.append(line) }

  func receive(subscription: any Subscription) {
    history.append("subscription(\(subscription))")
    self.subscription = subscription
    onSubscription?(subscription)
    if initialDemand > 0 { subscription.request(initialDemand) }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    history.append("value(\(input))")
    return onValue?(input) ?? demandPerValue
  }

  /// Lets go of the hooks (which may hold the pipeline or this subscriber) before running
  /// `onCompletion`; keeps the subscription.
  func receive(completion: Subscribers.Completion<Failure>) {
    let hook = onCompletion
    onSubscription = nil
    onValue = nil
    onCompletion = nil
    hook?(completion)
    switch completion {
    case .finished: history.append("finished")
    case .failure(let error): history.append("failure(\(error))")
    }
  }

  /// Lets go of the subscription and the hooks, which may hold the pipeline.
  func forget() {
    subscription = nil
    onSubscription = nil
    onValue = nil
    onCompletion = nil
  }
}

/// A reference to a value that the closures of a test change and the test reads.
final class ParityBox<Value>: @unchecked Sendable {
  var value: Value
  init(_ value: Value) { self.value = value }
}

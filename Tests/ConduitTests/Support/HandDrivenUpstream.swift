import Conduit

/// The one hand-driven upstream of the test suites: a publisher whose test sends values and
/// completions by hand and reads what it was asked, like OpenCombine's `CustomPublisher` (whose
/// tests ran against Combine).
///
/// Each subscriber gets a `SpySubscription` of its own (`links`, the latest is `link`), named
/// `name`, and the upstream also keeps every request and cancel of all of them in one ordered list
/// (`events`). `send` goes to the latest subscriber. It does not enforce demand: a test compares
/// what was requested with what it sends, and may send what a well-behaved publisher would not
/// (before the subscription, after a completion or a cancel) to show that an operator ignores it.
///
/// The options cover what the suites need of an upstream:
/// - `conduct`: whether it lets go of a subscriber on a cancel and a completion (`.wellBehaved`),
///   only on a completion (`.ignoresCancel`, like an upstream whose values race the cancel), or
///   never until `detach()` (`.careless`, which a test calls at the end so the pipeline is freed).
/// - `sendsSubscription`: `false` holds the subscription back until `sendSubscription()`, so a
///   test can send before it or race that moment against other threads.
/// - `init(pumping:emitsOnRequest:finishes:)`: a source of the given values that, unlike a
///   subject, never drops one for lack of demand: `pump()` sends what the demand allows, and
///   with `emitsOnRequest` a request does too, on whichever thread calls it.
///
/// It takes a lock and never calls out while holding it, so a stress test may drive it from
/// several threads. Its spies refer to it weakly: a test keeps the upstream for as long as it
/// drives it.
final class HandDrivenUpstream<Output, Failure: Error>: Publisher, @unchecked Sendable {
  /// When the upstream lets go of a subscriber, and so stops sending to it.
  enum Conduct {
    /// On a cancel and on a completion, as the contracts ask.
    case wellBehaved
    /// Only on a completion: values sent after a cancel still reach the subscriber.
    case ignoresCancel
    /// Only on `detach()`: values and completions sent after a cancel or a completion still
    /// reach the subscriber.
    case careless
  }

  private struct Attachment {
    let subscription: SpySubscription
    var subscriber: AnySubscriber<Output, Failure>?
    var object: Any?
  }

  private struct Pump {
    var values: ArraySlice<Output>
    let emitsOnRequest: Bool
    let finishes: Bool
    var demand = Subscribers.Demand.none
    var requested = Subscribers.Demand.none
    var draining = false
    var again = false
    var finished = false
  }

  private struct State {
    var conduct: Conduct
    var attachments: [Attachment] = []
    var events: [SubscriptionEvent] = []
    var subscriberDescription: String?
    var onRequest: ((Subscribers.Demand) -> Void)?
    var onCancel: (() -> Void)?
    var pump: Pump?

    /// Lets go of a subscriber and returns it, for the caller to drop after the lock.
    mutating func release(_ index: Int) -> (subscriber: AnySubscriber<Output, Failure>?, object: Any?) {
      defer {
        attachments[index].subscriber = nil
        attachments[index].object = nil
      }
      return (attachments[index].subscriber, attachments[index].object)
    }

    mutating func nextPumpStep() -> PumpStep {
      guard var pump else { return .stop }
      defer { self.pump = pump }
      // A cancel lets go of the subscriber, which stops the pump.
      if let subscriber = attachments.last?.subscriber {
        if pump.demand > 0, let value = pump.values.popFirst() {
          pump.demand -= 1
          return .value(subscriber, value)
        }
        if pump.values.isEmpty, pump.finishes, !pump.finished {
          pump.finished = true
          _ = release(attachments.count - 1)
          return .finish(subscriber)
        }
      }
      if pump.again {
        pump.again = false
        return .again
      }
      pump.draining = false
      return .stop
    }
  }

  private enum PumpStep {
    case value(AnySubscriber<Output, Failure>, Output)
    case finish(AnySubscriber<Output, Failure>)
    case again
    case stop
  }

  // Guards everything the upstream records and the subscribers it holds.
  private let state: Locked<State>
  private let name: String
  private let sendsSubscription: Bool

  /// - Parameters:
  ///   - name: what the subscriptions it hands out describe themselves as.
  ///   - conduct: when it lets go of a subscriber.
  ///   - sendsSubscription: whether a new subscriber gets its subscription at once; if not,
  ///     nothing is sent until `sendSubscription()`.
  init(name: String = "HandDriven", conduct: Conduct = .wellBehaved, sendsSubscription: Bool = true) {
    state = Locked(State(conduct: conduct))
    self.name = name
    self.sendsSubscription = sendsSubscription
  }

  /// An upstream that sends `values` as demand allows, and then a `.finished` if it `finishes`,
  /// on `pump()` and, with `emitsOnRequest`, inside a request.
  convenience init(
    pumping values: some Sequence<Output>, emitsOnRequest: Bool, finishes: Bool = false,
    sendsSubscription: Bool = true
  ) {
    self.init(sendsSubscription: sendsSubscription)
    state.withLock {
      $0.pump = Pump(values: ArraySlice(values), emitsOnRequest: emitsOnRequest, finishes: finishes)
    }
  }

  // MARK: What it was asked

  /// The subscription handed to each subscriber, oldest first.
  var links: [SpySubscription] { state.withLock { $0.attachments.map(\.subscription) } }

  /// The subscription handed to the latest subscriber.
  var link: SpySubscription? { state.withLock { $0.attachments.last?.subscription } }

  /// How many subscribers it has been given.
  var subscriptionCount: Int { state.withLock { $0.attachments.count } }

  /// The requests and cancels of all its subscriptions, in order.
  var events: [SubscriptionEvent] { state.withLock { $0.events } }

  /// The demands requested through all its subscriptions, in order.
  var requests: [Subscribers.Demand] { events.requests }

  /// How many times its subscriptions were cancelled.
  var cancelCount: Int { events.cancelCount }

  /// Whether the latest subscription was cancelled.
  var isCancelled: Bool { link?.isCancelled ?? false }

  /// Whether any subscriber is still held.
  var holdsAnySubscriber: Bool { state.withLock { $0.attachments.contains { $0.subscriber != nil } } }

  /// Whether the latest subscriber is still held, so that `send` reaches it.
  var isActive: Bool { state.withLock { $0.attachments.last?.subscriber != nil } }

  /// `String(describing:)` of the latest subscriber, which names the operator subscribed.
  var subscriberDescription: String? { state.withLock { $0.subscriberDescription } }

  /// The latest subscriber itself, unwrapped, while the upstream holds it.
  var subscriberObject: Any? { state.withLock { $0.attachments.last?.object } }

  /// The latest subscriber as a subscription: an operator whose subscriber is also the
  /// subscription it hands downstream is reached through it before it has a subscription.
  var subscriberAsSubscription: (any Subscription)? { subscriberObject as? any Subscription }

  /// When it lets go of a subscriber from now on.
  var conduct: Conduct {
    get { state.withLock { $0.conduct } }
    set { state.withLock { $0.conduct = newValue } }
  }

  /// Runs inside a subscription's `request(_:)`, after the request is recorded.
  var onRequest: ((Subscribers.Demand) -> Void)? {
    get { state.withLock { $0.onRequest } }
    set { state.withLock { $0.onRequest = newValue } }
  }

  /// Runs inside a subscription's `cancel()`, after the cancel is recorded.
  var onCancel: (() -> Void)? {
    get { state.withLock { $0.onCancel } }
    set { state.withLock { $0.onCancel = newValue } }
  }

  // MARK: Driving it

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let subscription = SpySubscription(name: name) { [weak self] subscription, event in
      switch event {
      case .requested(let demand): self?.recordRequest(demand)
      case .cancelled: self?.recordCancel(of: subscription)
      }
    }
    state.withLock {
      $0.subscriberDescription = String(describing: subscriber)
      $0.attachments.append(
        Attachment(subscription: subscription, subscriber: AnySubscriber(subscriber), object: subscriber))
    }
    if sendsSubscription { subscriber.receive(subscription: subscription) }
  }

  /// Hands the latest subscriber a subscription: its own unless another is given (a further one
  /// is what a well-behaved publisher never sends).
  func sendSubscription(_ subscription: (any Subscription)? = nil) {
    guard
      let (subscriber, own) = state.withLock({ state in
        state.attachments.last.flatMap { last in last.subscriber.map { ($0, last.subscription) } }
      })
    else { return }
    subscriber.receive(subscription: subscription ?? own)
  }

  /// Sends a value to the latest subscriber and returns the demand it answered with (`.none` if
  /// the upstream holds none).
  @discardableResult
  func send(_ value: Output) -> Subscribers.Demand {
    let subscriber = state.withLock { $0.attachments.last?.subscriber }
    return subscriber?.receive(value) ?? .none
  }

  /// Completes the latest subscriber, and lets go of it unless the upstream is `.careless`.
  func send(completion: Subscribers.Completion<Failure>) {
    let subscriber = state.withLock { state -> AnySubscriber<Output, Failure>? in
      guard let last = state.attachments.indices.last else { return nil }
      return state.conduct == .careless ? state.attachments[last].subscriber : state.release(last).subscriber
    }
    subscriber?.receive(completion: completion)
  }

  /// Lets go of the subscribers and the hooks, which may hold this upstream, so the pipeline can
  /// be freed.
  func detach() {
    let released = state.withLock { state in
      defer {
        state.onRequest = nil
        state.onCancel = nil
      }
      return (state.attachments.indices.map { state.release($0) }, state.onRequest, state.onCancel)
    }
    // What the upstream held goes after the lock: a subscriber's deinit may call back into it.
    withExtendedLifetime(released) {}
  }

  private func recordRequest(_ demand: Subscribers.Demand) {
    let (hook, pumps) = state.withLock { state in
      state.events.append(.requested(demand))
      state.pump?.demand += demand
      state.pump?.requested += demand
      return (state.onRequest, state.pump?.emitsOnRequest == true)
    }
    hook?(demand)
    if pumps { pump() }
  }

  private func recordCancel(of subscription: SpySubscription) {
    let (hook, released) = state.withLock { state in
      state.events.append(.cancelled)
      let index = state.attachments.firstIndex { $0.subscription === subscription }
      let released = state.conduct == .wellBehaved ? index.map { state.release($0) } : nil
      return (state.onCancel, released)
    }
    // The subscriber let go of goes after the lock: its deinit may call back into the upstream.
    withExtendedLifetime(released) { hook?() }
  }

  // MARK: Pumping

  /// What the subscriber asked of a pumping upstream so far, by requests and by its answers.
  var totalRequested: Subscribers.Demand { state.withLock { $0.pump?.requested ?? .none } }

  /// Whether a pumping upstream has sent its completion.
  var isFinished: Bool { state.withLock { $0.pump?.finished ?? false } }

  /// Whether a pumping upstream has nothing more to send: every value is out, or it was cancelled.
  var isExhausted: Bool {
    let valuesAreOut = state.withLock { $0.pump?.values.isEmpty ?? true }
    return valuesAreOut || isCancelled
  }

  /// Sends to the latest subscriber what the demand allows, and the completion once every value
  /// is out if the upstream `finishes`. A call that finds another thread sending makes that
  /// thread look again instead.
  func pump() {
    let claimed = state.withLock { state -> Bool in
      guard state.pump?.draining == false else {
        state.pump?.again = true
        return false
      }
      state.pump?.draining = true
      return true
    }
    guard claimed else { return }
    while true {
      switch state.withLock({ $0.nextPumpStep() }) {
      case .value(let subscriber, let value):
        let more = subscriber.receive(value)
        if more > 0 {
          state.withLock {
            $0.pump?.demand += more
            $0.pump?.requested += more
          }
        }
      case .finish(let subscriber):
        subscriber.receive(completion: .finished)
      case .again:
        continue
      case .stop:
        return
      }
    }
  }
}

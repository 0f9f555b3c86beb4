extension Publishers {
  /// A publisher that replaces an empty stream with a provided element.
  ///
  /// As in Combine, once its subscriber has the subscription it asks upstream for `.unlimited`,
  /// and passes on what the subscriber requests as well. The replacement waits for the
  /// subscriber's first request.
  ///
  /// Unlike Combine, it never hands its subscriber more values than it requested: values the
  /// upstream sends beyond the demand wait, in order, until the subscriber asks for them, and the
  /// upstream's completion (a failure too) waits behind them. Combine passes them on at once, so
  /// that a `retry` or `catch` below it, whose subscriber has asked for less, stops the process.
  /// See *Differences from Combine*.
  ///
  /// ```swift
  /// let cancellable = Empty<Int, Never>()
  ///     .replaceEmpty(with: 0)
  ///     .sink { print($0) }   // 0
  /// ```
  public struct ReplaceEmpty<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The element to deliver when the upstream publisher finishes without delivering any
    /// elements.
    public let output: Upstream.Output

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// Creates a publisher that replaces an empty stream with `output`.
    public init(upstream: Upstream, output: Upstream.Output) {
      self.upstream = upstream
      self.output = output
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, output: output))
    }
  }
}

extension Publishers.ReplaceEmpty: Equatable where Upstream: Equatable, Upstream.Output: Equatable {}

extension Publishers.ReplaceEmpty: Sendable where Upstream: Sendable, Upstream.Output: Sendable {}

extension Publishers.ReplaceEmpty {
  typealias Inner<Downstream: Subscriber> = ReplaceEmptyInner<Downstream>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
}

/// The decisions of a `replaceEmpty` subscription, kept apart from its calls out (DESIGN.md §3):
/// each event updates the state under the subscription's lock and says what the subscription does
/// once the lock is released.
///
/// The upstream is asked for everything, so values can come faster than the downstream asks for
/// them; those wait in `values`. Values reach the downstream from the upstream's calls and from
/// the downstream's requests, possibly on different threads; the call that claims `delivery` (see
/// `DeliveryOwnership`) owns the downstream and asks `nextDelivery` what to deliver until nothing
/// more may go out, where `nextDelivery` gives delivery back.
struct ReplaceEmptyStateMachine<Downstream: Subscriber> {
  typealias Input = Downstream.Input
  typealias Failure = Downstream.Failure

  /// The downstream, the replacement and the upstream subscription, in one object that never
  /// changes: a delivery retains it once under the lock, where copying the state's payload out
  /// would copy the upstream subscription's existential with it.
  final class Targets {
    let downstream: Downstream
    let replacement: Input
    let upstream: any Subscription

    init(downstream: Downstream, replacement: Input, upstream: any Subscription) {
      self.downstream = downstream
      self.replacement = replacement
      self.upstream = upstream
    }
  }

  enum State {
    /// The upstream's subscription has not arrived.
    case awaitingSubscription(Downstream, replacement: Input)
    /// Values flow; `completion` is the upstream's, once it has come, waiting behind the values
    /// held (and, after an empty stream, for demand for the replacement).
    case subscribed(Targets, completion: Subscribers.Completion<Failure>?)
    /// The downstream has its completion, or cancelled: nothing is held.
    case terminal
  }

  /// What to do with the upstream's subscription.
  enum SubscriptionAction {
    /// Hand the subscription to the downstream, then ask `handedDown()` whether to ask the
    /// upstream for everything.
    case handDown(Downstream)
    /// Not wanted (a second one, or one after the end): cancel it.
    case cancel
  }

  /// What to do with a value from the upstream.
  enum ValueAction {
    /// Held for later demand, or ignored (before the subscription, after the completion or the
    /// end).
    case absorbed
    /// This call owns the downstream and hands it the value at once, nothing being held.
    case deliver(Input, Targets)
    /// Held, and this call owns the downstream: it delivers what it may.
    case drain
  }

  /// What to do with a request from the downstream.
  struct RequestAction {
    /// The upstream, which is asked for the same demand, as in Combine.
    var forward: (any Subscription)?
    /// Whether this call now owns the downstream and delivers what it may.
    var drain: Bool
  }

  /// What the owner of the downstream does next.
  enum Delivery {
    case deliver(Input, Targets)
    /// Deliver the replacement, when the stream was empty, then the completion; `ended` is what
    /// the stream held, let go of after the lock.
    case complete(Subscribers.Completion<Failure>, replacement: Input?, ended: Released)
    /// Nothing may go out now (or the stream has ended): stop.
    case idle
  }

  /// What the stream held when it ended, to be let go of after the lock: the deinits of the
  /// values, of the downstream and of the upstream subscription may call back into it.
  struct Released {
    var values: ValueQueue<Input>
    var ended: State

    /// The stream's targets, if the upstream's subscription had arrived.
    var targets: Targets? {
      if case .subscribed(let targets, _) = ended { targets } else { nil }
    }
  }

  var state: State
  /// Values the upstream sent beyond the demand, in order.
  var values = ValueQueue<Input>()
  /// Requested by the downstream and not yet delivered.
  var demand = Subscribers.Demand.none
  /// Whether the upstream sent any value: an empty stream's finish brings the replacement.
  var received = false
  var delivery = DeliveryOwnership()

  init(downstream: Downstream, replacement: Input) {
    state = .awaitingSubscription(downstream, replacement: replacement)
  }

  // MARK: Upstream

  mutating func receive(subscription: any Subscription) -> SubscriptionAction {
    guard case .awaitingSubscription(let downstream, let replacement) = state else { return .cancel }
    let targets = Targets(downstream: downstream, replacement: replacement, upstream: subscription)
    state = .subscribed(targets, completion: nil)
    return .handDown(downstream)
  }

  /// The downstream has its subscription: the upstream is asked for everything, as in Combine,
  /// unless the downstream cancelled from inside `receive(subscription:)`.
  mutating func handedDown() -> (any Subscription)? {
    guard case .subscribed(let targets, _) = state else { return nil }
    return targets.upstream
  }

  /// A value from the upstream. As in Combine, one before the subscription or after the
  /// completion is ignored.
  mutating func receive(_ input: Input) -> ValueAction {
    guard case .subscribed(let targets, completion: nil) = state else { return .absorbed }
    received = true
    guard demand > 0, delivery.claim() else {
      values.append(input)
      return .absorbed
    }
    guard values.isEmpty else {
      values.append(input)
      return .drain
    }
    takeOne()
    return .deliver(input, targets)
  }

  /// The upstream's completion: the first waits until it may go out; others are ignored, as is
  /// one before the subscription.
  mutating func receive(completion: Subscribers.Completion<Failure>) -> Bool {
    guard case .subscribed(let targets, completion: nil) = state else { return false }
    state = .subscribed(targets, completion: completion)
    return delivery.claim()
  }

  // MARK: Downstream

  /// Demand from the downstream. One before the subscription counts too, as in Combine, for the
  /// replacement.
  mutating func request(_ more: Subscribers.Demand) -> RequestAction {
    switch state {
    case .awaitingSubscription:
      demand += more
      return RequestAction(forward: nil, drain: false)
    case .subscribed(let targets, _):
      demand += more
      return RequestAction(forward: targets.upstream, drain: delivery.claim())
    case .terminal:
      return RequestAction(forward: nil, drain: false)
    }
  }

  /// The downstream cancelled: the stream ends. As in Combine, a cancel before the upstream's
  /// subscription changes nothing: the subscription that arrives later is taken and asked for
  /// everything.
  mutating func cancel() -> Released? {
    guard case .subscribed = state else { return nil }
    return end()
  }

  // MARK: Delivery

  /// Asked by the owner of the downstream, after adding the demand the last value returned: the
  /// next value while there is demand, then the completion behind the last value, with the
  /// replacement before a finish that ends an empty stream once there is demand for it.
  mutating func nextDelivery(adding more: Subscribers.Demand) -> Delivery {
    guard case .subscribed(let targets, let completion) = state else { return .idle }
    demand += more
    if demand > 0, let value = values.popFirst() {
      takeOne()
      return .deliver(value, targets)
    }
    switch completion {
    case .failure(let error)?:
      if values.isEmpty { return .complete(.failure(error), replacement: nil, ended: end()) }
    case .finished?:
      if received, values.isEmpty { return .complete(.finished, replacement: nil, ended: end()) }
      if !received, demand > 0 { return .complete(.finished, replacement: targets.replacement, ended: end()) }
    case nil:
      break
    }
    delivery.giveBack()
    return .idle
  }

  mutating func takeOne() {
    if demand != .unlimited { demand -= 1 }
  }

  /// Ends the stream: returns what it held, to be let go of after the lock. Delivery stays
  /// claimed for good, so nothing reaches the downstream after the end.
  mutating func end() -> Released {
    _ = delivery.claim()
    var released = Released(values: ValueQueue(), ended: .terminal)
    swap(&released.values, &values)
    swap(&released.ended, &state)
    return released
  }
}

/// Passes values on as the downstream asks for them and remembers whether any came; its decisions
/// are a `ReplaceEmptyStateMachine`'s.
///
/// Generic over its downstream alone, as an operator that passes on the values and errors it
/// receives can be: one level of nesting per use rather than two (see `OperatorLink`).
final class ReplaceEmptyInner<Downstream: Subscriber>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped,
  Sendable
{
  typealias Input = Downstream.Input
  typealias Failure = Downstream.Failure
  typealias Machine = ReplaceEmptyStateMachine<Downstream>

  // Guarded by its own lock.
  let state: Locked<Machine>
  let census: CensusToken

  var description: String { "ReplaceEmpty" }
  var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
  var playgroundDescription: Any { description }
  var censusScope: CensusScope? { census.scope }

  init(downstream: Downstream, output: Input) {
    census = CensusToken(ReplaceEmptyInner.self, inheritingFrom: downstream)
    state = Locked(Machine(downstream: downstream, replacement: output))
  }

  // MARK: Upstream

  func receive(subscription: any Subscription) {
    guard case .handDown(let downstream) = state.withLock({ $0.receive(subscription: subscription) }) else {
      subscription.cancel()
      return
    }
    downstream.receive(subscription: self)
    // After whatever the downstream requested from inside `receive(subscription:)`, as in Combine.
    state.withLock { $0.handedDown() }?.request(.unlimited)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    // As in Combine, the demand the downstream returns is returned to the upstream too.
    switch state.withLock({ $0.receive(input) }) {
    case .absorbed:
      return .none
    case .deliver(let input, let targets):
      let more = targets.downstream.receive(input)
      drain(adding: more)
      return more
    case .drain:
      drain(adding: .none)
      return .none
    }
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    if state.withLock({ $0.receive(completion: completion) }) { drain(adding: .none) }
  }

  // MARK: Downstream

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let action = state.withLock { $0.request(demand) }
    if action.drain { drain(adding: .none) }
    action.forward?.request(demand)
  }

  func cancel() {
    // What the stream held leaves with the action, after the lock.
    state.withLock { $0.cancel() }?.targets?.upstream.cancel()
  }

  // MARK: Delivery

  /// Runs while this call owns the downstream: delivers what the state machine says.
  func drain(adding initial: Subscribers.Demand) {
    var more = initial
    state.drain { state -> NextDelivery<Machine.Delivery> in
      let step = state.nextDelivery(adding: more)
      switch step {
      case .deliver: return .perform(step)
      case .complete: return .performAndStop(step)
      case .idle: return .stop
      }
    } perform: { step in
      switch step {
      case .deliver(let value, let targets):
        more = targets.downstream.receive(value)
      case .complete(let completion, let replacement, let released):
        let downstream = released.targets?.downstream
        if let replacement { _ = downstream?.receive(replacement) }
        downstream?.receive(completion: completion)
      case .idle:
        break
      }
    }
  }
}

extension Publisher {
  /// Replaces an empty stream with the provided element.
  ///
  /// If upstream finishes without producing any elements, this publisher emits `output`, then
  /// finishes. Values and failures pass through unchanged.
  ///
  /// ```swift
  /// let cancellable = [Double]().publisher
  ///     .replaceEmpty(with: .nan)
  ///     .sink { print($0) }   // nan
  /// ```
  ///
  /// - Parameter output: The element to emit when upstream finishes without emitting any.
  public func replaceEmpty(with output: Output) -> Publishers.ReplaceEmpty<Self> {
    Publishers.ReplaceEmpty(upstream: self, output: output)
  }
}

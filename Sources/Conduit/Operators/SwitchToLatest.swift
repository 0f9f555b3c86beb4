import Synchronization

extension Publishers {
  /// A publisher that flattens nested publishers, republishing the elements of the most recent
  /// one.
  ///
  /// When the upstream sends a new publisher, the subscription to the previous one is cancelled
  /// and the outstanding downstream demand carries over to the new one. It finishes when the
  /// upstream and the latest inner publisher have both finished; a failure from either ends
  /// everything.
  ///
  /// An inner publisher that sends at most one value at once (`Just`, `Optional.Publisher`,
  /// `Result.Publisher`, `Empty`, `Fail`, or one of them behind `setFailureType(to:)`) is not
  /// subscribed to: its value waits for demand, or is dropped by the next publisher, as it would
  /// in a subscription, without allocating one. The downstream and the upstream see exactly what
  /// a subscription would have produced; only ``Census/liveObjects`` counts fewer objects.
  ///
  /// ```swift
  /// let cancellable = searchText
  ///     .map { text in api.search(text) }
  ///     .switchToLatest()
  ///     .sink { results in show(results) }
  /// ```
  public struct SwitchToLatest<P: Publisher, Upstream: Publisher>: Publisher
  where P == Upstream.Output, P.Failure == Upstream.Failure {
    /// The kind of values published by this publisher.
    public typealias Output = P.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = P.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// Creates a publisher that flattens nested publishers.
    @inlinable
    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let inner = Inner(downstream: subscriber)
      subscriber.receive(subscription: inner)
      upstream.subscribe(inner)
    }
  }
}

extension Publishers.SwitchToLatest {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = SwitchToLatestInner<Link<Upstream.Output, Upstream.Failure, Downstream>>
  where Downstream.Input == P.Output, Downstream.Failure == P.Failure
}

/// The decisions of a `switchToLatest` subscription, kept apart from its calls out (DESIGN.md §3):
/// each event updates the state under the subscription's lock and says what the subscription does
/// once the lock is released.
///
/// Children are numbered in the order the upstream sends their publishers, and only the latest,
/// `currentID`, counts: an element or a completion from one that has been replaced is dropped.
/// `demand` counts what the downstream asked for and no accepted element has used yet, so that a
/// new child is asked for exactly that much. Elements reach the downstream from the children and
/// from the downstream's requests, possibly on different threads (a replaced child may still be
/// delivering when the new one starts); the call that claims `delivery` (see
/// `DeliveryOwnership`) owns the downstream and asks `nextDelivery` what to do until there is nothing
/// more, where `nextDelivery` gives delivery back. Others queue their element in `backlog` for it.
@usableFromInline
struct SwitchToLatestStateMachine<Value, Failure: Error> {
  @usableFromInline
  typealias Phase = FlatteningPhase<Failure>

  /// What the subscription lets go of when the stream fails or is cancelled: the subscriptions to
  /// cancel (the child first, as Combine cancels them), the scalar value held back and the values
  /// not delivered, whose deinits may call back into it.
  @usableFromInline
  typealias Detached = Action.Detached

  /// What to do for a scalar child (see `ScalarPublisher`), whose value is known without a
  /// subscription.
  @usableFromInline
  enum ScalarAction {
    case none
    /// This call owns delivery: deliver the value, then drain. The child finishes where the
    /// drain would give delivery back, as a subscribed child would finish once it had.
    case deliver(Value)
    /// Child `child`, just made the latest, completes without a value; its completion is
    /// reported as a subscribed child's is, through `childCompletion`.
    case complete(child: Int, Subscribers.Completion<Failure>)
  }

  /// What to do with a publisher from the upstream.
  @usableFromInline
  enum OuterValueAction {
    /// Ignore it: the upstream has finished, or the stream has ended.
    case ignore
    /// Cancel the replaced child's subscription, if any, then subscribe to the publisher as
    /// child `child`.
    case subscribe(child: Int, cancelling: (any Subscription)?)
  }

  /// What to do with a request from the downstream.
  @usableFromInline
  enum RequestAction {
    case none
    /// Ask the latest child for the demand.
    case forward(to: any Subscription)
    /// A scalar value waited for the demand; see `ScalarAction`.
    case scalar(ScalarAction)
  }

  /// What to do with an element from a subscribed child.
  @usableFromInline
  enum ChildValueAction {
    /// Dropped (its child was replaced), or queued for the call that owns delivery.
    case none
    /// This call owns delivery: deliver the element, then report it with `childValueDelivered`.
    case deliver
  }

  /// What to do once a child's element has been delivered by the call it arrived on.
  @usableFromInline
  enum DeliveredAction {
    /// Delivery is given back: the demand the downstream returned goes back to the child as the
    /// demand its `receive(_:)` returns.
    case returnDemand
    /// Drain, with the demand the downstream returned.
    case drain
  }

  /// What to do after a completion or a cancel.
  @usableFromInline
  typealias Action = Phase.Action<Value, Value>

  /// What the owner of delivery does next, and whether it first hands the demand the downstream
  /// returned to the latest child (whose subscription `nextDelivery` puts in `forward`). A `Bool`
  /// beside the step spares the owner reading the optional existential when there is nothing to
  /// forward, which is every step of an unlimited subscriber's.
  @usableFromInline
  typealias Work = (step: Delivery, forwardsDemand: Bool)

  /// What the owner of delivery delivers next.
  @usableFromInline
  enum Delivery {
    case deliver(Value)
    case complete(Subscribers.Completion<Failure>)
    /// The stream was cancelled while this call delivered: let the downstream go.
    case release
    /// Nothing more to deliver; delivery has been given back.
    case idle
  }

  @usableFromInline
  var phase = Phase.awaitingSubscription
  @usableFromInline
  var upstream: (any Subscription)?
  /// The latest child, until it finishes.
  @usableFromInline
  var currentID: Int?
  /// The latest child's subscription, once it has arrived.
  @usableFromInline
  var current: (any Subscription)?
  /// The value of the latest child when it is a scalar one whose value waits for demand, as it
  /// would wait in an unrequested subscription.
  @usableFromInline
  var pendingScalar: Value?
  @usableFromInline
  var nextID = 0
  /// Requested by the downstream and not yet used by an accepted element.
  @usableFromInline
  var demand = Subscribers.Demand.none
  /// Accepted elements waiting for the call that owns delivery.
  @usableFromInline
  var backlog = ValueQueue<Value>()
  /// Which call owns the downstream.
  @usableFromInline
  var delivery = DeliveryOwnership()
  /// The scalar child whose value the owner of delivery is delivering: it finishes where the
  /// owner's drain would give delivery back, and the owner keeps delivery for what follows.
  @usableFromInline
  var finishing: Int?
  /// Whether the children are scalar ones: every child is of one publisher type, so either all
  /// are or none is.
  @usableFromInline
  let childrenAreScalar: Bool

  @inlinable
  init(childrenAreScalar: Bool) {
    self.childrenAreScalar = childrenAreScalar
  }

  // MARK: Upstream

  /// The upstream's subscription: returns the demand to ask of it, or `nil` to cancel it (a
  /// second one, or one after the end).
  @usableFromInline
  mutating func receiveSubscription(_ subscription: any Subscription) -> Subscribers.Demand? {
    guard phase.takeSubscription() else { return nil }
    upstream = subscription
    return .unlimited
  }

  /// A publisher from the upstream, to subscribe to as the latest child once the replaced one
  /// is cancelled.
  @inlinable
  mutating func outerValue() -> OuterValueAction {
    guard phase.takesUpstreamValues else { return .ignore }
    let id = nextID
    nextID += 1
    let previous = current
    current = nil
    switchTo(id)
    return .subscribe(child: id, cancelling: previous)
  }

  /// A scalar publisher from the upstream: what subscribing to it would do, without the
  /// subscription. The child would ask for the outstanding demand, send its value when that is
  /// not zero, and finish right after it. Every child being scalar here, none has a subscription
  /// to cancel.
  @inlinable
  mutating func outerScalar(_ outcome: ScalarOutcome<Value, Failure>) -> ScalarAction {
    guard phase.takesUpstreamValues else { return .none }
    let id = nextID
    nextID += 1
    switchTo(id)
    switch outcome {
    case .value(let value): return acceptScalar(value, id: id)
    case .finished: return .complete(child: id, .finished)
    case .failure(let error): return .complete(child: id, .failure(error))
    case .silent: return .none
    }
  }

  /// The upstream's completion. A finish ends the stream once the latest child has finished; a
  /// failure ends it at once, cancelling the latest child.
  @usableFromInline
  mutating func outerCompletion(_ completion: Subscribers.Completion<Failure>) -> Action {
    switch completion {
    case .finished:
      guard phase.finishOuter() else { return .none }
      upstream = nil
      return currentID == nil && delivery.claim() ? .drain : .none
    case .failure(let error):
      guard phase.isActive else { return .none }
      return fail(error, includingUpstream: false, includingCurrent: true)
    }
  }

  // MARK: Children

  /// Child `id`'s subscription: returns the demand to ask of it (none to ask when `.none`), or
  /// `nil` to cancel it, when the child is no longer the latest or already has one.
  @usableFromInline
  mutating func childSubscription(_ id: Int, _ subscription: any Subscription) -> Subscribers.Demand? {
    guard phase.isActive, currentID == id, current == nil else { return nil }
    current = subscription
    return demand
  }

  /// An element from child `id`; queued in `backlog` when another call owns delivery.
  @inlinable
  mutating func childValue(_ id: Int, _ value: Value) -> ChildValueAction {
    guard phase.isActive, currentID == id else { return .none }
    // The latest child was asked for exactly the demand outstanding; Combine stops here too.
    precondition(
      demand != .none,
      "switchToLatest(): an inner publisher sent a value it was not asked for; a publisher must not send more values than its subscriber requested"
    )
    takeOne()
    guard delivery.claim() else {
      backlog.append(value)
      return .none
    }
    return .deliver
  }

  /// The downstream took child `id`'s element and returned `more`. As in Combine, `more` goes
  /// back to the child as what its `receive(_:)` returns when that child is still the latest
  /// (even before its subscription arrived) and nothing else waits; otherwise the drain asks
  /// for it.
  @inlinable
  mutating func childValueDelivered(_ id: Int, returned more: Subscribers.Demand) -> DeliveredAction {
    guard phase.isActive, currentID == id, backlog.isEmpty, pendingScalar == nil else { return .drain }
    demand += more
    delivery.giveBack()
    return .returnDemand
  }

  /// Child `id`'s completion, which counts only while it is the latest. Checked and acted on in
  /// one critical section: a child that the upstream switched to in between would otherwise be
  /// forgotten without being cancelled.
  @usableFromInline
  mutating func childCompletion(_ id: Int, _ completion: Subscribers.Completion<Failure>) -> Action {
    guard phase.isActive, currentID == id else { return .none }
    // A child that completes without having sent its subscription breaks the contract, and
    // Combine stops too. A scalar child has none, being never subscribed to.
    precondition(
      current != nil || childrenAreScalar,
      "switchToLatest(): an inner publisher completed before sending its subscription; a publisher must call receive(subscription:) first"
    )
    // A child that completes needs no cancel.
    current = nil
    switch completion {
    case .finished:
      currentID = nil
      return phase.outerFinished && delivery.claim() ? .drain : .none
    case .failure(let error):
      return fail(error, includingUpstream: true, includingCurrent: false)
    }
  }

  // MARK: Downstream

  /// A request from the downstream. It goes straight to the latest child; a scalar value that
  /// waits for it is accepted now.
  @inlinable
  mutating func request(_ more: Subscribers.Demand) -> RequestAction {
    guard phase.isActive else { return .none }
    demand += more
    if let value = pendingScalar, let id = currentID {
      pendingScalar = nil
      return .scalar(acceptScalar(value, id: id))
    }
    return current.map { .forward(to: $0) } ?? .none
  }

  /// The downstream's cancel: the upstream and the latest child are cancelled, and the call that
  /// claims delivery lets the downstream go.
  @usableFromInline
  mutating func cancel() -> Action {
    guard case .terminal = phase else {
      phase = .terminal
      let detached = detachAll(includingUpstream: true, includingCurrent: true)
      return .detach(detached, drains: delivery.claim())
    }
    return .none
  }

  // MARK: Delivery

  /// Asked by the owner of delivery, after a call into the downstream returned `more`: adds
  /// `more` to the demand and hands it to the latest child through `forward`, then says what to
  /// deliver: the backlog, then a scalar value that waits for that demand, then the finish once
  /// the upstream and the latest child have both finished. Once it gives delivery back, the step
  /// is still performed, for the demand it forwards.
  ///
  /// The latest child leaves through `forward` rather than inside the step: an existential in
  /// the lock's result costs 65 % per value on "5 x map { Just($0) }.switchToLatest()".
  @inlinable
  mutating func nextDelivery(
    adding more: Subscribers.Demand, forwardingTo forward: inout (any Subscription)?
  ) -> NextDelivery<Work> {
    switch phase {
    case .awaitingSubscription, .subscribed, .outerFinished:
      var forwards = false
      if more != .none {
        demand += more
        if current != nil {
          forward = current
          forwards = true
        }
      }
      if let value = backlog.popFirst() { return .perform((.deliver(value), forwards)) }
      if let finished = finishing {
        finishing = nil
        // Unless the upstream has sent a newer publisher meanwhile.
        if currentID == finished { currentID = nil }
      }
      // The backlog is empty: a scalar value waits only while its child is the latest and
      // nothing of it was accepted.
      if more != .none, let value = pendingScalar, let id = currentID {
        pendingScalar = nil
        takeOne()
        finishing = id
        return .perform((.deliver(value), forwards))
      }
      if phase.outerFinished && currentID == nil {
        phase = .terminal
        return .performAndStop((.complete(.finished), forwards))
      }
      delivery.giveBack()
      return .performAndStop((.idle, forwards))
    case .failing(let error):
      phase = .terminal
      return .performAndStop((.complete(.failure(error)), false))
    case .terminal:
      return .performAndStop((.release, false))
    }
  }

  // MARK: Helpers

  /// Makes child `id` the latest one, dropping what the previous one had sent and was not yet
  /// delivered; the demand that took goes to the new one.
  @inlinable
  mutating func switchTo(_ id: Int) {
    pendingScalar = nil
    if demand != .unlimited { demand += backlog.count }
    backlog.removeAll()
    currentID = id
  }

  /// What a subscription to scalar child `id`, the latest, does with its value: it sends it at
  /// the first demand, and finishes right after.
  @inlinable
  mutating func acceptScalar(_ value: Value, id: Int) -> ScalarAction {
    if demand == .none {
      pendingScalar = value
      return .none
    }
    takeOne()
    guard delivery.claim() else {
      backlog.append(value)
      // Finished; the call that owns delivery completes if the upstream has finished.
      currentID = nil
      return .none
    }
    finishing = id
    return .deliver(value)
  }

  @inlinable
  mutating func takeOne() {
    if demand != .unlimited { demand -= 1 }
  }

  /// Fails with `error`, from the upstream (which needs no cancel) or from the latest child
  /// (which does not either).
  @usableFromInline
  mutating func fail(_ error: Failure, includingUpstream: Bool, includingCurrent: Bool) -> Action {
    phase = .failing(error)
    let detached = detachAll(includingUpstream: includingUpstream, includingCurrent: includingCurrent)
    return .detach(detached, drains: delivery.claim())
  }

  /// Forgets the upstream and the latest child; returns the subscriptions to cancel, the child's
  /// first, with the values not delivered, for the caller to let go of after the lock.
  @usableFromInline
  mutating func detachAll(includingUpstream: Bool, includingCurrent: Bool) -> Detached {
    var detached = Detached()
    if includingCurrent, let current { detached.cancelled.append(current) }
    if includingUpstream, let upstream { detached.cancelled.append(upstream) }
    upstream = nil
    current = nil
    currentID = nil
    swap(&pendingScalar, &detached.held)
    swap(&backlog, &detached.backlog)
    return detached
  }
}

/// Subscribes to the upstream and to its latest publisher; its decisions are a
/// `SwitchToLatestStateMachine`'s.
///
/// Downstream demand goes straight to the current inner publisher, and a new inner publisher is
/// asked for what is outstanding. Calls into the downstream never overlap: whichever call claims
/// delivery (see `DeliveryOwnership`) owns the downstream.
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`).
@usableFromInline
final class SwitchToLatestInner<Types: OperatorLink>: Subscriber, SubscriptionRequestHandler, Subscription,
  ChildSubscriberParent, CustomReflectable, CustomPlaygroundDisplayConvertible
where
  Types.Input: Publisher, Types.Input.Failure == Types.Failure, Types.Downstream.Input == Types.Input.Output,
  Types.Downstream.Failure == Types.Failure
{
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Types.Failure
  @usableFromInline
  typealias Downstream = Types.Downstream
  /// The kind of the inner publishers.
  @usableFromInline
  typealias P = Types.Input
  @usableFromInline
  typealias Machine = SwitchToLatestStateMachine<P.Output, Failure>

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<Machine>
  // Owned by the call that owns `state.delivery`; released when the subscription ends. No
  // runtime exclusivity check: it costs 9 % in "5 x map { Just($0) }.switchToLatest()".
  @usableFromInline @exclusivity(unchecked)
  var downstream: Downstream?
  @usableFromInline
  let census: CensusToken
  // Specialized `request` and `cancel`; see `SubscriptionRequest`.
  @usableFromInline
  let handle: @Sendable (SwitchToLatestInner, SubscriptionRequest) -> Void
  // Call into `downstream` through functions built in the `@inlinable` initializer, for the
  // reason `FlatMapInner.relayValue` gives ("5 x map { Just($0) }.switchToLatest()").
  @usableFromInline
  let relayValue: (Downstream, Downstream.Input) -> Subscribers.Demand
  @usableFromInline
  let relayCompletion: (Downstream, Subscribers.Completion<Downstream.Failure>) -> Void
  // Reads inner publishers that need no subscription; see `ScalarPublisher`.
  @usableFromInline
  let readScalar: ((P) -> ScalarOutcome<P.Output, P.Failure>)?

  @usableFromInline
  var description: String { "SwitchToLatest" }
  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
  @usableFromInline
  var playgroundDescription: Any { description }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(downstream: Downstream) {
    census = CensusToken(SwitchToLatestInner.self, inheritingFrom: downstream)
    self.downstream = downstream
    handle = SubscriptionRequest.dispatcher()
    relayValue = { downstream, value in downstream.receive(value) }
    relayCompletion = { downstream, completion in downstream.receive(completion: completion) }
    let readScalar = P.scalarReader
    self.readScalar = readScalar
    state = Locked(Machine(childrenAreScalar: readScalar != nil))
  }

  // MARK: Upstream

  @usableFromInline
  func receive(subscription: any Subscription) {
    guard let demand = state.withLock({ $0.receiveSubscription(subscription) }) else {
      subscription.cancel()
      return
    }
    subscription.request(demand)
  }

  @inlinable
  func receive(_ input: P) -> Subscribers.Demand {
    if let read = readScalar {
      let outcome = read(input)
      perform(state.withLock { $0.outerScalar(outcome) })
      return .none
    }
    guard case .subscribe(let id, let previous) = state.withLock({ $0.outerValue() }) else { return .none }
    previous?.cancel()
    input.subscribe(ChildSubscriber(parent: self, id: id))
    return .none
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    perform(state.withLock { $0.outerCompletion(completion) })
  }

  // MARK: Children

  @usableFromInline
  func childSubscribed(_ id: Int, _ subscription: any Subscription) {
    guard let demand = state.withLock({ $0.childSubscription(id, subscription) }) else {
      subscription.cancel()
      return
    }
    if demand != .none { subscription.request(demand) }
  }

  @inlinable
  func childReceived(_ id: Int, _ value: P.Output) -> Subscribers.Demand {
    guard case .deliver = state.withLock({ $0.childValue(id, value) }) else { return .none }
    let more = downstream.map { relayValue($0, value) } ?? .none
    switch state.withLock({ $0.childValueDelivered(id, returned: more) }) {
    case .returnDemand:
      return more
    case .drain:
      drain(more: more)
      return .none
    }
  }

  @usableFromInline
  func childCompleted(_ id: Int, _ completion: Subscribers.Completion<Failure>) {
    perform(state.withLock { $0.childCompletion(id, completion) })
  }

  // MARK: Downstream

  @usableFromInline
  func request(_ demand: Subscribers.Demand) {
    handle(self, .demand(demand))
  }

  @usableFromInline
  func cancel() {
    handle(self, .cancel)
  }

  @inlinable
  func handleDemand(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    switch state.withLock({ $0.request(demand) }) {
    case .none: break
    case .forward(let current): current.request(demand)
    case .scalar(let action): perform(action)
    }
  }

  @usableFromInline
  func handleCancel() {
    perform(state.withLock { $0.cancel() })
  }

  // MARK: Delivery

  @inlinable
  func perform(_ action: Machine.ScalarAction) {
    switch action {
    case .none:
      break
    case .deliver(let value):
      let more = downstream.map { relayValue($0, value) } ?? .none
      drain(more: more)
    case .complete(let id, let completion):
      childCompleted(id, completion)
    }
  }

  @inlinable
  func perform(_ action: Machine.Action) {
    action.perform { drain(more: .none) }
  }

  /// Runs while this call owns delivery: performs what the state machine's `nextDelivery` says,
  /// starting with the demand the downstream just returned.
  @inlinable
  func drain(more initial: Subscribers.Demand) {
    var more = initial
    // Touched only when there is demand to forward to a subscribed child.
    var forward: (any Subscription)?
    // The owner's loop of `DeliveryOwnership`, written out rather than run by `Locked.drain`, as
    // `FlatMapInner.drain` writes it: through `Locked.drain`, the loop of "5 x map { Just($0) }
    // .switchToLatest(), per value" is not inlined.
    while true {
      switch state.withLock({ $0.nextDelivery(adding: more, forwardingTo: &forward) }) {
      case .perform(let work):
        more = perform(work, forwarding: more, to: &forward)
      case .performAndStop(let work):
        _ = perform(work, forwarding: more, to: &forward)
        return
      case .stop:
        return
      }
    }
  }

  /// Performs one step of the drain: hands `more` to the latest child when the step says so,
  /// then delivers. Returns the demand the downstream returned.
  @inlinable @inline(__always)
  func perform(
    _ work: Machine.Work, forwarding more: Subscribers.Demand, to forward: inout (any Subscription)?
  ) -> Subscribers.Demand {
    if work.forwardsDemand {
      forward?.request(more)
      forward = nil
    }
    switch work.step {
    case .deliver(let value):
      return downstream.map { relayValue($0, value) } ?? .none
    case .complete(let completion):
      let downstream = self.downstream
      self.downstream = nil
      if let downstream { relayCompletion(downstream, completion) }
    case .release:
      downstream = nil
    case .idle:
      break
    }
    return .none
  }
}

extension Publisher where Output: Publisher, Output.Failure == Failure {
  /// Republishes elements sent by the most recently received publisher.
  ///
  /// When a new publisher arrives, the subscription to the previous one is cancelled.
  ///
  /// ```swift
  /// let cancellable = queries
  ///     .map { query in search(query) }   // a publisher of publishers
  ///     .switchToLatest()
  ///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
  /// ```
  @inlinable
  public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
    Publishers.SwitchToLatest(upstream: self)
  }
}

extension Publisher where Output: Publisher, Failure == Never {
  /// Republishes elements sent by the most recently received publisher, when the upstream
  /// cannot fail and the inner publishers can.
  ///
  /// The upstream is given the inner publishers' failure type with `setFailureType(to:)`.
  ///
  /// ```swift
  /// let cancellable = queries   // never fails
  ///     .map { query in api.search(query) }   // fails with NetworkError
  ///     .switchToLatest()
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  @inlinable
  public func switchToLatest() -> Publishers.SwitchToLatest<Output, Publishers.SetFailureType<Self, Output.Failure>> {
    Publishers.SwitchToLatest(upstream: Publishers.SetFailureType(upstream: self))
  }
}

extension Publisher where Output: Publisher, Failure == Never, Output.Failure == Never {
  /// Republishes elements sent by the most recently received publisher, when neither the
  /// upstream nor the inner publishers can fail.
  ///
  /// ```swift
  /// let cancellable = selection
  ///     .map { id in model.details(for: id) }
  ///     .switchToLatest()
  ///     .sink { print($0) }
  /// ```
  @inlinable
  public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
    Publishers.SwitchToLatest(upstream: self)
  }
}

extension Publisher where Output: Publisher, Output.Failure == Never {
  /// Republishes elements sent by the most recently received publisher, when the inner
  /// publishers cannot fail and the upstream can.
  ///
  /// The inner publishers are given the upstream's failure type with `setFailureType(to:)`.
  ///
  /// ```swift
  /// let cancellable = sessions   // fails with SessionError
  ///     .map { session in session.$status }   // never fails
  ///     .switchToLatest()
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  @inlinable
  public func switchToLatest()
    -> Publishers.SwitchToLatest<
      Publishers.SetFailureType<Output, Failure>, Publishers.Map<Self, Publishers.SetFailureType<Output, Failure>>
    >
  {
    Publishers.SwitchToLatest(upstream: Publishers.Map(upstream: self) { Publishers.SetFailureType(upstream: $0) })
  }
}

import Synchronization

extension Publishers {
  /// A publisher that transforms elements from an upstream publisher into new publishers, and
  /// merges their elements into one stream.
  ///
  /// At most `maxPublishers` inner publishers are subscribed at once: the operator asks the
  /// upstream for `maxPublishers` elements at first, and for one more each time an inner publisher
  /// finishes, even if that publisher's values still wait for downstream demand, as in Combine (so
  /// with no demand, what waits can keep growing). It finishes when the upstream and every inner
  /// publisher have finished; the first failure, from the upstream or from any inner publisher,
  /// cancels everything else and is sent downstream. Values that wait for downstream demand go
  /// out in the order they arrived, whichever inner publisher sent them.
  ///
  /// An inner publisher that sends at most one value at once (`Just`, `Optional.Publisher`,
  /// `Result.Publisher`, `Empty`, `Fail`, or one of them behind `setFailureType(to:)`) is not
  /// subscribed to: its value or completion is taken as it is, which allocates nothing. The
  /// downstream and the upstream see exactly what a subscription would have produced, in the
  /// same order; only ``Census/liveObjects`` counts fewer objects.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher
  ///     .flatMap(maxPublishers: .max(2)) { [$0, $0 * 10].publisher }
  ///     .sink { print($0) }   // 1, 10, 2, 20, 3, 30
  /// ```
  public struct FlatMap<NewPublisher: Publisher, Upstream: Publisher>: Publisher
  where NewPublisher.Failure == Upstream.Failure {
    /// The kind of values published by this publisher.
    public typealias Output = NewPublisher.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The maximum number of concurrent publisher subscriptions.
    public let maxPublishers: Subscribers.Demand

    /// A closure that takes an element as a parameter and returns a publisher that produces
    /// elements of that type.
    public let transform: (Upstream.Output) -> NewPublisher

    /// Creates a publisher that transforms elements from an upstream publisher into a new
    /// publisher.
    @inlinable
    public init(
      upstream: Upstream, maxPublishers: Subscribers.Demand,
      transform: @escaping (Upstream.Output) -> NewPublisher
    ) {
      self.upstream = upstream
      self.maxPublishers = maxPublishers
      self.transform = transform
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let inner = Inner(downstream: subscriber, maxPublishers: maxPublishers, transform: transform)
      subscriber.receive(subscription: inner)
      upstream.subscribe(inner)
    }
  }
}

extension Publishers.FlatMap {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = FlatMapInner<
    Link<Upstream.Output, Upstream.Failure, Downstream>, NewPublisher
  >
  where Downstream.Input == NewPublisher.Output, Downstream.Failure == Upstream.Failure
}

/// The decisions of a `flatMap` subscription, kept apart from its calls out (DESIGN.md §3): each
/// event updates the state under the subscription's lock and says what the subscription does
/// once the lock is released.
///
/// Each inner publisher is a child with an id, listed in `children` while subscribed (or counted
/// in `scalarChildren` when it is a scalar one, see `ScalarPublisher`). A child is asked for one
/// value at a time, or for unlimited values once the downstream demand is unlimited, so at most
/// one value per child waits in `backlog` for downstream demand. Values reach the downstream from
/// the children and from the downstream's requests, possibly on different threads; the call that
/// claims `delivery` (see `DeliveryOwnership`) owns the downstream and asks `nextDelivery` what to do
/// until there is nothing more, where `nextDelivery` gives delivery back. Others queue their value.
///
/// At most `maxPublishers` children live at once: the upstream is asked for that many values at
/// first, and for one more each time a child finishes before the upstream has.
@usableFromInline
struct FlatMapStateMachine<Input, NewPublisher: Publisher> {
  @usableFromInline
  typealias Value = NewPublisher.Output
  @usableFromInline
  typealias Failure = NewPublisher.Failure
  @usableFromInline
  typealias Transform = (Input) -> NewPublisher
  @usableFromInline
  typealias Phase = FlatteningPhase<Failure>

  /// What the subscription lets go of when the upstream finishes, or the stream fails or is
  /// cancelled: the subscriptions to cancel (the children first and the upstream last, the order
  /// in which Combine cancels them), the transform (and what it captured) and the values not
  /// delivered, whose deinits may call back into it.
  @usableFromInline
  typealias Detached = Action.Detached

  /// What to do with a value from a child.
  @usableFromInline
  enum ValueAction {
    /// Dropped: its child was detached.
    case drop
    /// Queued for the call that owns delivery, or for demand; `askForMore`: it took its demand,
    /// and its child is asked for the next value now.
    case queued(askForMore: Bool)
    /// This call owns delivery: deliver the value, then drain; `askForMore`: its child is asked
    /// for the next value once the drain is done.
    case deliver(askForMore: Bool)
  }

  /// What to do after a completion or a cancel.
  @usableFromInline
  typealias Action = Phase.Action<Transform, (child: Int, value: Value)>

  /// What to do after a child finishes or fails: ask `replacement` (the upstream) for one more
  /// value when it is set, then perform `then`.
  @usableFromInline
  typealias ChildEndAction = (replacement: (any Subscription)?, then: Action)

  /// What the owner of delivery does next.
  @usableFromInline
  enum Delivery {
    // `replenish` names the child to ask for one more value: an existential in the payload
    // would make every copy of a step go through the runtime's generic enum witnesses.
    case deliver(Value, replenish: Int?)
    case complete(Subscribers.Completion<Failure>)
    /// The scalar child just delivered has finished: ask the upstream for one more.
    case requestReplacement
    /// The stream was cancelled while this call delivered: let the downstream go.
    case release
    /// Nothing more to deliver; delivery has been given back.
    case idle
  }

  @usableFromInline
  var phase = Phase.awaitingSubscription
  @usableFromInline
  var upstream: (any Subscription)?
  @usableFromInline
  var transform: Transform?
  @usableFromInline
  var children = FlatMapChildren()
  /// Scalar children not yet finished: the one whose value is being delivered, and those that
  /// never finish. They have no subscription, so they are counted rather than listed in
  /// `children`. Counted for as long as the stream goes on: only a failure or a cancel forgets
  /// them early, and they end it.
  @usableFromInline
  var scalarChildren = 0
  @usableFromInline
  var nextChildID = 0
  /// Values waiting for downstream demand or for the call that owns delivery, with their child.
  @usableFromInline
  var backlog = ValueQueue<(child: Int, value: Value)>()
  /// How many values at the front of `backlog` took their downstream demand when they arrived,
  /// and had their child asked for its next value then (see `childValue`): they are delivered
  /// without taking demand or asking their child again. A value is paid for only when every
  /// value before it is, so they stay at the front.
  @usableFromInline
  var paidBacklog = 0
  @usableFromInline
  var demand = Subscribers.Demand.none
  /// Which call owns the downstream.
  @usableFromInline
  var delivery = DeliveryOwnership()
  /// The call that owns delivery is inside a call into the downstream's `receive(_:)`: set where
  /// it takes the value to deliver, cleared at the next lock it takes.
  @usableFromInline
  var inDownstreamCall = false
  /// The owner of delivery is delivering the value of a scalar child. A subscribed child would
  /// finish once the owner's drain had given delivery back; it finishes instead where the drain
  /// would, and the owner keeps delivery for what follows.
  @usableFromInline
  var finishingScalar = false
  @usableFromInline
  let maxPublishers: Subscribers.Demand
  /// Whether the children are scalar ones: every child is of type `NewPublisher`, so either all
  /// are or none is.
  @usableFromInline
  let childrenAreScalar: Bool

  @inlinable
  init(maxPublishers: Subscribers.Demand, childrenAreScalar: Bool, transform: @escaping Transform) {
    self.maxPublishers = maxPublishers
    self.childrenAreScalar = childrenAreScalar
    self.transform = transform
  }

  /// Whether every child has finished.
  @inlinable
  var childrenFinished: Bool { children.isEmpty && scalarChildren == 0 }

  // MARK: Upstream

  /// The upstream's subscription: returns the demand to ask of it (`maxPublishers`, `.none`
  /// included, as in Combine), or `nil` to cancel it (a second one, or one after the end).
  @usableFromInline
  mutating func receiveSubscription(_ subscription: any Subscription) -> Subscribers.Demand? {
    guard phase.takeSubscription() else { return nil }
    upstream = subscription
    return maxPublishers
  }

  /// A value from the upstream: returns the id of its child and the transform that makes the
  /// child's publisher, or `nil` to ignore it.
  @inlinable
  mutating func outerValue() -> (child: Int, transform: Transform)? {
    guard phase.takesUpstreamValues, let transform else { return nil }
    let id = nextChildID
    nextChildID += 1
    if childrenAreScalar { scalarChildren += 1 } else { children.append(id) }
    return (id, transform)
  }

  /// The upstream's completion. A finish lets go of the transform and ends the stream once every
  /// child has finished; a failure ends it at once, cancelling every child.
  @usableFromInline
  mutating func outerCompletion(_ completion: Subscribers.Completion<Failure>) -> Action {
    switch completion {
    case .finished:
      guard phase.finishOuter() else { return .none }
      upstream = nil
      var detached = Detached()
      swap(&transform, &detached.held)
      return .detach(detached, drains: delivery.claim())
    case .failure(let error):
      return fail(error, child: nil)
    }
  }

  // MARK: Scalar children

  /// The value of scalar child `id`: what `childSubscription`, `childValue` and
  /// `childCompletion` would do for a subscribed child, which asks for a value as soon as it is
  /// subscribed and finishes right after it. `replacement` receives the upstream, when it is to
  /// be asked for one more value. Returns whether this call owns delivery, to deliver the value
  /// and drain; otherwise the value waits, or is dropped after the end. (A `Bool`, as the child
  /// is asked for nothing more either way.)
  ///
  /// The upstream leaves through `replacement` rather than inside the result, as in `nextDelivery`.
  @inlinable
  mutating func scalarValue(_ id: Int, _ value: Value, replacement: inout (any Subscription)?) -> Bool {
    guard phase.isActive else { return false }
    if demand == .none || !backlog.isEmpty || !delivery.claim() {
      backlog.append((id, value))
      // The child finishes at once and its value waits without it. The call that owns delivery
      // drains the backlog; when nobody does, demand is zero and a drain would find nothing to
      // do, so this call does not claim it.
      if finishScalarChild() { replacement = upstream }
      return false
    }
    inDownstreamCall = true
    takeOne()
    finishingScalar = true
    return true
  }

  /// Scalar child `id` finished without a value.
  @usableFromInline
  mutating func scalarFinished() -> ChildEndAction {
    guard phase.isActive else { return (nil, .none) }
    let replacement = finishScalarChild() ? upstream : nil
    return (replacement, delivery.claim() ? .drain : .none)
  }

  // MARK: Children

  /// Child `id`'s subscription: returns the demand to ask of it, or `nil` to cancel it, when the
  /// child is gone or already has one.
  @usableFromInline
  mutating func childSubscription(_ id: Int, _ subscription: any Subscription) -> Subscribers.Demand? {
    guard phase.isActive, let index = children.index(of: id), children.children[index].subscription == nil else {
      return nil
    }
    let unlimited = demand == .unlimited
    children.children[index] = FlatMapChildren.Child(subscription: subscription, unlimited: unlimited)
    return unlimited ? .unlimited : .max(1)
  }

  /// A value from child `id`.
  ///
  /// One arriving while the owner of delivery is inside the downstream's `receive(_:)` (this
  /// thread further up the stack, or another one), with demand to spare and nothing waiting for
  /// demand, is one Combine would deliver at once, nested in that call, and answer with
  /// `.max(1)`. Calls into the downstream never nest here: the value takes its demand, waits for
  /// that call to return, and its child is asked for the next value now, as in Combine.
  /// Otherwise a queued value answers `.none`, and its child is asked for the next value once it
  /// is delivered.
  @inlinable
  mutating func childValue(_ id: Int, _ value: Value) -> ValueAction {
    guard phase.isActive, let index = children.index(of: id) else { return .drop }
    if demand == .none || !backlog.isEmpty || !delivery.claim() {
      let paid = inDownstreamCall && demand != .none && paidBacklog == backlog.count
      backlog.append((id, value))
      guard paid else { return .queued(askForMore: false) }
      paidBacklog += 1
      takeOne()
      return .queued(askForMore: !children.children[index].unlimited)
    }
    inDownstreamCall = true
    takeOne()
    return .deliver(askForMore: !children.children[index].unlimited)
  }

  /// The owner's call into the downstream with a value of child `id` returned: the child's
  /// subscription, to ask for one more value, if the child is still attached.
  @inlinable
  mutating func childValueDelivered(_ id: Int) -> (any Subscription)? {
    inDownstreamCall = false
    return children.index(of: id).flatMap { children.children[$0].subscription }
  }

  /// Child `id`'s completion. A finish is replaced by one more value from the upstream while
  /// children are bounded and more may come.
  @usableFromInline
  mutating func childCompletion(_ id: Int, _ completion: Subscribers.Completion<Failure>) -> ChildEndAction {
    switch completion {
    case .finished:
      guard phase.isActive, children.remove(id) else { return (nil, .none) }
      let replaced = phase.takesUpstreamValues && maxPublishers != .unlimited
      return (replaced ? upstream : nil, delivery.claim() ? .drain : .none)
    case .failure(let error):
      return (nil, fail(error, child: id))
    }
  }

  // MARK: Downstream

  /// A request from the downstream: returns the children to ask for unlimited values, now that
  /// the demand is, and whether this call owns delivery, to deliver the backlog.
  @inlinable
  mutating func request(_ more: Subscribers.Demand) -> (upgraded: [any Subscription], drains: Bool) {
    guard phase.isActive else { return ([], false) }
    let upgraded = addDemand(more)
    return (upgraded, !backlog.isEmpty && delivery.claim())
  }

  /// The downstream's cancel: the children and the upstream are cancelled, and the call that
  /// claims delivery lets the downstream go.
  @usableFromInline
  mutating func cancel() -> Action {
    guard case .terminal = phase else {
      phase = .terminal
      return .detach(detachAll(except: nil, includingUpstream: true), drains: delivery.claim())
    }
    return .none
  }

  /// Fails with `error` from the upstream (`failed` nil) or from child `failed`, cancelling the
  /// other children and, after an inner failure, the upstream. (Combine leaves the upstream
  /// running after an inner failure, and the upstream keeps the failed subscription until it
  /// completes.)
  @usableFromInline
  mutating func fail(_ error: Failure, child failed: Int?) -> Action {
    guard phase.isActive else { return .none }
    phase = .failing(error)
    return .detach(detachAll(except: failed, includingUpstream: failed != nil), drains: delivery.claim())
  }

  // MARK: Delivery

  /// Asked by the owner of delivery, after a call into the downstream returned `more`: adds
  /// `more` to the demand, then says what to do: deliver the values paid for on arrival, then
  /// the backlog while there is demand, then finish the scalar child just delivered, then
  /// complete once the upstream and every child have finished. Returns with the step the
  /// children to ask for unlimited values, now that the demand is; `replacement` receives the
  /// upstream with `.requestReplacement`.
  ///
  /// The upstream leaves through `replacement` rather than inside the step: with an existential
  /// in the results of this and of `scalarValue`, "5 x flatMap { Just($0) }" costs 30 % more
  /// per value.
  @inlinable
  mutating func nextDelivery(
    adding more: Subscribers.Demand, replacement: inout (any Subscription)?
  ) -> (Delivery, [any Subscription]) {
    inDownstreamCall = false
    switch phase {
    case .awaitingSubscription, .subscribed, .outerFinished:
      let upgraded = addDemand(more)
      if paidBacklog > 0, let (_, value) = backlog.popFirst() {
        paidBacklog -= 1
        inDownstreamCall = true
        return (.deliver(value, replenish: nil), upgraded)
      }
      if demand != .none, let (id, value) = backlog.popFirst() {
        takeOne()
        let replenish = children.index(of: id).flatMap { index in children.children[index].unlimited ? nil : id }
        inDownstreamCall = true
        return (.deliver(value, replenish: replenish), upgraded)
      }
      if finishingScalar {
        finishingScalar = false
        if finishScalarChild() {
          replacement = upstream
          return (.requestReplacement, upgraded)
        }
      }
      if phase.outerFinished && childrenFinished && backlog.isEmpty {
        phase = .terminal
        return (.complete(.finished), upgraded)
      }
      delivery.giveBack()
      return (.idle, upgraded)
    case .failing(let error):
      phase = .terminal
      return (.complete(.failure(error)), [])
    case .terminal:
      return (.release, [])
    }
  }

  // MARK: Helpers

  @inlinable
  mutating func takeOne() {
    if demand != .unlimited { demand -= 1 }
  }

  /// Counts a scalar child as finished, and returns whether the upstream is to be asked for a
  /// replacement: children are bounded and more may come. (A `Bool` rather than the upstream
  /// itself: moving an optional subscription existential costs runtime calls, which the
  /// unbounded case, the usual one, should not pay per value.)
  @usableFromInline
  mutating func finishScalarChild() -> Bool {
    scalarChildren -= 1
    return phase.takesUpstreamValues && maxPublishers != .unlimited
  }

  /// Adds downstream demand; when it becomes unlimited, returns the children to ask for
  /// unlimited values.
  @inlinable
  mutating func addDemand(_ more: Subscribers.Demand) -> [any Subscription] {
    guard more != .none, demand != .unlimited else { return [] }
    demand += more
    guard demand == .unlimited else { return [] }
    var upgraded: [any Subscription] = []
    for index in children.indices where !children.children[index].unlimited {
      children.children[index].unlimited = true
      if let subscription = children.children[index].subscription { upgraded.append(subscription) }
    }
    return upgraded
  }

  /// Forgets the upstream and every child but `excluded`; returns the subscriptions to cancel,
  /// with the transform and the values not delivered, for the caller to let go of after the
  /// lock.
  @usableFromInline
  mutating func detachAll(except excluded: Int?, includingUpstream: Bool) -> Detached {
    var detached = Detached()
    for index in children.indices where children.ids[index] != excluded {
      if let subscription = children.children[index].subscription { detached.cancelled.append(subscription) }
    }
    if includingUpstream, let upstream { detached.cancelled.append(upstream) }
    upstream = nil
    swap(&transform, &detached.held)
    children.removeAll()
    scalarChildren = 0
    swap(&backlog, &detached.backlog)
    paidBacklog = 0
    return detached
  }
}

/// Subscribes to the upstream and to every inner publisher, and serializes what they send; its
/// decisions are a `FlatMapStateMachine`'s.
///
/// Each inner publisher gets its own `ChildSubscriber`. Calls into the downstream never overlap:
/// whichever call claims delivery (see `DeliveryOwnership`) owns the downstream and delivers the
/// backlog before it gives delivery back; a call that finds it claimed queues its value and
/// returns.
///
/// Generic over one `OperatorLink` and the inner publishers' type, so that a pipeline repeating
/// the operator stays specialized (see `OperatorLink`).
@usableFromInline
final class FlatMapInner<Types: OperatorLink, NewPublisher: Publisher>: Subscriber, SubscriptionRequestHandler,
  Subscription, ChildSubscriberParent, CustomReflectable, CustomPlaygroundDisplayConvertible
where
  Types.Downstream.Input == NewPublisher.Output, Types.Downstream.Failure == Types.Failure,
  NewPublisher.Failure == Types.Failure
{
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Types.Failure
  @usableFromInline
  typealias Downstream = Types.Downstream
  @usableFromInline
  typealias Machine = FlatMapStateMachine<Input, NewPublisher>

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<Machine>
  // Fields with unchecked exclusivity skip the runtime check, which costs in "5 x flatMap { Just($0) }".
  // Owned by the call that owns `state.delivery`; released when the subscription ends.
  @usableFromInline @exclusivity(unchecked)
  var downstream: Downstream?
  @usableFromInline
  let census: CensusToken
  // Specialized `request` and `cancel`; see `SubscriptionRequest`.
  @usableFromInline
  let handle: @Sendable (FlatMapInner, SubscriptionRequest) -> Void
  // Call into `downstream` through functions built in the `@inlinable` initializer, where
  // every type is known: the optimizer refuses to specialize a call from `Inner<U>` into
  // `Inner<Wrapper<U>>` (it takes it for an endless specialization loop), so every nested level
  // after the first would run unspecialized generic code ("5 x flatMap { Just($0) }").
  @usableFromInline
  let relayValue: (Downstream, Downstream.Input) -> Subscribers.Demand
  @usableFromInline
  let relayCompletion: (Downstream, Subscribers.Completion<Downstream.Failure>) -> Void
  // Reads inner publishers that need no subscription; see `ScalarPublisher`.
  @usableFromInline
  let readScalar: ((NewPublisher) -> ScalarOutcome<NewPublisher.Output, NewPublisher.Failure>)?

  @usableFromInline
  var description: String { "FlatMap" }
  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
  @usableFromInline
  var playgroundDescription: Any { description }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(
    downstream: Downstream, maxPublishers: Subscribers.Demand,
    transform: @escaping (Input) -> NewPublisher
  ) {
    census = CensusToken(FlatMapInner.self, inheritingFrom: downstream)
    let readScalar = NewPublisher.scalarReader
    state = Locked(
      Machine(maxPublishers: maxPublishers, childrenAreScalar: readScalar != nil, transform: transform))
    self.downstream = downstream
    handle = SubscriptionRequest.dispatcher()
    relayValue = { downstream, value in downstream.receive(value) }
    relayCompletion = { downstream, completion in downstream.receive(completion: completion) }
    self.readScalar = readScalar
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
  func receive(_ input: Input) -> Subscribers.Demand {
    guard let (id, transform) = state.withLock({ $0.outerValue() }) else { return .none }
    let publisher = transform(input)
    if let read = readScalar {
      receiveScalar(id, read(publisher))
    } else {
      publisher.subscribe(ChildSubscriber(parent: self, id: id))
    }
    return .none
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    perform(state.withLock { $0.outerCompletion(completion) })
  }

  // MARK: Scalar children

  /// Does what subscribing child `id` to a scalar publisher would, without the subscription.
  @inlinable
  func receiveScalar(_ id: Int, _ outcome: ScalarOutcome<NewPublisher.Output, Failure>) {
    switch outcome {
    case .value(let value):
      // The upstream leaves through a captured variable: see `FlatMapStateMachine.scalarValue`.
      var replacement: (any Subscription)?
      let delivers = state.withLock { $0.scalarValue(id, value, replacement: &replacement) }
      replacement?.request(.max(1))
      guard delivers else { return }
      let more = downstream.map { relayValue($0, value) } ?? .none
      drain(more: more)
    case .finished:
      perform(state.withLock { $0.scalarFinished() })
    case .failure(let error):
      perform(state.withLock { $0.fail(error, child: id) })
    case .silent:
      break
    }
  }

  // MARK: Children

  @usableFromInline
  func childSubscribed(_ id: Int, _ subscription: any Subscription) {
    guard let demand = state.withLock({ $0.childSubscription(id, subscription) }) else {
      subscription.cancel()
      return
    }
    subscription.request(demand)
  }

  @inlinable
  func childReceived(_ id: Int, _ value: NewPublisher.Output) -> Subscribers.Demand {
    switch state.withLock({ $0.childValue(id, value) }) {
    case .drop:
      return .none
    case .queued(let askForMore):
      return askForMore ? .max(1) : .none
    case .deliver(let askForMore):
      let more = downstream.map { relayValue($0, value) } ?? .none
      drain(more: more)
      return askForMore ? .max(1) : .none
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
    let (upgraded, drains) = state.withLock { $0.request(demand) }
    for subscription in upgraded { subscription.request(.unlimited) }
    if drains { drain(more: .none) }
  }

  @usableFromInline
  func handleCancel() {
    perform(state.withLock { $0.cancel() })
  }

  // MARK: Delivery

  @inlinable
  func perform(_ action: Machine.Action) {
    action.perform { drain(more: .none) }
  }

  @inlinable
  func perform(_ action: Machine.ChildEndAction) {
    action.replacement?.request(.max(1))
    perform(action.then)
  }

  /// Runs while this call owns delivery: performs what the state machine's `nextDelivery` says,
  /// starting with the demand the downstream just returned.
  @inlinable
  func drain(more initial: Subscribers.Demand) {
    var more = initial
    // The upstream leaves through a captured variable; see `FlatMapStateMachine.nextDelivery`.
    var replacement: (any Subscription)?
    // The owner's loop of `DeliveryOwnership`, written out rather than run by `Locked.drain`:
    // through it, the loop of "5 x flatMap { Just($0) }, per value" is not inlined and destroys
    // its steps through generic witnesses.
    while true {
      let (step, upgraded) = state.withLock { $0.nextDelivery(adding: more, replacement: &replacement) }
      for subscription in upgraded { subscription.request(.unlimited) }
      switch step {
      case .deliver(let value, let replenish):
        more = downstream.map { relayValue($0, value) } ?? .none
        if let replenish { state.withLock { $0.childValueDelivered(replenish) }?.request(.max(1)) }
      case .requestReplacement:
        more = .none
        replacement?.request(.max(1))
        replacement = nil
      case .complete(let completion):
        let downstream = self.downstream
        self.downstream = nil
        if let downstream { relayCompletion(downstream, completion) }
        return
      case .release:
        downstream = nil
        return
      case .idle:
        return
      }
    }
  }
}

extension Publisher {
  /// Transforms all elements from an upstream publisher into a new publisher up to a maximum
  /// number of publishers you specify, and merges their elements.
  ///
  /// ```swift
  /// let cancellable = userIDs
  ///     .flatMap(maxPublishers: .max(4)) { id in api.user(id) }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  ///
  /// - Parameters:
  ///   - maxPublishers: The maximum number of concurrent publisher subscriptions, or `.unlimited`.
  ///   - transform: A closure that takes an element as a parameter and returns a publisher that
  ///     produces elements of that type.
  @inlinable
  public func flatMap<T, P: Publisher>(
    maxPublishers: Subscribers.Demand = .unlimited, _ transform: @escaping (Output) -> P
  ) -> Publishers.FlatMap<P, Self> where T == P.Output, Failure == P.Failure {
    Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers, transform: transform)
  }
}

extension Publisher {
  /// Transforms all elements from an upstream publisher into a new publisher that cannot fail,
  /// up to a maximum number of publishers you specify.
  ///
  /// The inner publishers are given the upstream's failure type with `setFailureType(to:)`.
  ///
  /// ```swift
  /// let cancellable = requests   // fails with NetworkError
  ///     .flatMap { request in Just(request.id) }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  @inlinable
  public func flatMap<P: Publisher>(
    maxPublishers: Subscribers.Demand = .unlimited, _ transform: @escaping (Output) -> P
  ) -> Publishers.FlatMap<Publishers.SetFailureType<P, Failure>, Self> where P.Failure == Never {
    Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers) {
      Publishers.SetFailureType(upstream: transform($0))
    }
  }
}

extension Publisher where Failure == Never {
  /// Transforms all elements from an upstream publisher that cannot fail into a new publisher
  /// that can, up to a maximum number of publishers you specify.
  ///
  /// The upstream is given the inner publishers' failure type with `setFailureType(to:)`.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher
  ///     .flatMap { id in api.user(id) }   // fails with NetworkError
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  @inlinable
  public func flatMap<P: Publisher>(
    maxPublishers: Subscribers.Demand = .unlimited, _ transform: @escaping (Output) -> P
  ) -> Publishers.FlatMap<P, Publishers.SetFailureType<Self, P.Failure>> {
    Publishers.FlatMap(
      upstream: Publishers.SetFailureType(upstream: self), maxPublishers: maxPublishers, transform: transform)
  }

  /// Transforms all elements from an upstream publisher that cannot fail into a new publisher
  /// that cannot fail either, up to a maximum number of publishers you specify.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher
  ///     .flatMap { [$0, $0].publisher }
  ///     .sink { print($0) }   // 1, 1, 2, 2, 3, 3
  /// ```
  @inlinable
  public func flatMap<P: Publisher>(
    maxPublishers: Subscribers.Demand = .unlimited, _ transform: @escaping (Output) -> P
  ) -> Publishers.FlatMap<P, Self> where P.Failure == Never {
    Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers, transform: transform)
  }
}

/// The live inner publishers of a `flatMap`, by id. Ids are handed out in increasing order, so
/// the entries stay sorted by appending, and a lookup is a binary search: no hashing, and no
/// allocation once the storage has grown to the number of inners alive at once. Entries are read
/// and changed in place: copying one would copy its subscription existential.
@usableFromInline
struct FlatMapChildren {
  @usableFromInline
  var ids: ContiguousArray<Int> = []
  @usableFromInline
  var children: ContiguousArray<Child> = []

  @inlinable
  init() {}

  @inlinable
  var isEmpty: Bool { ids.isEmpty }

  @inlinable
  var indices: Range<Int> { ids.indices }

  @inlinable
  func index(of id: Int) -> Int? {
    var low = 0
    var high = ids.count
    while low < high {
      let middle = (low + high) / 2
      let found = ids[middle]
      if found == id { return middle }
      if found < id { low = middle + 1 } else { high = middle }
    }
    return nil
  }

  /// Adds a child not yet subscribed; `id` must be above every id present.
  @inlinable
  mutating func append(_ id: Int) {
    precondition(ids.last.map { $0 < id } ?? true, "flatMap children are added in id order")
    ids.append(id)
    children.append(Child())
  }

  /// Removes child `id`; `false` if it was not there.
  @inlinable
  mutating func remove(_ id: Int) -> Bool {
    guard let index = index(of: id) else { return false }
    ids.remove(at: index)
    children.remove(at: index)
    return true
  }

  @inlinable
  mutating func removeAll() {
    ids.removeAll()
    children.removeAll()
  }

  /// One inner publisher of a `flatMap`.
  @usableFromInline
  struct Child {
    /// `nil` until the inner publisher sends its subscription.
    @usableFromInline
    var subscription: (any Subscription)?
    /// Whether the child was asked for unlimited values; otherwise it is asked for one at a time.
    @usableFromInline
    var unlimited: Bool

    @inlinable
    init(subscription: (any Subscription)? = nil, unlimited: Bool = false) {
      self.subscription = subscription
      self.unlimited = unlimited
    }
  }
}

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

/// Subscribes to the upstream and to its latest publisher.
///
/// Downstream demand goes straight to the current inner publisher; `demand` counts what the
/// downstream asked for and no accepted element has used yet, so that a new inner publisher is
/// asked for exactly that much. An element from an inner publisher that has been replaced is
/// dropped. Calls into the downstream never overlap: a cancelled inner publisher may still be
/// delivering on another thread when the new one starts, so whichever thread claims delivery
/// (see `DeliveryOwnership`) owns the downstream, and others queue their element for it.
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`).
@usableFromInline
final class SwitchToLatestInner<Types: OperatorLink>: Subscriber, SubscriptionRequestHandler, Subscription,
  ChildSubscriberParent, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
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
  typealias Phase = FlatteningPhase<Failure>

  @usableFromInline
  struct State {
    @usableFromInline
    var phase = Phase.active
    @usableFromInline
    var upstream: (any Subscription)?
    @usableFromInline
    var upstreamReceived = false
    @usableFromInline
    var outerFinished = false
    /// The latest inner publisher's child, until it finishes.
    @usableFromInline
    var currentID: Int?
    /// The latest inner publisher's subscription, once it has arrived.
    @usableFromInline
    var current: (any Subscription)?
    /// The value of the latest inner publisher when it is a scalar publisher whose value waits
    /// for demand, as it would wait in an unrequested subscription.
    @usableFromInline
    var pendingScalar: P.Output?
    @usableFromInline
    var nextID = 0
    @usableFromInline
    var demand = Subscribers.Demand.none
    /// Accepted elements waiting for the delivering thread.
    @usableFromInline
    var backlog = ValueQueue<P.Output>()
    /// Which thread owns the downstream (see `DeliveryOwnership`).
    @usableFromInline
    var delivery = DeliveryOwnership()

    @inlinable
    init() {}

    /// Forgets the upstream and the current child; returns the subscriptions to cancel (the
    /// child first, as Combine cancels them), with the values not delivered, for the caller to
    /// let go of after the lock.
    @inlinable
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

    /// What `detachAll` lets go of: the scalar value held back and the values not delivered.
    @usableFromInline
    typealias Detached = DetachedState<P.Output, P.Output>

    /// Makes child `id` the latest one, dropping the previous one with the elements it had
    /// sent that were not yet delivered; the demand they had taken goes to the new one.
    /// Returns the previous subscription, to cancel.
    @inlinable
    mutating func switchTo(_ id: Int) -> (any Subscription)? {
      let previous = current
      current = nil
      switchToScalar(id)
      return previous
    }

    /// `switchTo(_:)` for an operator whose inner publishers are scalar publishers, which
    /// never have a subscription: an existential moved for nothing costs calls into the
    /// runtime.
    @inlinable
    mutating func switchToScalar(_ id: Int) {
      pendingScalar = nil
      if demand != .unlimited { demand += backlog.count }
      backlog.removeAll()
      currentID = id
    }

    /// What a subscription to the scalar publisher `id`, the latest one, does with its value:
    /// it sends it at the first demand, and finishes right after.
    @inlinable
    mutating func acceptScalar(_ value: P.Output, id: Int) -> ScalarArrival {
      if demand == .none {
        pendingScalar = value
        return .waiting
      }
      if demand != .unlimited { demand -= 1 }
      guard delivery.claim() else {
        backlog.append(value)
        // Finished; the thread that owns delivery completes if the upstream has finished.
        currentID = nil
        return .queued
      }
      return .deliver(value, finishing: id)
    }
  }

  @usableFromInline
  enum ScalarArrival {
    /// Taken by the thread that owns delivery, or waiting for demand.
    case queued
    case waiting
    /// This thread owns delivery: deliver the value, then finish child `finishing`.
    case deliver(P.Output, finishing: Int)
    /// Switched to child `id`, which sends no value.
    case switched(Int)
    case ignored
  }

  @usableFromInline
  enum Step {
    /// Deliver a value; `finishing` is a scalar child to finish once it has been delivered.
    case deliver(P.Output, finishing: Int?)
    case complete(Subscribers.Completion<Failure>)
    case release
    case idle
  }

  // Guarded by its own lock.
  @usableFromInline
  let state = Locked(State())
  // Owned by the thread that owns `state.delivery`; released when the subscription ends.
  @usableFromInline @exclusivity(unchecked)
  var downstream: Downstream?
  @usableFromInline
  let census: CensusToken
  // Specialized `request` and `cancel`; see `SubscriptionRequest`.
  @usableFromInline
  let handle: (SwitchToLatestInner, SubscriptionRequest) -> Void
  // Calls into `downstream`; see `DownstreamRelay`.
  @usableFromInline
  let relay: DownstreamRelay<Downstream>
  // Reads inner publishers that need no subscription; see `ScalarPublisher`.
  @usableFromInline
  let scalar: ScalarReader<P>

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
    relay = DownstreamRelay()
    scalar = ScalarReader()
  }

  // MARK: Upstream

  @inlinable
  func receive(subscription: any Subscription) {
    let accepted = state.withLock { state -> Bool in
      guard case .active = state.phase, !state.upstreamReceived else { return false }
      state.upstreamReceived = true
      state.upstream = subscription
      return true
    }
    guard accepted else {
      subscription.cancel()
      return
    }
    subscription.request(.unlimited)
  }

  @inlinable
  func receive(_ input: P) -> Subscribers.Demand {
    if let read = scalar.read {
      receiveScalar(read(input))
      return .none
    }
    // The previous subscription leaves through a captured variable: an existential inside the
    // lock's generic result would be copied through the runtime's generic witnesses.
    var previous: (any Subscription)?
    let switched = state.withLock { state -> Int? in
      guard case .active = state.phase, !state.outerFinished else { return nil }
      let id = state.nextID
      state.nextID += 1
      previous = state.switchTo(id)
      return id
    }
    guard let id = switched else { return .none }
    previous?.cancel()
    input.subscribe(ChildSubscriber(parent: self, id: id))
    return .none
  }

  // MARK: Scalar children

  /// Does what subscribing to a scalar publisher would, without the subscription: the child is
  /// asked for the outstanding demand when it is subscribed, sends its value when that is not
  /// zero, and finishes right after it.
  @inlinable
  func receiveScalar(_ outcome: ScalarOutcome<P.Output, Failure>) {
    // Every inner publisher is of type `P`, a scalar type here, so none ever has a
    // subscription: there is no previous one to cancel, and nothing can happen between the
    // switch and the new child being subscribed and sending its value.
    let arrival = state.withLock { state -> ScalarArrival in
      guard case .active = state.phase, !state.outerFinished else { return .ignored }
      let id = state.nextID
      state.nextID += 1
      state.switchToScalar(id)
      guard case .value(let value) = outcome else { return .switched(id) }
      return state.acceptScalar(value, id: id)
    }
    switch arrival {
    case .queued, .waiting, .ignored:
      return
    case .deliver(let value, let finishing):
      deliverScalar(value, finishing: finishing)
    case .switched(let id):
      switch outcome {
      case .value: break
      case .finished: childCompleted(id, .finished)
      case .failure(let error): childCompleted(id, .failure(error))
      case .silent: break
      }
    }
  }

  /// Delivers the value of scalar child `id` while this thread owns delivery.
  @inlinable
  func deliverScalar(_ value: P.Output, finishing id: Int) {
    let more = downstream.map { relay.value($0, value) } ?? .none
    drain(more: more, finishing: id)
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>) {
    switch completion {
    case .finished:
      let owns = state.withLock { state -> Bool in
        guard case .active = state.phase, !state.outerFinished else { return false }
        state.outerFinished = true
        state.upstream = nil
        return state.currentID == nil && state.delivery.claim()
      }
      if owns { drain(more: .none) }
    case .failure(let error):
      fail(error, fromChild: nil)
    }
  }

  // MARK: Children

  @inlinable
  func childSubscribed(_ id: Int, _ subscription: any Subscription) {
    let demand = state.withLock { state -> Subscribers.Demand? in
      guard case .active = state.phase, state.currentID == id, state.current == nil else { return nil }
      state.current = subscription
      return state.demand
    }
    guard let demand else {
      subscription.cancel()
      return
    }
    if demand != .none { subscription.request(demand) }
  }

  @inlinable
  func childReceived(_ id: Int, _ value: P.Output) -> Subscribers.Demand {
    let owns = state.withLock { state -> Bool in
      guard case .active = state.phase, state.currentID == id else { return false }
      // The latest publisher was asked for exactly the demand outstanding; Combine stops here
      // too.
      precondition(
        state.demand != .none,
        "switchToLatest(): an inner publisher sent a value it was not asked for; a publisher must not send more values than its subscriber requested"
      )
      if state.demand != .unlimited { state.demand -= 1 }
      guard state.delivery.claim() else {
        state.backlog.append(value)
        return false
      }
      return true
    }
    guard owns else { return .none }
    let more = downstream.map { relay.value($0, value) } ?? .none
    // As in Combine, what the downstream returned goes back to the inner publisher as the
    // demand its `receive(_:)` returns, when that publisher is still the latest (even before
    // its subscription arrived) and nothing else waits; otherwise the drain asks for it.
    let returned = state.withLock { state -> Bool in
      guard case .active = state.phase, state.currentID == id, state.backlog.isEmpty, state.pendingScalar == nil
      else { return false }
      state.demand += more
      state.delivery.giveBack()
      return true
    }
    if returned { return more }
    drain(more: more)
    return .none
  }

  @inlinable
  func childCompleted(_ id: Int, _ completion: Subscribers.Completion<Failure>) {
    switch completion {
    case .finished:
      let owns = state.withLock { state -> Bool in
        guard case .active = state.phase, state.currentID == id else { return false }
        assertSubscribed(state.current != nil)
        state.currentID = nil
        state.current = nil
        return state.outerFinished && state.delivery.claim()
      }
      if owns { drain(more: .none) }
    case .failure(let error):
      fail(error, fromChild: id)
    }
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
    // The subscription leaves through a captured variable; see `receive(_:)`.
    var current: (any Subscription)?
    let arrival = state.withLock { state -> ScalarArrival in
      guard case .active = state.phase else { return .ignored }
      state.demand += demand
      if let value = state.pendingScalar, let id = state.currentID {
        state.pendingScalar = nil
        return state.acceptScalar(value, id: id)
      }
      current = state.current
      return .ignored
    }
    current?.request(demand)
    if case .deliver(let value, let finishing) = arrival { deliverScalar(value, finishing: finishing) }
  }

  @inlinable
  func handleCancel() {
    let ended = state.withLock { state -> (State.Detached, Bool)? in
      switch state.phase {
      case .active, .failing: break
      case .cancelled, .done: return nil
      }
      state.phase = .cancelled
      return (state.detachAll(includingUpstream: true, includingCurrent: true), state.delivery.claim())
    }
    guard let (detached, owns) = ended else { return }
    for subscription in detached.cancelled { subscription.cancel() }
    if owns { drain(more: .none) }
  }

  /// Stops the program if the latest child, completing, never sent its subscription: that
  /// breaks the contract, and Combine stops too. A scalar child has none, being never subscribed
  /// to; every inner publisher is of type `P`, so either all are scalar or none is.
  @inlinable
  func assertSubscribed(_ subscribed: Bool) {
    precondition(
      subscribed || scalar.read != nil,
      "switchToLatest(): an inner publisher completed before sending its subscription; a publisher must call receive(subscription:) first"
    )
  }

  // MARK: Delivery

  /// Fails with `error` from the upstream (`child` nil) or from child `child`, which counts only
  /// while it is the current child. Checked and acted on under one lock: a child that the
  /// upstream switched to in between would otherwise be forgotten without being cancelled.
  @inlinable
  func fail(_ error: Failure, fromChild child: Int?) {
    let ended = state.withLock { state -> (State.Detached, Bool)? in
      guard case .active = state.phase else { return nil }
      if let child {
        guard state.currentID == child else { return nil }
        assertSubscribed(state.current != nil)
        // The child that failed needs no cancel.
        state.current = nil
      }
      state.phase = .failing(error)
      let detached = state.detachAll(includingUpstream: child != nil, includingCurrent: child == nil)
      return (detached, state.delivery.claim())
    }
    guard let (detached, owns) = ended else { return }
    for subscription in detached.cancelled { subscription.cancel() }
    if owns { drain(more: .none) }
  }

  /// Runs while this thread owns delivery: passes the demand the downstream just returned to
  /// the current publisher, delivers queued elements, and completes when everything has
  /// finished.
  ///
  /// `finishing` is a scalar child whose value this thread just delivered. A subscribed child
  /// would finish once this drain had let go of delivery; it finishes instead where the drain
  /// would let go, and this thread keeps delivery for what follows. Likewise, demand that
  /// reaches a scalar child whose value waits delivers that value here, where a subscribed
  /// child would send it once this drain had let go.
  @inlinable
  func drain(more initial: Subscribers.Demand, finishing initialFinishing: Int? = nil) {
    var more = initial
    var finishing = initialFinishing
    // The subscription leaves through a captured variable, touched only when there is one;
    // see `receive(_:)`.
    var forward: (any Subscription)?
    var forwarding = false
    state.drain { state -> DeliveryStep<Step> in
      switch state.phase {
      case .active:
        if more != .none {
          state.demand += more
          if state.current != nil {
            forward = state.current
            forwarding = true
          }
        }
        if let value = state.backlog.popFirst() {
          return .perform(.deliver(value, finishing: nil))
        }
        if let finished = finishing {
          finishing = nil
          // Unless the upstream has sent a newer publisher meanwhile.
          if state.currentID == finished { state.currentID = nil }
        }
        // The backlog is empty: a scalar value waits only while its child is the latest
        // and nothing of it was accepted.
        if more != .none, let value = state.pendingScalar, let id = state.currentID {
          state.pendingScalar = nil
          if state.demand != .unlimited { state.demand -= 1 }
          return .perform(.deliver(value, finishing: id))
        }
        if state.outerFinished && state.currentID == nil {
          state.phase = .done
          return .performAndStop(.complete(.finished))
        }
        state.delivery.giveBack()
        // Performed, for the demand it forwards.
        return .performAndStop(.idle)
      case .failing(let error):
        state.phase = .done
        return .performAndStop(.complete(.failure(error)))
      case .cancelled, .done:
        state.phase = .done
        return .performAndStop(.release)
      }
    } perform: { step in
      if forwarding {
        forward?.request(more)
        forward = nil
        forwarding = false
      }
      switch step {
      case .deliver(let value, let finished):
        if let finished { finishing = finished }
        more = downstream.map { relay.value($0, value) } ?? .none
      case .complete(let completion):
        let downstream = self.downstream
        self.downstream = nil
        if let downstream { relay.completion(downstream, completion) }
      case .release:
        downstream = nil
      case .idle:
        break
      }
    }
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

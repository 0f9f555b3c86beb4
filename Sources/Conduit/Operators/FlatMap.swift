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
  /// cancels everything else and is sent downstream.
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
    FlatMapTypes<Upstream.Output, Upstream.Failure, NewPublisher, Downstream>
  >
  where Downstream.Input == NewPublisher.Output, Downstream.Failure == Upstream.Failure
}

/// The `OperatorLink` of a `FlatMapInner`: also names the inner publishers.
@usableFromInline
protocol FlatMapLink: OperatorLink where NewPublisher.Failure == Failure {
  /// The kind of publisher each upstream value becomes.
  associatedtype NewPublisher: Publisher
}

/// The `FlatMapLink` of a subscription that receives `Input` and `Failure`, makes a
/// `NewPublisher` of each value, and sends their values on to `Downstream`. Never instantiated.
@usableFromInline
enum FlatMapTypes<Input, Failure: Error, NewPublisher: Publisher, Downstream: Subscriber>: FlatMapLink
where NewPublisher.Failure == Failure {}

/// Subscribes to the upstream and to every inner publisher, and serializes what they send.
///
/// Each inner publisher gets its own `ChildSubscriber`. A child asks its publisher for one
/// value at a time, or for unlimited values once the downstream demand is unlimited, so at most
/// one value per child waits in `backlog` for downstream demand. Calls into the downstream never
/// overlap: whichever thread claims delivery (see `DeliveryOwnership`) owns the downstream and
/// delivers the backlog before it gives delivery back; a thread that finds it claimed queues its
/// value and returns.
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`).
@usableFromInline
final class FlatMapInner<Types: FlatMapLink>: Subscriber, SubscriptionRequestHandler, Subscription,
  ChildSubscriberParent, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Types.Downstream.Input == Types.NewPublisher.Output, Types.Downstream.Failure == Types.Failure {
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Types.Failure
  @usableFromInline
  typealias NewPublisher = Types.NewPublisher
  @usableFromInline
  typealias Downstream = Types.Downstream

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
    @usableFromInline
    var transform: ((Input) -> NewPublisher)?
    @usableFromInline
    var children = FlatMapChildren()
    /// Scalar inner publishers not yet finished (see `ScalarPublisher`): the one whose value
    /// is being delivered, and those that never finish. They have no subscription, so they
    /// are counted rather than listed in `children`.
    @usableFromInline
    var scalarChildren = 0
    @usableFromInline
    var nextChildID = 0
    /// Values waiting for downstream demand or for the delivering thread, with their child.
    @usableFromInline
    var backlog = ValueQueue<(child: Int, value: NewPublisher.Output)>()
    /// How many values at the front of `backlog` took their downstream demand when they arrived,
    /// and had their child asked for its next value then (see `childReceived`): they are
    /// delivered without taking demand or asking their child again. A value is paid for only
    /// when every value before it is, so they stay at the front.
    @usableFromInline
    var paidBacklog = 0
    @usableFromInline
    var demand = Subscribers.Demand.none
    /// Which thread owns the downstream (see `DeliveryOwnership`).
    @usableFromInline
    var delivery = DeliveryOwnership()
    /// The thread that owns delivery is inside a call into the downstream's `receive(_:)`:
    /// set where it takes the value to deliver, cleared at the next lock it takes.
    @usableFromInline
    var inDownstreamCall = false

    @inlinable
    init(transform: @escaping (Input) -> NewPublisher) {
      self.transform = transform
    }

    /// Whether every inner publisher has finished.
    @inlinable
    var childrenFinished: Bool { children.isEmpty && scalarChildren == 0 }

    /// Counts a scalar child as finished, and returns whether the upstream is to be asked for a
    /// replacement: inner publishers are bounded and more may come. (A `Bool` rather than the
    /// upstream itself: moving an optional subscription existential costs runtime calls, which
    /// the unbounded case, the usual one, should not pay per value.)
    @inlinable
    mutating func finishScalarChild(maxPublishers: Subscribers.Demand) -> Bool {
      scalarChildren -= 1
      return !outerFinished && maxPublishers != .unlimited
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

    /// Forgets the upstream and every child; returns the subscriptions to cancel, with the
    /// transform and the values not delivered, for the caller to let go of after the lock.
    ///
    /// The children come first and the upstream last, the order in which Combine cancels them.
    @inlinable
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

  /// What `State.detachAll` lets go of: the transform (and what it captured) and the values not
  /// delivered.
  @usableFromInline
  typealias Detached = DetachedState<(Input) -> NewPublisher, (child: Int, value: NewPublisher.Output)>

  @usableFromInline
  enum Step {
    // `replenish` names the child to ask for one more value: an existential in the payload
    // would make every copy of a step go through the runtime's generic enum witnesses.
    case deliver(NewPublisher.Output, replenish: Int?)
    case complete(Subscribers.Completion<Failure>)
    /// The scalar inner publisher just delivered has finished: ask the upstream for one more.
    case requestReplacement
    case release
    case idle
  }

  @usableFromInline
  enum Arrival {
    case drop
    /// Queued; `askForMore`: it took its demand, and its child is asked for the next value now.
    case queued(askForMore: Bool)
    case deliver(askForMore: Bool)
  }

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
  // Owned by the thread that owns `state.delivery`; released when the subscription ends.
  @usableFromInline @exclusivity(unchecked)
  var downstream: Downstream?
  @usableFromInline
  let maxPublishers: Subscribers.Demand
  @usableFromInline
  let census: CensusToken
  // Specialized `request` and `cancel`; see `SubscriptionRequest`.
  @usableFromInline
  let handle: (FlatMapInner, SubscriptionRequest) -> Void
  // Calls into `downstream`; see `DownstreamRelay`.
  @usableFromInline
  let relay: DownstreamRelay<Downstream>
  // Reads inner publishers that need no subscription; see `ScalarPublisher`.
  @usableFromInline
  let scalar: ScalarReader<NewPublisher>

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
    state = Locked(State(transform: transform))
    self.downstream = downstream
    self.maxPublishers = maxPublishers
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
    // `.none` included, as in Combine.
    subscription.request(maxPublishers)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    let claimed = state.withLock { state -> (Int, (Input) -> NewPublisher)? in
      guard case .active = state.phase, !state.outerFinished, let transform = state.transform else { return nil }
      let id = state.nextChildID
      state.nextChildID += 1
      // Every inner publisher is of type `NewPublisher`: all of them are scalar, or none.
      if scalar.read == nil { state.children.append(id) } else { state.scalarChildren += 1 }
      return (id, transform)
    }
    guard let (id, transform) = claimed else { return .none }
    let publisher = transform(input)
    if let read = scalar.read {
      receiveScalar(id, read(publisher))
    } else {
      publisher.subscribe(ChildSubscriber(parent: self, id: id))
    }
    return .none
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>) {
    switch completion {
    case .finished:
      // The transform (and what it captured) leaves after the lock: a deinit may call back into
      // this subscription.
      var transform: ((Input) -> NewPublisher)?
      let owns = state.withLock { state -> Bool in
        guard case .active = state.phase, !state.outerFinished else { return false }
        state.outerFinished = true
        state.upstream = nil
        swap(&state.transform, &transform)
        return state.delivery.claim()
      }
      if owns { drain(more: .none) }
    case .failure(let error):
      fail(error, child: nil)
    }
  }

  // MARK: Scalar children

  /// Does what subscribing child `id` to a scalar publisher would, without the subscription:
  /// the child asks for a value as soon as it is subscribed, so the value arrives at once and
  /// the child finishes right after it (`childSubscribed`, `childReceived`, `childCompleted`).
  ///
  /// A scalar child is counted in `scalarChildren` for as long as the phase is `.active`: only
  /// a failure or a cancel forgets it early, and they end that phase.
  @inlinable
  func receiveScalar(_ id: Int, _ outcome: ScalarOutcome<NewPublisher.Output, Failure>) {
    switch outcome {
    case .value(let value): scalarReceived(id, value)
    case .finished: scalarFinished()
    case .failure(let error): fail(error, child: id)
    case .silent: break
    }
  }

  /// `childReceived` then `childCompleted`, for a scalar child.
  @inlinable
  func scalarReceived(_ id: Int, _ value: NewPublisher.Output) {
    var replacement: (any Subscription)?
    let deliver = state.withLock { state -> Bool in
      guard case .active = state.phase else { return false }
      if state.demand == .none || !state.backlog.isEmpty || !state.delivery.claim() {
        state.backlog.append((id, value))
        // The child finishes at once and its value waits without it. The thread that owns
        // delivery drains the backlog; when nobody does, demand is zero and a drain would
        // find nothing to do, so this thread does not claim it.
        if state.finishScalarChild(maxPublishers: maxPublishers) { replacement = state.upstream }
        return false
      }
      state.inDownstreamCall = true
      if state.demand != .unlimited { state.demand -= 1 }
      return true
    }
    replacement?.request(.max(1))
    guard deliver else { return }
    let more = downstream.map { relay.value($0, value) } ?? .none
    drain(more: more, finishingScalar: true)
  }

  /// `childCompleted(_:_:)` with `.finished`, for a scalar child.
  @inlinable
  func scalarFinished() {
    var replacement: (any Subscription)?
    let owns = state.withLock { state -> Bool in
      guard case .active = state.phase else { return false }
      if state.finishScalarChild(maxPublishers: maxPublishers) { replacement = state.upstream }
      return state.delivery.claim()
    }
    replacement?.request(.max(1))
    if owns { drain(more: .none) }
  }

  // MARK: Children

  @inlinable
  func childSubscribed(_ id: Int, _ subscription: any Subscription) {
    let demand = state.withLock { state -> Subscribers.Demand? in
      guard case .active = state.phase, let index = state.children.index(of: id),
        state.children.children[index].subscription == nil
      else {
        return nil
      }
      let unlimited = state.demand == .unlimited
      state.children.children[index] = FlatMapChild(subscription: subscription, unlimited: unlimited)
      return unlimited ? .unlimited : .max(1)
    }
    guard let demand else {
      subscription.cancel()
      return
    }
    subscription.request(demand)
  }

  /// A value arriving while the thread that owns delivery is inside the downstream's
  /// `receive(_:)` (this thread further up the stack, or another one), with demand to spare and
  /// nothing waiting for demand, is one Combine would deliver at once, nested in that call, and
  /// answer with `.max(1)`. Calls into the downstream never nest here: the value takes its
  /// demand, waits for that call to return, and its child is asked for the next value now, as
  /// in Combine. Otherwise a queued value answers `.none`, and its child is asked for the next
  /// value once it is delivered.
  @inlinable
  func childReceived(_ id: Int, _ value: NewPublisher.Output) -> Subscribers.Demand {
    let arrival = state.withLock { state -> Arrival in
      guard case .active = state.phase, let index = state.children.index(of: id) else { return .drop }
      if state.demand == .none || !state.backlog.isEmpty || !state.delivery.claim() {
        let paid =
          state.inDownstreamCall && state.demand != .none && state.paidBacklog == state.backlog.count
        state.backlog.append((id, value))
        guard paid else { return .queued(askForMore: false) }
        state.paidBacklog += 1
        if state.demand != .unlimited { state.demand -= 1 }
        return .queued(askForMore: !state.children.children[index].unlimited)
      }
      state.inDownstreamCall = true
      if state.demand != .unlimited { state.demand -= 1 }
      return .deliver(askForMore: !state.children.children[index].unlimited)
    }
    switch arrival {
    case .drop:
      return .none
    case .queued(let askForMore):
      return askForMore ? .max(1) : .none
    case .deliver(let askForMore):
      let more = downstream.map { relay.value($0, value) } ?? .none
      drain(more: more)
      return askForMore ? .max(1) : .none
    }
  }

  @inlinable
  func childCompleted(_ id: Int, _ completion: Subscribers.Completion<Failure>) {
    switch completion {
    case .finished:
      // The upstream leaves through a captured variable: an existential inside the lock's
      // generic result would be copied through the runtime's generic witnesses.
      var replacement: (any Subscription)?
      let owns = state.withLock { state -> Bool in
        guard case .active = state.phase, state.children.remove(id) else { return false }
        if !state.outerFinished && maxPublishers != .unlimited { replacement = state.upstream }
        return state.delivery.claim()
      }
      replacement?.request(.max(1))
      if owns { drain(more: .none) }
    case .failure(let error):
      fail(error, child: id)
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
    let (upgraded, owns) = state.withLock { state -> ([any Subscription], Bool) in
      guard case .active = state.phase else { return ([], false) }
      let upgraded = state.addDemand(demand)
      return (upgraded, !state.backlog.isEmpty && state.delivery.claim())
    }
    for subscription in upgraded { subscription.request(.unlimited) }
    if owns { drain(more: .none) }
  }

  @inlinable
  func handleCancel() {
    let ended = state.withLock { state -> (Detached, Bool)? in
      switch state.phase {
      case .active, .failing: break
      case .cancelled, .done: return nil
      }
      state.phase = .cancelled
      return (state.detachAll(except: nil, includingUpstream: true), state.delivery.claim())
    }
    guard let (detached, owns) = ended else { return }
    for subscription in detached.cancelled { subscription.cancel() }
    if owns { drain(more: .none) }
  }

  /// The subscription of child `id`, if it is still attached, for the thread that owns delivery
  /// once its call into the downstream has returned.
  @inlinable
  func childSubscription(_ id: Int) -> (any Subscription)? {
    state.withLock { state in
      state.inDownstreamCall = false
      return state.children.index(of: id).flatMap { state.children.children[$0].subscription }
    }
  }

  // MARK: Delivery

  /// Fails with `error` from the upstream (`failed` nil) or from child `failed`, cancelling the
  /// other children and, after an inner failure, the upstream. (Combine leaves the upstream
  /// running after an inner failure, and the upstream keeps the failed subscription until it
  /// completes.)
  @inlinable
  func fail(_ error: Failure, child failed: Int?) {
    let ended = state.withLock { state -> (Detached, Bool)? in
      guard case .active = state.phase else { return nil }
      state.phase = .failing(error)
      return (state.detachAll(except: failed, includingUpstream: failed != nil), state.delivery.claim())
    }
    guard let (detached, owns) = ended else { return }
    for subscription in detached.cancelled { subscription.cancel() }
    if owns { drain(more: .none) }
  }

  /// Runs while this thread owns delivery: adds the demand the downstream just returned,
  /// delivers the backlog while there is demand, and completes when everything has finished.
  ///
  /// `finishingScalar`: this thread just delivered the value of a scalar child. A subscribed
  /// child would finish once this drain had let go of delivery; it finishes instead where the
  /// drain would let go, and this thread keeps delivery for what follows.
  @inlinable
  func drain(more initial: Subscribers.Demand, finishingScalar: Bool = false) {
    var more = initial
    var finishing = finishingScalar
    // The upstream leaves through a captured variable; see `childCompleted`.
    var replacement: (any Subscription)?
    // The owner's loop of `DeliveryOwnership`, written out rather than run by `Locked.drain`:
    // through it, the loop of "5 x flatMap { Just($0) }, per value" is not inlined and destroys
    // its steps through generic witnesses.
    while true {
      let (step, upgraded) = state.withLock { state -> (Step, [any Subscription]) in
        state.inDownstreamCall = false
        switch state.phase {
        case .active:
          let upgraded = state.addDemand(more)
          if state.paidBacklog > 0, let (_, value) = state.backlog.popFirst() {
            state.paidBacklog -= 1
            state.inDownstreamCall = true
            return (.deliver(value, replenish: nil), upgraded)
          }
          if state.demand != .none, let (id, value) = state.backlog.popFirst() {
            if state.demand != .unlimited { state.demand -= 1 }
            let replenish = state.children.index(of: id).flatMap { index in
              state.children.children[index].unlimited ? nil : id
            }
            state.inDownstreamCall = true
            return (.deliver(value, replenish: replenish), upgraded)
          }
          if finishing {
            finishing = false
            if state.finishScalarChild(maxPublishers: maxPublishers) {
              replacement = state.upstream
              return (.requestReplacement, upgraded)
            }
          }
          if state.outerFinished && state.childrenFinished && state.backlog.isEmpty {
            state.phase = .done
            return (.complete(.finished), upgraded)
          }
          state.delivery.giveBack()
          return (.idle, upgraded)
        case .failing(let error):
          state.phase = .done
          return (.complete(.failure(error)), [])
        case .cancelled, .done:
          state.phase = .done
          return (.release, [])
        }
      }
      for subscription in upgraded { subscription.request(.unlimited) }
      switch step {
      case .deliver(let value, let replenish):
        more = downstream.map { relay.value($0, value) } ?? .none
        if let replenish { childSubscription(replenish)?.request(.max(1)) }
      case .requestReplacement:
        more = .none
        replacement?.request(.max(1))
        replacement = nil
      case .complete(let completion):
        let downstream = self.downstream
        self.downstream = nil
        if let downstream { relay.completion(downstream, completion) }
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

/// One inner publisher of a `flatMap`.
@usableFromInline
struct FlatMapChild {
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

/// The live inner publishers of a `flatMap`, by id. Ids are handed out in increasing order, so
/// the entries stay sorted by appending, and a lookup is a binary search: no hashing, and no
/// allocation once the storage has grown to the number of inners alive at once. Entries are read
/// and changed in place: copying one would copy its subscription existential.
@usableFromInline
struct FlatMapChildren {
  @usableFromInline
  var ids: ContiguousArray<Int> = []
  @usableFromInline
  var children: ContiguousArray<FlatMapChild> = []

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
    children.append(FlatMapChild())
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
}

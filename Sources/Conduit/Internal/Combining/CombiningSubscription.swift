import Synchronization

// Combining: the engine of `merge`, `zip` and `combineLatest`.
//
// - `CombiningSubscription.swift`: owns the N upstream subscriptions and serializes delivery.
// - `CombiningSide.swift`: the subscriber given to one upstream (`Side`); forwards to the
//   subscription.
// - `CombiningStateMachine.swift`: the decisions (which upstreams run, what is owed downstream).
// - `CombiningStrategy.swift`: what tells the three operators apart (how values are kept and
//   when they make an output).
// - `CombiningSlot.swift`, `SlotSet.swift`: the values each upstream delivered, per type.
// An upstream event goes side → subscription (posted) → state machine → action, performed by the
// owner of delivery after the lock.

/// The subscription behind `merge`, `zip` and `combineLatest`: owns the subscriptions to N
/// upstreams and the downstream, and lets a `CombiningStrategy` decide what the values make.
///
/// Every upstream delivers through a `Side` that knows its index, which is also the
/// index of its slot.
///
/// **Decisions.** A `CombiningStateMachine` holds the state (the strategy and its slots, the
/// upstream subscriptions, the downstream demand, the outputs waiting for it) and decides; its
/// event methods return an action that the subscription performs: deliver an output, cancel the
/// upstreams, complete, let go of the downstream.
///
/// **Ownership.** The machine belongs to whichever thread owns the subscription, and only that
/// thread calls into the downstream. The subscription serializes with a `Serializer`, as the
/// subjects do: a thread that claims it handles its event (an uncontended value costs two atomic
/// operations and no lock); a thread that finds it owned, including a re-entrant call from inside
/// the downstream's `receive`, posts its event, and the owner handles every posted event before
/// it lets go, so nothing deadlocks. A thread that posts a value may have to wait while the
/// backlog is beyond the serializer's bound, or take delivery over from an owner that has
/// delivered long enough for others. Between two outputs the owner handles posted events
/// first, so that a downstream that cancels from inside `receive(_:)` gets nothing more. Nobody
/// owns the subscription while the downstream takes it: no upstream is attached yet, so nothing
/// can reach the downstream before its `receive(subscription:)` returns.
///
/// Upstreams are cancelled at once (by `cancel()` on the caller's thread, or by the owner), but
/// asked for what the downstream requests only after the owner has let go, so that a synchronous
/// upstream delivers through the uncontended path rather than into the queue. A merge's request
/// for the next value of an upstream goes out as that upstream's value goes down.
///
/// **Demand.** The downstream's demand is counted here and nothing goes out beyond it.
/// Upstreams are asked either for what the downstream asks (Zip, CombineLatest) or one value at a
/// time (Merge); see `CombiningStrategy.requestsOneAtATime`. Demand owed to the upstream whose
/// `receive(_:)` is on the stack is returned from that call rather than requested.
///
/// The subscription finishes once the strategy says no output can come and no output waits;
/// it fails at the first failure, dropping the outputs that wait; either way, and on cancel,
/// it cancels the upstreams still running and forgets them, the slots and the downstream.
///
@usableFromInline
final class CombiningSubscription<Strategy: CombiningStrategy, Downstream: Subscriber>:
  SubscriptionRequestHandler, Subscription, CustomStringConvertible, CensusScoped
where Downstream.Input == Strategy.Output {
  @usableFromInline
  typealias Output = Strategy.Output
  @usableFromInline
  typealias Failure = Downstream.Failure

  /// What a thread that does not own the subscription leaves for the owner.
  @usableFromInline
  enum Event {
    case subscription(any Subscription, index: Int)
    /// Takes a value into the strategy (into its slot, for `zip` and `combineLatest`) and returns
    /// the output it completes, if any.
    case value((inout Strategy) -> Output?, index: Int)
    case completion(Subscribers.Completion<Failure>, index: Int)
    case demand(Subscribers.Demand)
    case cancel
    /// A merge of no publishers has nothing to wait for.
    case noUpstreams
  }

  @usableFromInline
  typealias Machine = CombiningStateMachine<Strategy>

  /// Holds the downstream where a call into it needs no retain: the subscription references it
  /// unmanaged, and releases it when the subscription ends.
  @usableFromInline
  typealias Receiver = DownstreamBox<Downstream>

  /// Which thread owns the subscription, and the events posted for it (see `Serializer`).
  @usableFromInline
  let serializer = Serializer<Event>()
  /// The upstream subscriptions still running, for `cancel()` to cancel on the caller's thread,
  /// as Combine does, whoever owns the subscription; `nil` once they have been cancelled.
  /// Changed on subscription, completion and cancel, never per value. Guarded by its own lock.
  @usableFromInline
  let running: Locked<[(any Subscription)?]?>
  @usableFromInline
  let census: CensusToken
  // Specialized `request` and `cancel`; see `SubscriptionRequest`.
  @usableFromInline
  let handle: @Sendable (CombiningSubscription, SubscriptionRequest) -> Void

  // Fields with unchecked exclusivity skip the runtime check, which costs in "merge of two subjects" and "zip of two subjects".
  // The state below belongs to the thread that owns the subscription (see `serializer`), which
  // makes the runtime exclusivity checks redundant.
  @usableFromInline @exclusivity(unchecked)
  var machine: Machine
  /// Retained; `nil` once the subscription has ended.
  @usableFromInline @exclusivity(unchecked)
  var receiver: Unmanaged<Receiver>?
  // Touched only by the subscribing thread, while it attaches the upstreams.
  @usableFromInline
  var attached = 0

  @usableFromInline
  var description: String { Strategy.description }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  /// Gives `downstream` its subscription; the caller then attaches the upstreams in order.
  @usableFromInline
  static func subscribe(_ downstream: Downstream, strategy: Strategy, upstreamCount: Int) -> CombiningSubscription {
    // Nothing reaches the downstream before an upstream is attached, so the subscription is not
    // owned while the downstream takes it: a request it makes from inside `receive(subscription:)`
    // is applied at once, rather than posted for an owner (an event and a queue allocation).
    let subscription = CombiningSubscription(strategy: strategy, upstreamCount: upstreamCount, downstream: downstream)
    downstream.receive(subscription: subscription)
    if upstreamCount == 0 { _ = subscription.submit(.noUpstreams, side: nil) }
    return subscription
  }

  /// Builds the subscription of a `zip`, which attaches its upstreams before the downstream has
  /// its subscription, as Combine's does; the caller attaches them in order, then calls
  /// `handDown()`. The subscribing thread owns the subscription until then, so that what an
  /// upstream sends as it is subscribed (a completion, or a value it sends regardless of demand)
  /// waits in the queue and reaches the downstream only after its subscription.
  @usableFromInline
  static func prepare(_ downstream: Downstream, strategy: Strategy, upstreamCount: Int) -> CombiningSubscription {
    let subscription = CombiningSubscription(strategy: strategy, upstreamCount: upstreamCount, downstream: downstream)
    let owns = subscription.serializer.claim()
    assert(owns, "a new subscription is owned by nobody")
    return subscription
  }

  /// Gives the downstream the subscription that `prepare` built, then handles, as its owner,
  /// what the upstreams sent meanwhile and what the downstream asked for from inside
  /// `receive(subscription:)`.
  @usableFromInline
  func handDown() {
    receiver?._withUnsafeGuaranteedRef { $0.downstream.receive(subscription: self) }
    var owed = Subscribers.Demand.none
    letGo(side: nil, owed: &owed)
  }

  @inlinable
  init(strategy: Strategy, upstreamCount: Int, downstream: Downstream) {
    assert(
      MemoryLayout<Strategy>.size > 0,
      "\(Strategy.self) has size zero: give it a stored property, as MergeStrategy.sized explains")
    census = CensusToken(CombiningSubscription.self, inheritingFrom: downstream)
    machine = Machine(strategy: strategy, upstreamCount: upstreamCount)
    running = Locked(.upstreams(repeating: nil, count: upstreamCount))
    receiver = Unmanaged.passRetained(Receiver(downstream))
    handle = SubscriptionRequest.dispatcher()
  }

  deinit {
    receiver?.release()
  }

  /// Subscribes to the next upstream. The order of the calls gives each upstream its index, which
  /// is also that of its slot.
  ///
  /// Always inlined, so that it never stands on the call chain as a function of its own. When the
  /// upstream is itself a combining operator (a `combineLatest` nested in a `combineLatest`), the
  /// subscribing recurses through here with a subscriber type that grows at each level; as a
  /// function of its own, `attach` would be the callee the optimizer sees recur, and a few levels
  /// down it would subscribe through unspecialized code, whose subscribers then run every value
  /// through generic code.
  @inlinable @inline(__always) @discardableResult
  func attach<Upstream: Publisher>(_ upstream: Upstream) -> CombiningSubscription
  where Upstream.Failure == Failure {
    let index = attached
    attached += 1
    upstream.subscribe(Side<Upstream.Output>(parent: self, index: index))
    return self
  }

  // MARK: Subscription

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
    _ = submit(.demand(demand), side: nil)
  }

  @usableFromInline
  func handleCancel() {
    // The upstreams are cancelled before `cancel()` returns, even while another thread (or the
    // downstream call this one is inside) owns the subscription; the owner lets go of the
    // downstream.
    cancelRunningUpstreams()
    _ = submit(.cancel, side: nil)
  }

  /// Records a subscription for `cancelRunningUpstreams`; `false` if they were cancelled already.
  @usableFromInline
  func register(_ subscription: any Subscription, at index: Int) -> Bool {
    running.withLock { running in
      guard running != nil else { return false }
      running![index] = subscription
      return true
    }
  }

  /// Cancels the upstreams still running, once.
  @usableFromInline
  func cancelRunningUpstreams() {
    let upstreams = running.withLock { running in
      defer { running = nil }
      return running ?? []
    }
    for upstream in upstreams { upstream?.cancel() }
  }

  // MARK: Upstream events

  @usableFromInline
  func receive(subscription: any Subscription, at index: Int) {
    _ = submit(.subscription(subscription, index: index), side: nil)
  }

  /// `submit(.value…)`, written out: the uncontended path builds no event and delivers an output
  /// straight down when nothing waits.
  @inlinable
  func receive<Input>(_ value: Input, at index: Int) -> Subscribers.Demand {
    guard serializer.claim() else {
      let combine: (inout Strategy) -> Output? = { strategy in strategy.combine(value, from: index) }
      return post(.value(combine, index: index), side: index)
    }
    var owed = Subscribers.Demand.none
    let output = machine.takesValues ? machine.strategy.combine(value, from: index) : nil
    let (action, delivery) = machine.value(output, from: index, direct: true)
    if let delivery { deliver(delivery, side: index, owed: &owed) }
    perform(action, side: index, owed: &owed)
    if machine.isSettled, serializer.giveBackDirect() { return owed }
    letGo(side: index, owed: &owed)
    return owed
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>, at index: Int) {
    _ = submit(.completion(completion, index: index), side: nil)
  }

  // MARK: Ownership

  /// Handles `event` as the owner, or leaves it to the owner. Returns the demand owed to upstream
  /// `side`, whose `receive(_:)` is on the stack.
  @inlinable
  func submit(_ event: Event, side: Int?) -> Subscribers.Demand {
    guard serializer.claim() else {
      return post(event, side: side)
    }
    var owed = Subscribers.Demand.none
    apply(event, side: side, owed: &owed)
    letGo(side: side, owed: &owed)
    return owed
  }

  /// Leaves `event` for the owner; handles it and what else waits if the owner let go meanwhile.
  /// A value's sender may take delivery over from a busy owner, or wait for room (see
  /// `Serializer`).
  @inlinable
  func post(_ event: Event, side: Int?) -> Subscribers.Demand {
    var owed = Subscribers.Demand.none
    switch serializer.enqueue(event) {
    case .drain:
      drain(missed: 1, side: side, owed: &owed)
    case .queued:
      guard case .value = event else { break }
      var context = OwnerContext(subscription: self, side: side)
      let outgoing = serializer.afterQueued(
        { context.apply($0) }, settle: { context.settle() }, restore: { context.restore($0) })
      owed = context.owed
      outgoing?.send()
    case .deliver, .nothing:
      break
    }
    return owed
  }

  /// Settles as the owner, gives the subscription back, and only then asks the upstreams for what
  /// the machine decided to ask; drains instead if something was posted meanwhile.
  @inlinable
  func letGo(side: Int?, owed: inout Subscribers.Demand) {
    let outgoing = settle(side: side, owed: &owed)
    if serializer.giveBackDirect() {
      outgoing?.send()
      return
    }
    if let outgoing { machine.restore(outgoing) }
    drain(missed: 1, side: side, owed: &owed)
  }

  /// Runs as the owner until nothing is left to do, then lets go, and only then asks the
  /// upstreams for what the machine decided to ask.
  @inlinable
  func drain(missed: Int, side: Int?, owed: inout Subscribers.Demand) {
    var context = OwnerContext(subscription: self, side: side)
    let outgoing = serializer.drain(
      missed: missed, { context.apply($0) }, settle: { context.settle() }, restore: { context.restore($0) })
    owed += context.owed
    outgoing?.send()
  }

  /// Delivers what waits while the downstream has demand and nothing is posted, then the
  /// completion once it is due; returns what to ask of the upstreams once the owner lets go, or
  /// `nil` when a posted event is to be handled first.
  @inlinable
  func settle(side: Int?, owed: inout Subscribers.Demand) -> Machine.Requests? {
    while !serializer.hasQueued, let delivery = machine.next(side: side) {
      deliver(delivery, side: side, owed: &owed)
    }
    if serializer.hasQueued { return nil }
    perform(machine.settle(), side: side, owed: &owed)
    return machine.takeRequests()
  }

  /// What the owner's handling of events needs, for `Serializer`'s closures: the upstream whose
  /// `receive(_:)` is on the stack, and the demand owed to it.
  @usableFromInline
  struct OwnerContext {
    @usableFromInline
    let subscription: CombiningSubscription
    @usableFromInline
    let side: Int?
    @usableFromInline
    var owed = Subscribers.Demand.none

    @inlinable
    init(subscription: CombiningSubscription, side: Int?) {
      self.subscription = subscription
      self.side = side
    }

    @inlinable
    mutating func apply(_ event: Event) {
      subscription.apply(event, side: side, owed: &owed)
    }

    @inlinable
    mutating func settle() -> Machine.Requests? {
      subscription.settle(side: side, owed: &owed)
    }

    @inlinable
    func restore(_ requests: Machine.Requests) {
      subscription.machine.restore(requests)
    }
  }

  /// Handles one event as the owner. An output it makes waits, for `settle(side:owed:)`.
  @inlinable
  func apply(_ event: Event, side: Int?, owed: inout Subscribers.Demand) {
    switch event {
    case .value(let combine, let index):
      let output = machine.takesValues ? combine(&machine.strategy) : nil
      perform(machine.value(output, from: index, direct: false).action, side: side, owed: &owed)
    case .subscription(let subscription, let index):
      if machine.admits(at: index), register(subscription, at: index) {
        machine.attach(subscription, at: index)
      } else {
        subscription.cancel()
      }
    case .completion(let completion, let index):
      perform(
        machine.completion(finished: completion.isFinished, at: index), failure: completion, side: side, owed: &owed)
    case .demand(let more):
      owed += machine.demand(more, side: side)
    case .cancel:
      perform(machine.cancel(), side: side, owed: &owed)
    case .noUpstreams:
      perform(machine.noUpstreams(), side: side, owed: &owed)
    }
  }

  // MARK: Actions

  /// Does what the machine decided. `failure` is the completion behind a `.fail`.
  @inlinable @inline(__always)
  func perform(
    _ action: Machine.Action, failure: Subscribers.Completion<Failure>? = nil, side: Int?,
    owed: inout Subscribers.Demand
  ) {
    switch action {
    case .none:
      break
    case .stopUpstreams:
      cancelRunningUpstreams()
    case .forget(let index, let stopping):
      running.withLock { $0?[index] = nil }
      if stopping { cancelRunningUpstreams() }
    case .fail(let forgetting):
      if let forgetting { running.withLock { $0?[forgetting] = nil } }
      cancelRunningUpstreams()
      if let failure { complete(failure) }
    case .finish:
      cancelRunningUpstreams()
      complete(.finished)
    case .release:
      cancelRunningUpstreams()
      receiver?.release()
      receiver = nil
    }
  }

  /// Sends one output downstream, whose demand the machine has already spent.
  @inlinable @inline(__always)
  func deliver(_ delivery: Machine.Delivery, side: Int?, owed: inout Subscribers.Demand) {
    // A merge asks for the next value as its output goes down, as Combine does, rather than
    // when the owner lets go: an upstream that drops what it cannot send (a subject) would
    // otherwise go without demand for longer. A synchronous upstream that delivers from inside
    // `request` finds the subscription owned and leaves its value in the queue.
    switch delivery.next {
    case .none:
      break
    case .owed:
      owed += 1
    case .request(let source):
      machine.upstreams[source]?.request(.max(1))
    }
    guard let receiver else { return }
    let more = receiver._withUnsafeGuaranteedRef { $0.downstream.receive(delivery.output) }
    if more > 0 { owed += machine.demand(more, side: side) }
  }

  /// Sends the completion downstream and forgets the downstream.
  @usableFromInline
  func complete(_ completion: Subscribers.Completion<Failure>) {
    guard let receiver else { return }
    self.receiver = nil
    receiver.takeRetainedValue().downstream.receive(completion: completion)
  }
}

extension Array {
  /// `Array(repeating:count:)` for the counts a combining operator has, written as literals:
  /// `Array(repeating:count:)` allocates through unspecialized code that looks up the storage
  /// type's metadata on every call, and subscribing to a combining operator calls it once per
  /// per-upstream array.
  @inlinable @inline(__always)
  static func upstreams(repeating value: Element, count: Int) -> [Element] {
    switch count {
    case 2: return [value, value]
    case 3: return [value, value, value]
    case 4: return [value, value, value, value]
    case 5: return [value, value, value, value, value]
    case 6: return [value, value, value, value, value, value]
    case 7: return [value, value, value, value, value, value, value]
    case 8: return [value, value, value, value, value, value, value, value]
    default: return Array(repeating: value, count: count)
    }
  }
}

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
/// thread calls into the downstream. A thread takes
/// ownership by moving `ownership` from 0 to 1: an uncontended value costs these two atomic
/// operations and no lock. A thread that finds ownership taken, including a re-entrant call
/// from inside the downstream's `receive`, posts its event to `inbox` and counts it in
/// `ownership`; the owner handles every posted event before it lets go, so nothing waits and
/// nothing deadlocks. Between two outputs the owner looks for posted events first, so that a
/// downstream that cancels from inside `receive(_:)` gets nothing more. Nobody owns the
/// subscription while the downstream takes it: no upstream is attached yet, so nothing can reach
/// the downstream before its `receive(subscription:)` returns.
///
/// Upstreams are cancelled at once (by `cancel()` on the caller's thread, or by the owner), but
/// asked for what the downstream requests only after the owner has let go, so that a synchronous
/// upstream delivers through the uncontended path rather than into the inbox. A merge's request
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

  /// 0 when nobody owns the subscription; otherwise 1 plus the events posted to `inbox` that the
  /// owner has not yet counted.
  @usableFromInline
  let ownership = Atomic<Int>(0)
  // Guarded by its own lock.
  @usableFromInline
  let inbox = Locked(ValueQueue<Event>())
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
  // The state below belongs to the thread that owns the subscription (see `ownership`), which
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
  /// waits in the inbox and reaches the downstream only after its subscription.
  @usableFromInline
  static func prepare(_ downstream: Downstream, strategy: Strategy, upstreamCount: Int) -> CombiningSubscription {
    let subscription = CombiningSubscription(strategy: strategy, upstreamCount: upstreamCount, downstream: downstream)
    subscription.ownership.store(1, ordering: .relaxed)
    return subscription
  }

  /// Gives the downstream the subscription that `prepare` built, then handles, as its owner,
  /// what the upstreams sent meanwhile and what the downstream asked for from inside
  /// `receive(subscription:)`.
  @usableFromInline
  func handDown() {
    receiver?._withUnsafeGuaranteedRef { $0.downstream.receive(subscription: self) }
    var owed = Subscribers.Demand.none
    own(held: 1, side: nil, owed: &owed)
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
    guard ownership.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged else {
      let combine: (inout Strategy) -> Output? = { strategy in strategy.combine(value, from: index) }
      return post(.value(combine, index: index), side: index)
    }
    var owed = Subscribers.Demand.none
    let output = machine.takesValues ? machine.strategy.combine(value, from: index) : nil
    let (action, delivery) = machine.value(output, from: index, direct: true)
    if let delivery { deliver(delivery, side: index, owed: &owed) }
    perform(action, side: index, owed: &owed)
    if machine.isSettled, ownership.compareExchange(expected: 1, desired: 0, ordering: .releasing).exchanged {
      return owed
    }
    own(held: 1, side: index, owed: &owed)
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
    guard ownership.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged else {
      return post(event, side: side)
    }
    var owed = Subscribers.Demand.none
    apply(event, side: side, owed: &owed)
    own(held: 1, side: side, owed: &owed)
    return owed
  }

  /// Leaves `event` in the inbox; handles it and what else is there if the owner let go meanwhile.
  @inlinable
  func post(_ event: Event, side: Int?) -> Subscribers.Demand {
    inbox.withLock { $0.append(event) }
    guard ownership.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0 else { return .none }
    var owed = Subscribers.Demand.none
    absorb(side: side, owed: &owed)
    own(held: 1, side: side, owed: &owed)
    return owed
  }

  /// Runs as the owner until nothing is left to do, then lets go, and only then asks the
  /// upstreams for what the machine decided to ask. `held` is how much of `ownership` the caller
  /// has accounted for.
  @inlinable
  func own(held: Int, side: Int?, owed: inout Subscribers.Demand) {
    var held = held
    while true {
      pump(held: &held, side: side, owed: &owed)
      // An optional, so that the usual case, with nothing to ask, builds and releases no arrays.
      let outgoing = machine.takeRequests()
      let (released, current) = ownership.compareExchange(
        expected: held, desired: 0, ordering: .acquiringAndReleasing)
      if released {
        outgoing?.send(except: Strategy.returnsDemandToSender ? side : nil)
        return
      }
      // Still the owner: what was to be asked is asked on the next attempt.
      if let outgoing { machine.restore(outgoing) }
      held = current
      absorb(side: side, owed: &owed)
    }
  }

  /// Delivers what waits while the downstream has demand, then the completion once it is due,
  /// handling what was posted before each output.
  @inlinable
  func pump(held: inout Int, side: Int?, owed: inout Subscribers.Demand) {
    while true {
      let current = ownership.load(ordering: .acquiring)
      if current != held {
        held = current
        absorb(side: side, owed: &owed)
      }
      guard let delivery = machine.next(side: side) else { break }
      deliver(delivery, side: side, owed: &owed)
    }
    perform(machine.settle(), side: side, owed: &owed)
  }

  /// Handles every event posted so far.
  @inlinable
  func absorb(side: Int?, owed: inout Subscribers.Demand) {
    var events = inbox.withLock { inbox -> ValueQueue<Event> in
      defer { inbox = ValueQueue() }
      return inbox
    }
    while let event = events.popFirst() {
      apply(event, side: side, owed: &owed)
    }
  }

  /// Handles one event as the owner. An output it makes waits, for `pump`.
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
      let finished: Bool
      switch completion {
      case .finished: finished = true
      case .failure: finished = false
      }
      perform(machine.completion(finished: finished, at: index), failure: completion, side: side, owed: &owed)
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
    // `request` finds the subscription owned and leaves its value in the inbox.
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

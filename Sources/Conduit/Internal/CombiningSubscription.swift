import Synchronization

/// The subscription behind `merge`, `zip` and `combineLatest`: owns the subscriptions to N
/// upstreams and the downstream, and lets a `CombiningStrategy` decide what the values make.
///
/// Every upstream delivers through a `CombiningSide` that knows its index, which is also the
/// index of its slot.
///
/// **Ownership.** Everything the subscription keeps (the strategy and its slots, the upstream
/// subscriptions, the downstream demand, the outputs waiting for it) belongs to whichever thread
/// owns the subscription, and only that thread calls into the downstream. A thread takes
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
/// The subscription finishes once the strategy says no output can come and `ready` is empty;
/// it fails at the first failure, dropping what waits in `ready`; either way, and on cancel,
/// it cancels the upstreams still running and forgets them, the slots and the downstream.
///
/// Generic over one `CombiningLink`, and its upstreams' subscribers over one
/// `CombiningSideLink`, so that combining operators nested in one another (a `combineLatest` of a
/// `combineLatest`, whose values grow from one to the next) stay specialized (see
/// `OperatorLink`).
@usableFromInline
final class CombiningSubscription<Types: CombiningLink>: SubscriptionRequestHandler,
  Subscription,
  CustomStringConvertible, CensusScoped, @unchecked Sendable
{
  @usableFromInline
  typealias Strategy = Types.Strategy
  @usableFromInline
  typealias Downstream = Types.Downstream
  @usableFromInline
  typealias Output = Strategy.Output
  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  enum Phase {
    case active
    /// No output can come any more; the completion follows what waits in `ready`.
    case finishing
    /// Completed, failed or cancelled: the downstream and the upstreams are forgotten.
    case done
  }

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

  /// What the owner asks of the upstreams once it has let go.
  @usableFromInline
  struct Requests {
    /// Asked of every upstream in `targets` except the one whose `receive(_:)` is on the stack.
    @usableFromInline
    var ask = Subscribers.Demand.none
    /// The upstreams when the owner let go.
    @usableFromInline
    var targets: [(any Subscription)?] = []
    /// The first request of upstreams that subscribed.
    @usableFromInline
    var starts: [(any Subscription, Subscribers.Demand)] = []

    @inlinable
    init() {}

    @inlinable
    func send(except side: Int?) {
      for (subscription, demand) in starts { subscription.request(demand) }
      if ask > 0 {
        for (index, upstream) in targets.enumerated() where index != side { upstream?.request(ask) }
      }
    }
  }

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
  let handle: (CombiningSubscription, SubscriptionRequest) -> Void

  // The state below belongs to the thread that owns the subscription (see `ownership`), which
  // makes the runtime exclusivity checks redundant.
  @usableFromInline @exclusivity(unchecked)
  var phase = Phase.active
  /// Holds the slots (`zip`, `combineLatest`), inline.
  @usableFromInline @exclusivity(unchecked)
  var strategy: Strategy
  @usableFromInline @exclusivity(unchecked)
  var upstreams: [(any Subscription)?]
  @usableFromInline @exclusivity(unchecked)
  var progress: UpstreamProgress
  /// Outputs made and not yet delivered, with the upstream whose value made each.
  @usableFromInline @exclusivity(unchecked)
  var ready = ValueQueue<(source: Int, output: Output)>()
  /// Downstream demand not yet spent.
  @usableFromInline @exclusivity(unchecked)
  var demand = Subscribers.Demand.none
  /// Everything the downstream has requested: what an upstream that subscribes late is asked
  /// for when requests are passed through.
  @usableFromInline @exclusivity(unchecked)
  var requested = Subscribers.Demand.none
  /// One value at a time is over: every upstream was asked for `.unlimited`.
  @usableFromInline @exclusivity(unchecked)
  var upstreamsUnlimited = false
  /// What to ask of the upstreams once the owner lets go.
  @usableFromInline @exclusivity(unchecked)
  var pending: Requests?
  /// Retained; `nil` once the subscription has ended.
  @usableFromInline @exclusivity(unchecked)
  var receiver: Unmanaged<Receiver>?
  // Touched only by the subscribing thread, while it attaches the upstreams.
  @usableFromInline @exclusivity(unchecked)
  var attached = 0

  @usableFromInline
  var description: String { Strategy.description }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  /// Gives `downstream` its subscription; the caller then attaches the upstreams in order.
  @inlinable
  static func subscribe(_ downstream: Downstream, strategy: Strategy, upstreamCount: Int) -> CombiningSubscription {
    // Nothing reaches the downstream before an upstream is attached, so the subscription is not
    // owned while the downstream takes it: a request it makes from inside `receive(subscription:)`
    // is applied at once, rather than posted for an owner (an event and a queue allocation).
    let subscription = CombiningSubscription(strategy: strategy, upstreamCount: upstreamCount, downstream: downstream)
    downstream.receive(subscription: subscription)
    if upstreamCount == 0 { _ = subscription.submit(.noUpstreams, side: nil) }
    return subscription
  }

  @inlinable
  init(strategy: Strategy, upstreamCount: Int, downstream: Downstream) {
    assert(
      MemoryLayout<Strategy>.size > 0,
      "\(Strategy.self) has size zero: give it a stored property, as MergeStrategy.sized explains")
    census = CensusToken(CombiningSubscription.self, inheritingFrom: downstream)
    self.strategy = strategy
    upstreams = .upstreams(repeating: nil, count: upstreamCount)
    running = Locked(.upstreams(repeating: nil, count: upstreamCount))
    progress = UpstreamProgress(upstreamCount: upstreamCount)
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
    upstream.subscribe(CombiningSide<CombiningSideTypes<Types, Upstream.Output>>(parent: self, index: index))
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

  @inlinable
  func handleCancel() {
    // The upstreams are cancelled before `cancel()` returns, even while another thread (or the
    // downstream call this one is inside) owns the subscription; the owner lets go of the
    // downstream.
    cancelRunningUpstreams()
    _ = submit(.cancel, side: nil)
  }

  /// Records a subscription for `cancelRunningUpstreams`; `false` if they were cancelled already.
  @inlinable
  func register(_ subscription: any Subscription, at index: Int) -> Bool {
    running.withLock { running in
      guard running != nil else { return false }
      running![index] = subscription
      return true
    }
  }

  /// Cancels the upstreams still running, once.
  @inlinable
  func cancelRunningUpstreams() {
    let upstreams = running.withLock { running in
      defer { running = nil }
      return running ?? []
    }
    for upstream in upstreams { upstream?.cancel() }
  }

  // MARK: Upstream events

  @inlinable
  func receive(subscription: any Subscription, at index: Int) {
    _ = submit(.subscription(subscription, index: index), side: nil)
  }

  /// `submit(.value…)`, written out: the uncontended path builds no event and delivers an output
  /// straight down when nothing waits.
  ///
  /// Generic over the side's link rather than over the value's type, which grows from one nested
  /// combining operator to the next (see `OperatorLink`).
  @inlinable
  func receive<Side: CombiningSideLink>(
    _ value: Side.Input, at index: Int, from side: Side.Type
  ) -> Subscribers.Demand where Side.Parent == Types {
    guard ownership.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged else {
      let combine: (inout Strategy) -> Output? = { strategy in strategy.combine(value, from: index) }
      return post(.value(combine, index: index), side: index)
    }
    var owed = Subscribers.Demand.none
    if case .active = phase, let output = strategy.combine(value, from: index) {
      if ready.isEmpty, demand > 0, !(Strategy.exhaustsOnValues && strategy.isExhausted(progress)) {
        // Nothing waits: the output goes straight down.
        demand -= 1
        deliver(output, source: index, side: index, owed: &owed)
      } else {
        keep(output, source: index)
      }
    }
    if isSettled, ownership.compareExchange(expected: 1, desired: 0, ordering: .releasing).exchanged {
      return owed
    }
    own(held: 1, side: index, owed: &owed)
    return owed
  }

  /// Whether the owner has nothing left to do but let go, as long as nothing was posted: no
  /// output it could deliver, no completion due, nothing to ask of the upstreams.
  @inlinable @inline(__always)
  var isSettled: Bool {
    switch phase {
    case .active: return pending == nil && (ready.isEmpty || demand == .none)
    case .finishing: return false
    case .done: return pending == nil
    }
  }

  @inlinable
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
  /// upstreams for what the owner decided to ask. `held` is how much of `ownership` the caller has
  /// accounted for.
  @inlinable
  func own(held: Int, side: Int?, owed: inout Subscribers.Demand) {
    var held = held
    while true {
      pump(held: &held, side: side, owed: &owed)
      // An optional, so that the usual case, with nothing to ask, builds and releases no arrays.
      var outgoing: Requests? = nil
      if pending != nil {
        swap(&outgoing, &pending)
        if outgoing!.ask > 0 { outgoing!.targets = upstreams }
      }
      let (released, current) = ownership.compareExchange(
        expected: held, desired: 0, ordering: .acquiringAndReleasing)
      if released {
        outgoing?.send(except: Strategy.returnsDemandToSender ? side : nil)
        return
      }
      // Still the owner: what was to be asked stays pending, for the next attempt.
      if outgoing != nil { swap(&outgoing, &pending) }
      held = current
      absorb(side: side, owed: &owed)
    }
  }

  /// Delivers what waits in `ready` while the downstream has demand, then the completion once it
  /// is due, handling what was posted before each output.
  @inlinable
  func pump(held: inout Int, side: Int?, owed: inout Subscribers.Demand) {
    while true {
      let current = ownership.load(ordering: .acquiring)
      if current != held {
        held = current
        absorb(side: side, owed: &owed)
      }
      switch phase {
      case .done:
        return
      case .active, .finishing:
        if demand > 0, let next = ready.popFirst() {
          demand -= 1
          deliver(next.output, source: next.source, side: side, owed: &owed)
          continue
        }
        if case .finishing = phase, ready.isEmpty {
          end(.done)
          complete(.finished)
        }
        return
      }
    }
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

  /// Handles one event as the owner. An output it makes waits in `ready`, for `pump`.
  @inlinable
  func apply(_ event: Event, side: Int?, owed: inout Subscribers.Demand) {
    switch event {
    case .value(let combine, let index):
      guard case .active = phase, let output = combine(&strategy) else { return }
      keep(output, source: index)
    case .subscription(let subscription, let index):
      guard case .active = phase, upstreams[index] == nil, !progress.finished[index],
        register(subscription, at: index)
      else {
        subscription.cancel()
        return
      }
      upstreams[index] = subscription
      let first: Subscribers.Demand
      if Strategy.requestsOneAtATime {
        first = upstreamsUnlimited ? .unlimited : .max(1)
      } else {
        // What is still to be asked of the other upstreams is asked of this one too.
        first = requested - (pending?.ask ?? .none)
      }
      if first > 0 { note { $0.starts.append((subscription, first)) } }
    case .completion(let completion, let index):
      guard case .active = phase else { return }
      upstreams[index] = nil
      progress.markFinished(index)
      switch completion {
      case .finished:
        running.withLock { $0?[index] = nil }
        if strategy.isExhausted(progress) { end(.finishing) }
      case .failure:
        // `end` cancels what is still registered as running.
        if !Strategy.cancelsFailedUpstream { running.withLock { $0?[index] = nil } }
        end(.done)
        complete(completion)
      }
    case .demand(let more):
      addDemand(more, side: side, owed: &owed)
    case .cancel:
      switch phase {
      case .done: return
      case .active, .finishing:
        end(.done)
        receiver?.release()
        receiver = nil
      }
    case .noUpstreams:
      if case .active = phase, strategy.isExhausted(progress) { end(.finishing) }
    }
  }

  // MARK: Owner's work

  /// Adds to what the upstreams are to be asked once the owner lets go.
  @inlinable
  func note(_ change: (inout Requests) -> Void) {
    if pending == nil { pending = Requests() }
    change(&pending!)
  }

  /// Keeps an output for when the downstream has demand (a combineLatest drops what no demand
  /// would take), and starts finishing once no output can come.
  @inlinable
  func keep(_ output: Output, source: Int) {
    if !Strategy.dropsOutputWithoutDemand || demand > ready.count {
      ready.append((source, output))
    }
    if strategy.isExhausted(progress) { end(.finishing) }
  }

  /// Sends one output downstream, whose demand the caller has already spent.
  @inlinable @inline(__always)
  func deliver(
    _ output: Output, source: Int, side: Int?, owed: inout Subscribers.Demand
  ) {
    if Strategy.requestsOneAtATime, !upstreamsUnlimited, case .active = phase, let upstream = upstreams[source] {
      // A merge asks for the next value as its output goes down, as Combine does, rather than
      // when the owner lets go: an upstream that drops what it cannot send (a subject) would
      // otherwise go without demand for longer. A synchronous upstream that delivers from
      // inside `request` finds the subscription owned and leaves its value in the inbox.
      if source == side { owed += 1 } else { upstream.request(.max(1)) }
    }
    guard let receiver else { return }
    let more = receiver._withUnsafeGuaranteedRef { $0.downstream.receive(output) }
    if more > 0 { addDemand(more, side: side, owed: &owed) }
  }

  /// Counts `more` downstream demand and notes what to ask of the upstreams. The part owed to
  /// upstream `side`, whose `receive(_:)` is on the stack, is returned instead.
  @inlinable
  func addDemand(_ more: Subscribers.Demand, side: Int?, owed: inout Subscribers.Demand) {
    switch phase {
    case .active: break
    case .finishing:
      demand += more
      return
    case .done: return
    }
    demand += more
    requested += more
    let ask: Subscribers.Demand
    if Strategy.requestsOneAtATime {
      guard more == .unlimited, !upstreamsUnlimited else { return }
      upstreamsUnlimited = true
      ask = .unlimited
    } else {
      ask = more
    }
    if Strategy.returnsDemandToSender, let side, upstreams[side] != nil { owed += ask }
    note { $0.ask += ask }
  }

  /// Moves to `next`, forgets every value held (the outputs in `ready` too, unless only
  /// finishing) and cancels the upstreams still running, which are then asked for nothing more.
  @inlinable
  func end(_ next: Phase) {
    if case .done = next { ready.removeAll() }
    phase = next
    pending = nil
    strategy.release()
    upstreams = []
    cancelRunningUpstreams()
  }

  /// Sends the completion downstream and forgets the downstream.
  @inlinable
  func complete(_ completion: Subscribers.Completion<Failure>) {
    guard let receiver else { return }
    self.receiver = nil
    receiver.takeRetainedValue().downstream.receive(completion: completion)
  }
}

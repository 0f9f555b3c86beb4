import Synchronization

/// What distinguishes `merge`, `zip` and `combineLatest`: how a value is kept, when values make
/// an output, and when no output can come any more. Everything else (the upstream
/// subscriptions, downstream demand, serialized delivery, completion, failure and cancellation)
/// is `CombiningSubscription`'s.
///
/// The instance lives inside the subscription's lock: its methods run under that lock and must
/// not call out.
@usableFromInline
protocol CombiningStrategy {
  associatedtype Output

  /// The name a subscription and its sides print as (Combine's names: "Merge", "Zip", "CombineLatest").
  static var description: String { get }

  /// `true` when each upstream is asked for one value at a time, and asked again once that value
  /// has gone downstream (`.unlimited` once the downstream is unlimited): Combine's `Merge`,
  /// which holds at most one undelivered value per upstream. `false` when every downstream
  /// request is passed to every upstream: Combine's `Zip` and `CombineLatest`.
  static var requestsOneAtATime: Bool { get }

  /// `true` when an output the downstream has no demand for is dropped rather than kept until
  /// it asks (Combine's `CombineLatest`).
  static var dropsOutputWithoutDemand: Bool { get }

  /// Takes a value that upstream `index` delivered into its slot, and returns the output it
  /// completes, if any.
  mutating func combine<Value>(_ value: Value, from index: Int, in slot: CombiningSlot<Value>) -> Output?

  /// Whether no output can come any more, given which upstreams have finished.
  func isExhausted(_ progress: UpstreamProgress) -> Bool

  /// Forgets every value held.
  mutating func release()
}

/// Which upstreams of a combining subscription have finished.
@usableFromInline
struct UpstreamProgress {
  @usableFromInline
  var finished: [Bool]
  @usableFromInline
  var finishedCount = 0

  @inlinable
  init(upstreamCount: Int) {
    finished = Array(repeating: false, count: upstreamCount)
  }

  @inlinable
  var allFinished: Bool { finishedCount == finished.count }

  @inlinable
  mutating func markFinished(_ index: Int) {
    guard !finished[index] else { return }
    finished[index] = true
    finishedCount += 1
  }
}

/// The values one upstream of a combining subscription delivered and that have not gone into
/// an output yet (`Zip`), or its latest value (`CombineLatest`). `Merge` keeps nothing back and
/// gives all its upstreams one empty slot.
@usableFromInline
final class CombiningSlot<Value>: CensusScoped {
  // Guarded by the lock of the CombiningSubscription that owns the slot (Zip).
  @usableFromInline @exclusivity(unchecked)
  var queued = ValueQueue<Value>()
  // Guarded like `queued` (CombineLatest).
  @usableFromInline @exclusivity(unchecked)
  var latest: Value?
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(inheritingFrom related: Any) {
    census = CensusToken(CombiningSlot.self, inheritingFrom: related)
  }

  @inlinable
  func takeOldest() -> Value {
    queued.popFirst()!
  }
}

/// One slot per upstream, of each upstream's output type: the storage of `Zip` and
/// `CombineLatest` for any number of upstreams.
@usableFromInline
struct CombiningSlots<each Value> {
  @usableFromInline
  let all: (repeat CombiningSlot<each Value>)

  @inlinable
  init(inheritingFrom related: Any) {
    all = (repeat CombiningSlot<each Value>(inheritingFrom: related))
  }

  /// Whether an upstream that has finished has nothing queued: nothing more can pair with it.
  @inlinable
  func finishedSlotIsEmpty(_ progress: UpstreamProgress) -> Bool {
    var index = 0
    for slot in repeat each all {
      if progress.finished[index] && slot.queued.isEmpty { return true }
      index += 1
    }
    return false
  }

  @inlinable
  func removeAll() {
    for slot in repeat each all {
      slot.queued.removeAll()
      slot.latest = nil
    }
  }
}

/// Builds the output of a zip or a combineLatest from its slots, written out for each arity that
/// Combine has: a loop over a parameter pack runs unspecialized generic code for every element,
/// which made each value cost dozens of metadata lookups.
@usableFromInline
enum SlotReaders {
  /// Takes the oldest queued value of every slot, once each has one (zip).
  @inlinable
  static func oldest<A, B>(_ slots: (CombiningSlot<A>, CombiningSlot<B>)) -> () -> (A, B)? {
    {
      guard !slots.0.queued.isEmpty, !slots.1.queued.isEmpty else { return nil }
      return (slots.0.takeOldest(), slots.1.takeOldest())
    }
  }

  @inlinable
  static func oldest<A, B, C>(
    _ slots: (CombiningSlot<A>, CombiningSlot<B>, CombiningSlot<C>)
  ) -> () -> (A, B, C)? {
    {
      guard !slots.0.queued.isEmpty, !slots.1.queued.isEmpty, !slots.2.queued.isEmpty else { return nil }
      return (slots.0.takeOldest(), slots.1.takeOldest(), slots.2.takeOldest())
    }
  }

  @inlinable
  static func oldest<A, B, C, D>(
    _ slots: (CombiningSlot<A>, CombiningSlot<B>, CombiningSlot<C>, CombiningSlot<D>)
  ) -> () -> (A, B, C, D)? {
    {
      guard !slots.0.queued.isEmpty, !slots.1.queued.isEmpty, !slots.2.queued.isEmpty, !slots.3.queued.isEmpty
      else { return nil }
      return (slots.0.takeOldest(), slots.1.takeOldest(), slots.2.takeOldest(), slots.3.takeOldest())
    }
  }

  /// Reads the latest value of every slot, once each has one (combineLatest).
  @inlinable
  static func latest<A, B>(_ slots: (CombiningSlot<A>, CombiningSlot<B>)) -> () -> (A, B)? {
    {
      guard let a = slots.0.latest, let b = slots.1.latest else { return nil }
      return (a, b)
    }
  }

  @inlinable
  static func latest<A, B, C>(
    _ slots: (CombiningSlot<A>, CombiningSlot<B>, CombiningSlot<C>)
  ) -> () -> (A, B, C)? {
    {
      guard let a = slots.0.latest, let b = slots.1.latest, let c = slots.2.latest else { return nil }
      return (a, b, c)
    }
  }

  @inlinable
  static func latest<A, B, C, D>(
    _ slots: (CombiningSlot<A>, CombiningSlot<B>, CombiningSlot<C>, CombiningSlot<D>)
  ) -> () -> (A, B, C, D)? {
    {
      guard let a = slots.0.latest, let b = slots.1.latest, let c = slots.2.latest, let d = slots.3.latest
      else { return nil }
      return (a, b, c, d)
    }
  }
}

/// The subscription behind `merge`, `zip` and `combineLatest`: owns the subscriptions to N
/// upstreams and the downstream, and lets a `CombiningStrategy` decide what the values make.
///
/// Every upstream delivers through a `Side` that knows its index and its slot. A value is
/// stored and combined under the lock; the output it makes goes straight down when nothing
/// waits and nobody is delivering, and otherwise waits in `ready`, in the order made. Calls into the downstream never overlap, even when upstreams deliver on several
/// threads: whichever thread sets `delivering` owns the downstream and delivers `ready` while
/// there is demand, then lets go; a thread that finds delivery owned leaves its output in
/// `ready` for the owner. The subscribing thread owns delivery until the downstream has
/// returned from `receive(subscription:)`, so nothing reaches it before its subscription.
///
/// Demand: the downstream's demand is counted here and nothing goes out beyond it. Upstreams are
/// asked either for what the downstream asks (Zip, CombineLatest) or one value at a time
/// (Merge); see `CombiningStrategy.requestsOneAtATime`. Demand owed to the upstream whose
/// `receive(_:)` is on the stack is returned from that call rather than requested.
///
/// The subscription finishes once the strategy says no output can come and `ready` is empty;
/// it fails at the first failure, dropping what waits in `ready`; either way, and on cancel,
/// it cancels the upstreams still running and forgets them, the slots and the downstream.
@usableFromInline
final class CombiningSubscription<Strategy: CombiningStrategy, Downstream: Subscriber>: SubscriptionRequestHandler,
  Subscription,
  CustomStringConvertible, CensusScoped, @unchecked Sendable
where Downstream.Input == Strategy.Output {
  @usableFromInline
  typealias Output = Strategy.Output
  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  enum Phase {
    case active
    /// No output can come any more; the completion follows what waits in `ready`.
    case finishing
    /// A failure waits for the delivering thread.
    case failing(Failure)
    /// The downstream cancelled; the delivering thread forgets it.
    case cancelled
    case done
  }

  @usableFromInline
  struct State {
    @usableFromInline
    var phase = Phase.active
    /// Never replaced: it owns the slots that the sides hold unretained.
    @usableFromInline
    var strategy: Strategy
    @usableFromInline
    var upstreams: [(any Subscription)?]
    @usableFromInline
    var progress: UpstreamProgress
    /// Outputs made and not yet delivered, with the upstream whose value made each.
    @usableFromInline
    var ready = ValueQueue<(source: Int, output: Output)>()
    /// Downstream demand not yet spent.
    @usableFromInline
    var demand = Subscribers.Demand.none
    /// Everything the downstream has requested: what an upstream that subscribes late is asked
    /// for when requests are passed through.
    @usableFromInline
    var requested = Subscribers.Demand.none
    /// One value at a time is over: every upstream was asked for `.unlimited`.
    @usableFromInline
    var upstreamsUnlimited = false
    @usableFromInline
    var delivering = true

    @inlinable
    init(strategy: Strategy, upstreamCount: Int) {
      self.strategy = strategy
      upstreams = Array(repeating: nil, count: upstreamCount)
      progress = UpstreamProgress(upstreamCount: upstreamCount)
    }

    @inlinable
    var isActive: Bool {
      if case .active = phase { return true }
      return false
    }

    @inlinable
    var isFinishing: Bool {
      if case .finishing = phase { return true }
      return false
    }

    /// Whether the delivering thread has something to do.
    @inlinable
    var hasWork: Bool {
      switch phase {
      case .active: return demand > 0 && !ready.isEmpty
      case .finishing: return ready.isEmpty || demand > 0
      case .failing, .cancelled: return true
      case .done: return false
      }
    }

    /// Takes delivery when nobody has it and there is something to do, and returns the first
    /// thing to do: the caller then owns delivery and must `drain` from it.
    @inlinable
    mutating func claimDelivery() -> Step? {
      guard !delivering, hasWork else { return nil }
      delivering = true
      return nextStep()
    }

    /// What the delivering thread does next; lets go of delivery when there is nothing to do.
    @inlinable
    mutating func nextStep() -> Step {
      switch phase {
      case .failing(let error):
        phase = .done
        return .complete(.failure(error))
      case .cancelled:
        phase = .done
        return .release
      case .done:
        return .release
      case .active, .finishing:
        if demand > 0, let next = ready.popFirst() {
          demand -= 1
          let refills = Strategy.requestsOneAtATime && !upstreamsUnlimited && isActive
          return .deliver(next.output, source: next.source, refill: refills && upstreams[next.source] != nil)
        }
        if isFinishing, ready.isEmpty {
          phase = .done
          return .complete(.finished)
        }
        delivering = false
        return .idle
      }
    }

    /// Moves to `phase` and returns the upstreams to cancel; forgets them and every held value
    /// (the outputs in `ready` too, unless the subscription is only finishing).
    @inlinable
    mutating func end(_ phase: Phase) -> [(any Subscription)?] {
      self.phase = phase
      if !isFinishing { ready.removeAll() }
      strategy.release()
      defer { upstreams = [] }
      return upstreams
    }
  }

  /// What the delivering thread does next.
  @usableFromInline
  enum Step {
    // `refill` names no subscription: an existential in the payload would make every copy of a
    // step go through the runtime's generic enum witnesses.
    case deliver(Output, source: Int, refill: Bool)
    case complete(Subscribers.Completion<Failure>)
    case release
    case idle
  }

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
  // Owned by the thread that set `delivering`; released when the subscription ends.
  // Exclusive access is guaranteed by `delivering`, so the runtime check is skipped.
  @usableFromInline @exclusivity(unchecked)
  var downstream: Downstream?
  // Touched only by the subscribing thread, while it attaches the upstreams.
  @usableFromInline @exclusivity(unchecked)
  var attached = 0
  @usableFromInline
  let census: CensusToken
  // Specialized `request` and `cancel`; see `SubscriptionRequest`.
  @usableFromInline
  let handle: (CombiningSubscription, SubscriptionRequest) -> Void

  @usableFromInline
  var description: String { Strategy.description }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  /// Gives `downstream` its subscription; the caller then attaches the upstreams in order.
  @inlinable
  static func subscribe(_ downstream: Downstream, strategy: Strategy, upstreamCount: Int) -> CombiningSubscription {
    let subscription = CombiningSubscription(strategy: strategy, upstreamCount: upstreamCount, downstream: downstream)
    downstream.receive(subscription: subscription)
    let (upstreams, step) = subscription.state.withLock { state -> ([(any Subscription)?], Step?) in
      state.delivering = false
      // A merge of no publishers has nothing to wait for.
      let upstreams = state.isActive && state.strategy.isExhausted(state.progress) ? state.end(.finishing) : []
      return (upstreams, state.claimDelivery())
    }
    for upstream in upstreams { upstream?.cancel() }
    if let step { _ = subscription.drain(from: step, returningDemandTo: nil) }
    return subscription
  }

  @inlinable
  init(strategy: Strategy, upstreamCount: Int, downstream: Downstream) {
    census = CensusToken(CombiningSubscription.self, inheritingFrom: downstream)
    state = Locked(State(strategy: strategy, upstreamCount: upstreamCount))
    self.downstream = downstream
    handle = SubscriptionRequest.dispatcher()
  }

  /// Subscribes to the next upstream, whose values go to `slot`.
  @inlinable @discardableResult
  func attach<Upstream: Publisher>(_ upstream: Upstream, slot: CombiningSlot<Upstream.Output>) -> CombiningSubscription
  where Upstream.Failure == Failure {
    let index = attached
    attached += 1
    upstream.subscribe(Side(parent: self, slot: slot, index: index))
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
    _ = addDemand(demand, returningTo: nil)
    if let step = state.withLock({ $0.claimDelivery() }) {
      _ = drain(from: step, returningDemandTo: nil)
    }
  }

  @inlinable
  func handleCancel() {
    let (upstreams, step) = state.withLock { state -> ([(any Subscription)?], Step?) in
      switch state.phase {
      case .cancelled, .done: return ([], nil)
      case .active, .finishing, .failing: break
      }
      let upstreams = state.end(.cancelled)
      return (upstreams, state.claimDelivery())
    }
    for upstream in upstreams { upstream?.cancel() }
    if let step { _ = drain(from: step, returningDemandTo: nil) }
  }

  /// Counts `more` downstream demand and asks the upstreams for what the strategy wants. The part
  /// owed to upstream `side`, whose `receive(_:)` is on the stack, is returned instead.
  @inlinable
  func addDemand(_ more: Subscribers.Demand, returningTo side: Int?) -> Subscribers.Demand {
    let (upstreams, ask) = state.withLock { state -> ([(any Subscription)?], Subscribers.Demand) in
      switch state.phase {
      case .active: break
      case .finishing:
        state.demand += more
        return ([], .none)
      case .failing, .cancelled, .done: return ([], .none)
      }
      state.demand += more
      state.requested += more
      if !Strategy.requestsOneAtATime { return (state.upstreams, more) }
      guard more == .unlimited, !state.upstreamsUnlimited else { return ([], .none) }
      state.upstreamsUnlimited = true
      return (state.upstreams, .unlimited)
    }
    var owed = Subscribers.Demand.none
    for (index, upstream) in upstreams.enumerated() {
      guard let upstream else { continue }
      if index == side { owed += ask } else { upstream.request(ask) }
    }
    return owed
  }

  // MARK: Delivery

  /// Runs while this thread owns delivery, from the `step` it was given when it took it:
  /// delivers what waits in `ready` while the downstream has demand, then the completion once
  /// it is due. Returns the demand owed to upstream `side`.
  @inlinable
  func drain(from step: Step, returningDemandTo side: Int?) -> Subscribers.Demand {
    var step = step
    var owed = Subscribers.Demand.none
    while true {
      switch step {
      case .deliver(let output, let source, let refill):
        if refill {
          if source == side { owed += 1 } else { upstream(at: source)?.request(.max(1)) }
        }
        if let downstream {
          let more = downstream.receive(output)
          if more > 0 { owed += addDemand(more, returningTo: side) }
        }
      case .complete(let completion):
        let downstream = self.downstream
        self.downstream = nil
        downstream?.receive(completion: completion)
        return .none
      case .release:
        downstream = nil
        return .none
      case .idle:
        return owed
      }
      step = state.withLock { $0.nextStep() }
    }
  }

  /// The subscription of upstream `index`, if it is still attached.
  @inlinable
  func upstream(at index: Int) -> (any Subscription)? {
    state.withLock { state in state.upstreams.indices.contains(index) ? state.upstreams[index] : nil }
  }

  // MARK: Upstream events

  @inlinable
  func receive(subscription: any Subscription, at index: Int) {
    let demand = state.withLock { state -> Subscribers.Demand? in
      guard state.isActive, state.upstreams[index] == nil, !state.progress.finished[index] else { return nil }
      state.upstreams[index] = subscription
      guard Strategy.requestsOneAtATime else { return state.requested }
      return state.upstreamsUnlimited ? .unlimited : .max(1)
    }
    guard let demand else {
      subscription.cancel()
      return
    }
    if demand > 0 { subscription.request(demand) }
  }

  @inlinable
  func receive<Value>(_ value: Value, at index: Int, slot: CombiningSlot<Value>) -> Subscribers.Demand {
    let (upstreams, step) = state.withLock { state -> ([(any Subscription)?], Step?) in
      guard state.isActive else { return ([], nil) }
      var upstreams: [(any Subscription)?] = []
      if let output = state.strategy.combine(value, from: index, in: slot) {
        if !state.delivering, state.ready.isEmpty, state.demand > 0, !state.strategy.isExhausted(state.progress) {
          // Nothing queued and nobody delivering: the output goes straight down.
          state.delivering = true
          state.demand -= 1
          let refills = Strategy.requestsOneAtATime && !state.upstreamsUnlimited
          return ([], .deliver(output, source: index, refill: refills && state.upstreams[index] != nil))
        }
        if !Strategy.dropsOutputWithoutDemand || state.demand > state.ready.count {
          state.ready.append((index, output))
        }
        if state.strategy.isExhausted(state.progress) { upstreams = state.end(.finishing) }
      }
      return (upstreams, state.claimDelivery())
    }
    for upstream in upstreams { upstream?.cancel() }
    guard let step else { return .none }
    return drain(from: step, returningDemandTo: index)
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>, at index: Int) {
    let (upstreams, step) = state.withLock { state -> ([(any Subscription)?], Step?) in
      guard state.isActive else { return ([], nil) }
      state.upstreams[index] = nil
      state.progress.markFinished(index)
      let upstreams: [(any Subscription)?]
      switch completion {
      case .finished:
        guard state.strategy.isExhausted(state.progress) else { return ([], nil) }
        upstreams = state.end(.finishing)
      case .failure(let error):
        upstreams = state.end(.failing(error))
      }
      return (upstreams, state.claimDelivery())
    }
    for upstream in upstreams { upstream?.cancel() }
    if let step { _ = drain(from: step, returningDemandTo: nil) }
  }
}

extension CombiningSubscription {
  /// The subscriber given to one upstream: forwards to the subscription with its index.
  @usableFromInline
  struct Side<Input>: Subscriber, CustomStringConvertible {
    @usableFromInline
    typealias Failure = Downstream.Failure

    @usableFromInline
    let parent: CombiningSubscription
    // Unretained: the parent's strategy owns the slot for as long as the parent lives, and the
    // side holds the parent. A second strong reference would cost every copy of the side (one
    // per value sent through a subject) a retain and a release.
    @usableFromInline
    let slot: Unmanaged<CombiningSlot<Input>>
    @usableFromInline
    let index: Int
    @usableFromInline
    let combineIdentifier = CombineIdentifier()

    @inlinable
    init(parent: CombiningSubscription, slot: CombiningSlot<Input>, index: Int) {
      self.parent = parent
      self.slot = Unmanaged.passUnretained(slot)
      self.index = index
    }

    @usableFromInline
    var description: String { Strategy.description }

    @inlinable
    func receive(subscription: any Subscription) {
      parent.receive(subscription: subscription, at: index)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
      slot._withUnsafeGuaranteedRef { slot in parent.receive(input, at: index, slot: slot) }
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
      parent.receive(completion: completion, at: index)
    }
  }
}

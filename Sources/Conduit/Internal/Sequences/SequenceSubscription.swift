import Synchronization

// Sequences: delivers a sequence's elements on demand (`Publishers.Sequence`, `Record`).
// One file: the subscription and what it publishes for.

/// Delivers the elements of a sequence on demand, then a completion.
///
/// Shared by `Publishers.Sequence` and `Record`. Delivery is trampolined: a `request` made from
/// inside `receive(_:)` only adds demand, and the loop already running picks it up, so a
/// subscriber that asks for one element at a time never grows the stack. The loop takes no lock
/// per element; it checks an atomic flag for cancellation, and goes back to the lock only when
/// the demand it holds is spent.
@usableFromInline
final class SequenceSubscription<Elements: Sequence, Downstream: Subscriber>: SubscriptionRequestHandler, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped
where Downstream.Input == Elements.Element {
  // Guarded by its own lock.
  @usableFromInline
  let machine: Locked<SequenceStateMachine<Elements>>
  // Set once by `cancel`, read without the lock by the delivery loop.
  @usableFromInline
  let cancelled = Atomic<Bool>(false)
  // Fields with unchecked exclusivity skip the runtime check, which costs in "(0..<N).publisher -> map -> filter -> … -> sink".
  // Owned by the thread that owns `machine.delivery`; released when the subscription ends.
  @usableFromInline @exclusivity(unchecked)
  var downstream: Downstream?
  // Owned like `downstream`; released with it, since it may hold the sequence and whatever the
  // sequence captured (a lazy `map`'s closure, say).
  @usableFromInline @exclusivity(unchecked)
  var iterator: Elements.Iterator?
  // Owned like `downstream`: the element after the one just delivered, read ahead so the
  // completion follows the last element without waiting for more demand.
  @usableFromInline @exclusivity(unchecked)
  var upcoming: Elements.Element?
  @usableFromInline
  let completion: Subscribers.Completion<Downstream.Failure>
  @usableFromInline
  let census: CensusToken
  // Specialized `request` and `cancel`; see `SubscriptionRequest`.
  @usableFromInline
  let handle: @Sendable (SequenceSubscription, SubscriptionRequest) -> Void
  // Immutable: which publisher this subscription serves, for its description.
  @usableFromInline
  let kind: SequenceSubscriptionKind

  /// The sequence while the subscription publishes, as Combine describes it; once it has ended,
  /// "Sequence", or "Cancelled Events" for a `Record`. Worked out only when asked for.
  @usableFromInline
  var description: String {
    // Described out of the lock: a sequence's description is its own code.
    guard let sequence = machine.withLock({ $0.sequence }) else {
      return kind == .record ? "Cancelled Events" : "Sequence"
    }
    return String(describing: sequence)
  }

  /// The sequence (empty once the subscription has ended) and, for a `Record`, its completion,
  /// as Combine reflects them.
  @usableFromInline
  var customMirror: Mirror {
    let sequence: Any = machine.withLock { $0.sequence } ?? [Elements.Element]()
    switch kind {
    case .sequence:
      return Mirror(self, children: CollectionOfOne<Mirror.Child>(("sequence", sequence)))
    case .record:
      let children: [Mirror.Child] = [("sequence", sequence), ("completion", completion)]
      return Mirror(self, children: children)
    }
  }

  @usableFromInline
  var playgroundDescription: Any { description }

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  /// Subscribes `downstream` to the elements of `sequence` followed by `completion`. An empty
  /// sequence completes at once, with `Subscriptions.empty`.
  @inlinable
  static func start(
    _ sequence: Elements, then completion: Subscribers.Completion<Downstream.Failure>,
    downstream: Downstream, kind: SequenceSubscriptionKind
  ) {
    var iterator = sequence.makeIterator()
    guard let first = iterator.next() else {
      downstream.receive(subscription: Subscriptions.empty)
      downstream.receive(completion: completion)
      return
    }
    let subscription = SequenceSubscription(
      sequence: sequence, iterator: iterator, first: first, completion: completion, downstream: downstream,
      kind: kind)
    downstream.receive(subscription: subscription)
  }

  @inlinable
  init(
    sequence: Elements, iterator: Elements.Iterator, first: Elements.Element,
    completion: Subscribers.Completion<Downstream.Failure>, downstream: Downstream, kind: SequenceSubscriptionKind
  ) {
    census = CensusToken(SequenceSubscription.self, inheritingFrom: downstream)
    machine = Locked(SequenceStateMachine(sequence: sequence))
    self.iterator = iterator
    self.upcoming = first
    self.completion = completion
    self.downstream = downstream
    self.kind = kind
    handle = SubscriptionRequest.dispatcher()
  }

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
    // As in Combine, a request for nothing changes nothing.
    guard demand != .none else { return }
    if machine.withLock({ $0.request(demand) }) { deliver() }
  }

  @usableFromInline
  func handleCancel() {
    guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
    // The sequence leaves after the lock: its deinit is not ours to run under it.
    let (sequence, loopRuns) = machine.withLock { $0.cancel() }
    withExtendedLifetime(sequence) {}
    // The delivery loop, if one is running, sees the flag and releases everything itself.
    if !loopRuns { release() }
  }

  /// Runs while this thread owns delivery. Takes the demand granted so far, delivers it, and
  /// goes back for more until the demand is spent, the sequence ends or the subscriber cancels.
  @inlinable
  func deliver() {
    guard let downstream else { return }
    var demand = takeGrantedDemand()
    while let granted = demand {
      var remaining = granted
      while remaining > 0 {
        guard !cancelled.load(ordering: .relaxed), let element = upcoming else {
          release()
          return
        }
        if remaining != .unlimited { remaining -= 1 }
        upcoming = iterator!.next()
        let more = downstream.receive(element)
        if more != .none { remaining += more }
        if upcoming == nil {
          finish()
          return
        }
      }
      demand = takeGrantedDemand()
    }
  }

  /// The demand granted since the last look, or `nil` when there is none (delivery is then
  /// handed back) or the subscription was cancelled (everything is then released).
  @inlinable
  func takeGrantedDemand() -> Subscribers.Demand? {
    switch machine.withLock({ $0.takeGrantedDemand() }) {
    case .deliver(let granted):
      return granted
    case .stop:
      return nil
    case .release:
      release()
      return nil
    }
  }

  @usableFromInline
  func finish() {
    // The sequence leaves after the lock: its deinit is not ours to run under it.
    let sequence = machine.withLock { $0.finish() }
    let downstream = self.downstream
    release()
    if sequence != nil && !cancelled.load(ordering: .relaxed) {
      downstream?.receive(completion: completion)
    }
  }

  @usableFromInline
  func release() {
    downstream = nil
    upcoming = nil
    iterator = nil
  }
}

/// The decisions of a `SequenceSubscription`: the demand granted and not yet taken by the
/// delivery loop, which thread runs that loop, and when the subscription ends. The loop itself,
/// with the iterator and downstream it owns, stays outside: it takes no lock per element.
///
/// ```
///   publishing(sequence, demand) ──── the last element, or a cancel ────► terminal
/// ```
@usableFromInline
struct SequenceStateMachine<Elements: Sequence> {
  @usableFromInline
  enum State {
    /// `sequence` is kept for `description` and `customMirror` only, as Combine describes the
    /// subscription; `demand` is what downstream granted since the loop last took it.
    case publishing(Elements, demand: Subscribers.Demand)
    case terminal
  }

  /// What the delivery loop does when it has spent the demand it took.
  @usableFromInline
  enum TakeAction {
    /// Deliver this much more.
    case deliver(Subscribers.Demand)
    /// Nothing is granted: the loop has handed delivery back, and stops.
    case stop
    /// The subscription was cancelled: the loop releases everything, and stops.
    case release
  }

  @usableFromInline
  var state: State
  /// Which thread runs the delivery loop, and with it owns the iterator and downstream (see
  /// `DeliveryOwnership`). The loop holds the demand it took outside the lock, so a `request`
  /// made meanwhile only posts demand.
  @usableFromInline
  var delivery = DeliveryOwnership()

  @inlinable
  init(sequence: Elements) {
    state = .publishing(sequence, demand: .none)
  }

  /// The sequence while the subscription publishes.
  @usableFromInline
  var sequence: Elements? {
    guard case .publishing(let sequence, _) = state else { return nil }
    return sequence
  }

  /// Downstream asked for `demand` (not `.none`): returns whether this thread starts the loop.
  @inlinable
  mutating func request(_ demand: Subscribers.Demand) -> Bool {
    guard case .publishing(let sequence, let granted) = replace(&state, with: .terminal) else { return false }
    state = .publishing(sequence, demand: granted + demand)
    return delivery.claim()
  }

  /// The loop has spent the demand it took.
  @inlinable
  mutating func takeGrantedDemand() -> TakeAction {
    guard case .publishing(let sequence, let granted) = replace(&state, with: .terminal) else { return .release }
    state = .publishing(sequence, demand: .none)
    guard granted != .none else {
      delivery.giveBack()
      return .stop
    }
    return .deliver(granted)
  }

  /// The sequence has no more elements: returns it, to let go of after the lock, or `nil` when
  /// the subscription was cancelled meanwhile (then nothing completes).
  @usableFromInline
  mutating func finish() -> Elements? {
    guard case .publishing(let sequence, _) = replace(&state, with: .terminal) else { return nil }
    return sequence
  }

  /// Returns the sequence, to let go of after the lock, and whether a loop runs, which then
  /// releases everything itself when it sees the cancel.
  @usableFromInline
  mutating func cancel() -> (Elements?, loopRuns: Bool) {
    guard case .publishing(let sequence, _) = replace(&state, with: .terminal) else { return (nil, true) }
    return (sequence, !delivery.claim())
  }
}

/// What a `SequenceSubscription` publishes for, which decides how it describes itself.
@usableFromInline
enum SequenceSubscriptionKind {
  /// A `Publishers.Sequence`: described by its sequence while it publishes, "Sequence" after.
  case sequence
  /// A `Record`: described by its recorded output while it publishes, "Cancelled Events" after,
  /// and reflected with its completion too.
  case record
}

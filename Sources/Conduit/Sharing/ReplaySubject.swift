/// A subject that remembers its last values and replays them to each new subscriber; the engine
/// of `share(replay:)`.
///
/// Everything here is inlinable, so that client code specializes it for its types: a value goes
/// to each subscriber through closures made where the subscriber's type is known, never through
/// a generic class's method table, whose entries run unspecialized code.
@usableFromInline
final class ReplaySubject<Output, Failure: Error>: Subject, UpstreamForgetting, Sendable {
  @usableFromInline
  struct State {
    @usableFromInline
    var recent = ValueQueue<Output>()
    @usableFromInline
    var completion: Subscribers.Completion<Failure>?
    /// Replaced, never changed in place, so that a value retains one object rather than copying
    /// the array out of the lock.
    @usableFromInline
    var members = ReplayMembers<Output, Failure>([])
    @usableFromInline
    var upstreams: [any Subscription] = []

    @inlinable
    init() {}
  }

  // Guarded by its own lock.
  @usableFromInline
  let state = Locked(State())
  @usableFromInline
  let bufferSize: Int

  @inlinable
  init(bufferSize: Int) {
    self.bufferSize = bufferSize
  }

  deinit {
    let upstreams = state.withLock { $0.upstreams }
    for upstream in upstreams { upstream.cancel() }
  }

  @inlinable
  func send(_ value: Output) {
    // The value pushed out of the replay leaves after the lock: its deinit is not ours to run
    // under it.
    var pushedOut: Output?
    state.withRetained { state -> ReplayMembers<Output, Failure>? in
      guard state.completion == nil else { return nil }
      if state.recent.count == bufferSize { pushedOut = state.recent.popFirst() }
      state.recent.append(value)
      return state.members
    } then: { members in
      for index in members.list.indices { members.list[index].enqueue(value) }
    }
    withExtendedLifetime(pushedOut) {}
  }

  @inlinable
  func send(completion: Subscribers.Completion<Failure>) {
    // The upstream subscriptions leave after the lock: their deinits may use this subject.
    var upstreams: [any Subscription] = []
    let members = state.withLock { state -> ReplayMembers<Output, Failure>? in
      guard state.completion == nil else { return nil }
      state.completion = completion
      swap(&state.upstreams, &upstreams)
      defer { state.members = ReplayMembers([]) }
      return state.members
    }
    for member in members?.list ?? [] { member.finish(completion) }
    withExtendedLifetime(upstreams) {}
  }

  @inlinable
  func send(subscription: any Subscription) {
    state.withLock { $0.upstreams.append(subscription) }
    subscription.request(.unlimited)
  }

  @inlinable
  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let conduit = ReplayConduit(parent: self, downstream: subscriber)
    let member = ReplayMember(conduit)
    // Join and take the replay in one step, so no value is both replayed and sent live.
    let (recent, completion) = state.withLock { state in
      if state.completion == nil { state.members = ReplayMembers(state.members.list + [member]) }
      return (state.recent.elements, state.completion)
    }
    conduit.start(replaying: recent, then: completion)
  }

  /// Forgets an upstream subscription that was cancelled.
  @usableFromInline
  func forgetUpstream(_ identifier: CombineIdentifier) {
    // The subscription leaves after the lock: its deinit may use this subject.
    let forgotten = state.withLock { state -> [any Subscription] in
      let forgotten = state.upstreams.filter { $0.combineIdentifier == identifier }
      state.upstreams.removeAll { $0.combineIdentifier == identifier }
      return forgotten
    }
    withExtendedLifetime(forgotten) {}
  }

  @inlinable
  func remove(_ conduit: AnyObject) {
    let left = state.withLock { state -> ReplayMembers<Output, Failure> in
      defer { state.members = ReplayMembers(state.members.list.filter { $0.conduit !== conduit }) }
      return state.members
    }
    // The list the conduit left, released after the lock (it may hold the last reference to it).
    _ = left
  }
}

/// The subscribers of a replay subject at one moment; see `ReplaySubject.State.members`.
@usableFromInline
final class ReplayMembers<Output, Failure: Error> {
  @usableFromInline
  let list: [ReplayMember<Output, Failure>]

  @inlinable
  init(_ list: [ReplayMember<Output, Failure>]) {
    self.list = list
  }
}

/// What the replay subject calls on one subscriber's conduit: closures made where the
/// subscriber's type is known, so that the calls run specialized code.
@usableFromInline
struct ReplayMember<Output, Failure: Error> {
  @usableFromInline
  let conduit: AnyObject
  @usableFromInline
  let enqueue: (Output) -> Void
  @usableFromInline
  let finish: (Subscribers.Completion<Failure>) -> Void

  @inlinable
  init<Downstream: Subscriber>(_ conduit: ReplayConduit<Downstream>)
  where Downstream.Input == Output, Downstream.Failure == Failure {
    self.conduit = conduit
    enqueue = { conduit.enqueue($0) }
    finish = { conduit.finish($0) }
  }
}

/// One subscriber of a replay subject: a queue of undelivered values (at most the buffer size),
/// delivered as demand allows, by one thread at a time. It keeps a `ReplayConduitStateMachine`
/// under its lock and carries out what the machine decides, after the lock.
@usableFromInline
final class ReplayConduit<Downstream: Subscriber>: Subscription, CustomStringConvertible, CensusScoped,
  Sendable
{
  @usableFromInline
  typealias Output = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure
  @usableFromInline
  typealias Machine = ReplayConduitStateMachine<Downstream>

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<Machine>
  @usableFromInline
  let census: CensusToken
  // Immutable: the most values that wait here for a subscriber with no demand, the subject's
  // buffer size.
  @usableFromInline
  let capacity: Int
  // Keeps the values waiting for a subscriber that has demand but is slower than its senders
  // within `capacity` plus the bound: a sender on another thread waits for room.
  @usableFromInline
  let bound = BacklogBound()

  @usableFromInline
  var description: String { "ShareReplay" }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(parent: ReplaySubject<Output, Failure>, downstream: Downstream) {
    census = CensusToken(ReplayConduit.self, inheritingFrom: downstream)
    state = Locked(Machine(parent: parent, downstream: downstream))
    capacity = parent.bufferSize
  }

  /// Sends the subscription, then whatever the subscriber's demand allows of the replay.
  ///
  /// The subscriber joined the subject before this runs, so a value or the completion sent
  /// meanwhile on another thread may already wait here: it came after the replay, and goes after
  /// it.
  @inlinable
  func start(replaying recent: [Output], then completion: Subscribers.Completion<Failure>?) {
    switch state.withLock({ $0.start(replaying: recent, then: completion) }) {
    case .subscribe(let receiver, let parent):
      // The subject, let go of when it has completed, leaves after the lock.
      withExtendedLifetime(parent) {}
      receiver.downstream.receive(subscription: self)
      drain(adding: .none)
    case .none:
      break
    }
  }

  /// Takes a live value. When nothing waits and the subscriber has demand, the value goes
  /// straight down without being queued.
  @inlinable
  func enqueue(_ value: Output) {
    switch state.withLock({ $0.enqueue(value, capacity: capacity) }) {
    case .deliver(let receiver, let value):
      drain(adding: Self.deliver(value, to: receiver))
    case .drain(let dropped):
      drain(adding: .none)
      withExtendedLifetime(dropped) {}
    case .nothing(let dropped, let beyondReplay):
      withExtendedLifetime(dropped) {}
      if beyondReplay > BacklogBound.limit { bound.waitForRoom { backlog } }
    }
  }

  /// The values waiting beyond what the replay keeps: those that a subscriber with demand has
  /// not yet taken.
  @usableFromInline
  var backlog: Int {
    state.withLock { $0.queue.count } - capacity
  }

  @usableFromInline
  func finish(_ completion: Subscribers.Completion<Failure>) {
    // The subject, let go of as it completes, leaves after the lock.
    switch state.withLock({ $0.finish(completion) }) {
    case .none:
      break
    case .wait(let parent):
      withExtendedLifetime(parent) {}
    case .drain(let parent):
      withExtendedLifetime(parent) {}
      drain(adding: .none)
    }
  }

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    if state.withLock({ $0.request(demand) }) { drain(adding: .none) }
  }

  @usableFromInline
  func cancel() {
    let action = state.withLock { $0.cancel() }
    if case .release(let parent?, _, _) = action { parent.remove(self) }
    bound.wakeWaiting()
    // The subscriber and the values leave last, after the lock: their deinits are not ours to run
    // under it.
    withExtendedLifetime(action) {}
  }

  /// Sends `value` to the receiver, which comes retained once, and releases it.
  @inlinable @inline(__always)
  static func deliver(_ value: Output, to receiver: Unmanaged<Machine.Receiver>) -> Subscribers.Demand {
    defer { receiver.release() }
    return receiver._withUnsafeGuaranteedRef { $0.downstream.receive(value) }
  }

  /// Adds the demand the last delivered value returned, then delivers while there is something
  /// deliverable, one value per lock round trip; runs only on the thread that owns delivery, and
  /// hands ownership back when nothing is left.
  @inlinable
  func drain(adding more: Subscribers.Demand) {
    var more = more
    state.drain { machine -> NextDelivery<Machine.Delivery> in
      let next = machine.nextDelivery(adding: more)
      if case .perform = next { bound.handledOne(left: machine.queue.count - capacity) }
      return next
    } perform: { step in
      switch step {
      case .value(let receiver, let value):
        more = Self.deliver(value, to: receiver)
      case .completion(let receiver, let completion):
        receiver.downstream.receive(completion: completion)
      }
    }
  }
}

/// The decisions of one subscriber of a replay subject (`ReplayConduit`): whether the replay is
/// set up, which values wait and which a subscriber with no demand drops, when the completion
/// follows them, and which thread delivers. Its events return what the conduit does after the
/// lock.
///
/// ```
///   awaitingStart ─── start ───► live ─── finish ───► completing ─── the queue drains ───► terminal
///         │                                               ▲
///         └─── start, with or after a completion ─────────┘
///
///   every phase but terminal ─── cancel ───► terminal
/// ```
///
/// `phase` carries no payload but the completion that waits: the per-value events (`enqueue`,
/// `nextDelivery`) read and change the queue, receiver and demand beside it in place, and copy
/// none of them ("share(replay: 1) with two subscribers, per value sent").
@usableFromInline
struct ReplayConduitStateMachine<Downstream: Subscriber> {
  @usableFromInline
  typealias Output = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure
  @usableFromInline
  typealias Completion = Subscribers.Completion<Failure>
  @usableFromInline
  typealias Receiver = DownstreamBox<Downstream>

  /// Where the subscriber stands; see the diagram above.
  @usableFromInline
  enum Phase {
    /// The replay is not set up: the subscriber has not had its subscription, so could not ask
    /// for anything, and no value waiting for it is dropped. `then` is a completion that arrived
    /// meanwhile; it follows the replay.
    case awaitingStart(then: Completion?)
    /// Values arrive, and wait for demand or for the thread that delivers.
    case live
    /// The completion waits for the queue to drain; the parent is let go of. A value the subject
    /// sent before it on another thread may still arrive, and goes before it.
    case completing(Completion)
    /// The subscriber is let go of, completed or cancelled: every event does nothing.
    case terminal
  }

  /// What a live value leads to.
  @usableFromInline
  enum Arrival {
    /// It goes straight down: nothing waits, the subscriber has demand, and this thread now
    /// delivers. The receiver comes retained once, for the call after the lock.
    case deliver(Unmanaged<Receiver>, Output)
    /// It waits in the queue, and this thread now delivers. `dropped` is what a subscriber with
    /// no demand let go of to make room, released after the lock.
    case drain(dropped: Dropped)
    /// It waits in the queue (or the subscriber is gone), for the thread that delivers, with
    /// `beyondReplay` values more than the replay keeps (see `ReplayConduit.backlog`).
    case nothing(dropped: Dropped, beyondReplay: Int)
  }

  /// The values a subscriber with no demand let go of to make room for a live value: almost
  /// always one, with no allocation; more only right after the replay.
  @usableFromInline
  enum Dropped {
    case none
    case one(Output)
    case many([Output])
  }

  /// What the thread that delivers does next, after the lock.
  @usableFromInline
  enum Delivery {
    /// The receiver comes retained once, for the call after the lock.
    case value(Unmanaged<Receiver>, Output)
    /// The last call: the receiver is let go of after it.
    case completion(Receiver, Completion)
  }

  /// What `start(replaying:then:)` asks of the conduit.
  @usableFromInline
  enum StartAction {
    /// Give `receiver` its subscription, let go of `letGo` (the parent, when the stream has
    /// completed), then deliver: this thread owns delivery.
    case subscribe(Receiver, letGo: ReplaySubject<Output, Failure>?)
    /// The subscriber is gone, or the replay is set up already.
    case none
  }

  /// What `finish(_:)` asks of the conduit.
  @usableFromInline
  enum FinishAction {
    /// The stream has ended already, or a completion waits already.
    case none
    /// Let go of the parent; the thread that owns delivery delivers the completion.
    case wait(letGo: ReplaySubject<Output, Failure>?)
    /// Let go of the parent, then deliver: this thread now owns delivery.
    case drain(letGo: ReplaySubject<Output, Failure>?)
  }

  /// What `cancel()` asks of the conduit.
  @usableFromInline
  enum CancelAction {
    /// The subscriber was let go of already.
    case none
    /// Leave `parent`, if given, then let go of the subscriber and the values that waited.
    case release(parent: ReplaySubject<Output, Failure>?, Receiver, queue: [Output])
  }

  @usableFromInline
  var phase = Phase.awaitingStart(then: nil)
  /// The subject, which the conduit leaves on a cancel. Present until the phase is completing
  /// (or a completion waits for the replay) or terminal.
  @usableFromInline
  var parent: ReplaySubject<Output, Failure>?
  /// The subscriber, in a box so that a value retains one object however many references the
  /// subscriber holds. Present until the phase is terminal.
  @usableFromInline
  var receiver: Receiver?
  /// The values not yet delivered, oldest first: the replay and what arrived after it. Empty
  /// once the phase is terminal.
  @usableFromInline
  var queue: [Output] = []
  /// What the subscriber asked for and has not yet received. Always present; unchanged once the
  /// phase is terminal.
  @usableFromInline
  var demand = Subscribers.Demand.none
  /// Which thread delivers (see `DeliveryOwnership`): claimed from the start by the thread that
  /// starts the replay, and kept for good by the thread that ends the stream. Always present.
  @usableFromInline
  var delivery = DeliveryOwnership(claimed: true)

  @inlinable
  init(parent: ReplaySubject<Output, Failure>, downstream: Downstream) {
    self.parent = parent
    receiver = Receiver(downstream)
  }

  /// Sets up the replay: `recent` goes before the values that arrived meanwhile, and
  /// `completion`, when the subject has completed, after them.
  @inlinable
  mutating func start(replaying recent: [Output], then completion: Completion?) -> StartAction {
    guard case .awaitingStart(let early) = phase else { return .none }
    queue = recent + queue
    // The subject sends a completion either before the subscriber joins or afterwards, never both.
    guard let ending = early ?? completion else {
      phase = .live
      return .subscribe(receiver!, letGo: nil)
    }
    phase = .completing(ending)
    return .subscribe(receiver!, letGo: replace(&parent, with: nil))
  }

  /// A live value arrived; `capacity` is the most values that wait for a subscriber with no
  /// demand.
  @inlinable
  mutating func enqueue(_ value: Output, capacity: Int) -> Arrival {
    if case .terminal = phase { return .nothing(dropped: .none, beyondReplay: 0) }
    if queue.isEmpty, demand > 0, delivery.claim() {
      if demand != .unlimited { demand -= 1 }
      return .deliver(Unmanaged.passRetained(receiver!), value)
    }
    queue.append(value)
    // Only a subscriber with no demand, once the replay is set up, drops the oldest; values that
    // demand covers are merely waiting for the thread that delivers. What it drops leaves after
    // the lock: a value's deinit is not ours to run under it.
    var dropped = Dropped.none
    if demand == .none, queue.count > capacity, isReplaySetUp {
      let excess = queue.count - capacity
      if excess == 1 {
        dropped = .one(queue.removeFirst())
      } else {
        dropped = .many(Array(queue.prefix(excess)))
        queue.removeFirst(excess)
      }
    }
    guard !delivery.claim() else { return .drain(dropped: dropped) }
    return .nothing(dropped: dropped, beyondReplay: queue.count - capacity)
  }

  /// Whether the replay is set up, after which a subscriber with no demand drops the oldest.
  @inlinable
  var isReplaySetUp: Bool {
    if case .awaitingStart = phase { return false }
    return true
  }

  /// The subject completed: the completion waits for the replay, if it is not set up, and for
  /// the values that wait.
  @usableFromInline
  mutating func finish(_ completion: Completion) -> FinishAction {
    switch phase {
    case .awaitingStart(then: .none):
      phase = .awaitingStart(then: completion)
    case .live:
      phase = .completing(completion)
    case .awaitingStart(then: .some), .completing, .terminal:
      return .none
    }
    let parent = replace(&parent, with: nil)
    return delivery.claim() ? .drain(letGo: parent) : .wait(letGo: parent)
  }

  /// The subscriber asked for `more`: returns whether this thread now delivers.
  @inlinable
  mutating func request(_ more: Subscribers.Demand) -> Bool {
    if case .terminal = phase { return false }
    demand += more
    return delivery.claim()
  }

  @usableFromInline
  mutating func cancel() -> CancelAction {
    if case .terminal = phase { return .none }
    phase = .terminal
    return .release(
      parent: replace(&parent, with: nil), replace(&receiver, with: nil)!, queue: replace(&queue, with: []))
  }

  /// The thread that owns delivery asks what to do next, adding `more`, the demand the last
  /// value it delivered returned: the oldest value while there is demand for it, then the
  /// completion once nothing waits. When there is nothing to do it gives delivery back, except
  /// once the stream has ended.
  @inlinable
  mutating func nextDelivery(adding more: Subscribers.Demand) -> NextDelivery<Delivery> {
    if case .terminal = phase { return .stop }
    if more > 0 { demand += more }
    if !queue.isEmpty && demand > 0 {
      if demand != .unlimited { demand -= 1 }
      return .perform(.value(Unmanaged.passRetained(receiver!), queue.removeFirst()))
    }
    if queue.isEmpty, case .completing(let completion) = phase {
      phase = .terminal
      return .performAndStop(.completion(replace(&receiver, with: nil)!, completion))
    }
    delivery.giveBack()
    return .stop
  }
}

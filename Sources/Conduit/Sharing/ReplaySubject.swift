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
/// delivered as demand allows, by one thread at a time.
@usableFromInline
final class ReplayConduit<Downstream: Subscriber>: Subscription, CustomStringConvertible, CensusScoped,
  Sendable
{
  @usableFromInline
  typealias Output = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  typealias Receiver = DownstreamBox<Downstream>

  @usableFromInline
  enum Step {
    /// The receiver comes retained once, for the call after the lock.
    case value(Unmanaged<Receiver>, Output)
    case completion(Receiver, Subscribers.Completion<Failure>)
  }

  /// What a live value leads to.
  @usableFromInline
  enum Arrival {
    /// It goes straight down: nothing waits, the subscriber has demand, and this thread now
    /// delivers.
    case deliver(Unmanaged<Receiver>, Output)
    /// It waits in the queue, and this thread now delivers. `dropped` is what a subscriber with
    /// no demand let go of to make room, released after the lock.
    case drain(dropped: Dropped)
    /// It waits in the queue (or the subscriber is gone), for the thread that delivers, with
    /// `beyondReplay` values more than the replay keeps (see `backlog`).
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

  @usableFromInline
  struct State {
    @usableFromInline
    var parent: ReplaySubject<Output, Failure>?
    /// The subscriber, in a box so that a value retains one object however many references the
    /// subscriber holds.
    @usableFromInline
    var receiver: Receiver?
    @usableFromInline
    var queue: [Output] = []
    @usableFromInline
    var completion: Subscribers.Completion<Failure>?
    @usableFromInline
    var demand = Subscribers.Demand.none
    /// Claimed by the thread that starts the replay (see `DeliveryOwnership`).
    @usableFromInline
    var delivery = DeliveryOwnership(claimed: true)
    /// Whether the replay has been set up; until then the subscriber could not ask for anything,
    /// so no value waiting for it is dropped.
    @usableFromInline
    var started = false

    @inlinable
    init(parent: ReplaySubject<Output, Failure>, downstream: Downstream) {
      self.parent = parent
      receiver = Receiver(downstream)
    }
  }

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
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
    state = Locked(State(parent: parent, downstream: downstream))
    capacity = parent.bufferSize
  }

  /// Sends the subscription, then whatever the subscriber's demand allows of the replay.
  ///
  /// The subscriber joined the subject before this runs, so a value or the completion sent
  /// meanwhile on another thread may already wait here: it came after the replay, and goes after
  /// it.
  @inlinable
  func start(replaying recent: [Output], then completion: Subscribers.Completion<Failure>?) {
    let receiver = state.withLock { state -> Receiver? in
      state.queue = recent + state.queue
      state.started = true
      if state.completion == nil { state.completion = completion }
      if state.completion != nil { state.parent = nil }
      return state.receiver
    }
    receiver?.downstream.receive(subscription: self)
    drain(adding: .none)
  }

  /// Takes a live value. When nothing waits and the subscriber has demand, the value goes
  /// straight down without being queued.
  @inlinable
  func enqueue(_ value: Output) {
    let arrival = state.withLock { state -> Arrival in
      guard let receiver = state.receiver else { return .nothing(dropped: .none, beyondReplay: 0) }
      if state.queue.isEmpty, state.demand > 0, state.delivery.claim() {
        if state.demand != .unlimited { state.demand -= 1 }
        return .deliver(Unmanaged.passRetained(receiver), value)
      }
      state.queue.append(value)
      // Only a subscriber with no demand drops the oldest; values that demand covers are merely
      // waiting for the thread that delivers. What it drops leaves after the lock: a value's
      // deinit is not ours to run under it.
      var dropped = Dropped.none
      if state.started, state.demand == .none, state.queue.count > capacity {
        let excess = state.queue.count - capacity
        if excess == 1 {
          dropped = .one(state.queue.removeFirst())
        } else {
          dropped = .many(Array(state.queue.prefix(excess)))
          state.queue.removeFirst(excess)
        }
      }
      guard !state.delivery.claim() else { return .drain(dropped: dropped) }
      return .nothing(dropped: dropped, beyondReplay: state.queue.count - capacity)
    }
    switch arrival {
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
    let owns = state.withLock { state -> Bool in
      guard state.receiver != nil, state.completion == nil else { return false }
      state.completion = completion
      state.parent = nil
      return state.delivery.claim()
    }
    if owns { drain(adding: .none) }
  }

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let owns = state.withLock { state -> Bool in
      guard state.receiver != nil else { return false }
      state.demand += demand
      return state.delivery.claim()
    }
    if owns { drain(adding: .none) }
  }

  @usableFromInline
  func cancel() {
    // What the state held leaves after the lock: the subscriber's and the values' deinits are
    // not ours to run under it.
    let (parent, receiver, queue) = state.withLock { state in
      defer {
        state.parent = nil
        state.receiver = nil
        state.queue = []
      }
      return (state.parent, state.receiver, state.queue)
    }
    parent?.remove(self)
    bound.wakeWaiting()
    withExtendedLifetime((receiver, queue)) {}
  }

  /// Sends `value` to the receiver, which comes retained once, and releases it.
  @inlinable @inline(__always)
  static func deliver(_ value: Output, to receiver: Unmanaged<Receiver>) -> Subscribers.Demand {
    defer { receiver.release() }
    return receiver._withUnsafeGuaranteedRef { $0.downstream.receive(value) }
  }

  /// Adds the demand the last delivered value returned, then delivers while there is something
  /// deliverable, one value per lock round trip; runs only on the thread that owns delivery, and
  /// hands ownership back when nothing is left.
  @inlinable
  func drain(adding more: Subscribers.Demand) {
    var more = more
    state.drain { state -> NextDelivery<Step> in
      if more > 0, state.receiver != nil { state.demand += more }
      guard let receiver = state.receiver else {
        state.delivery.giveBack()
        return .stop
      }
      if !state.queue.isEmpty && state.demand > 0 {
        if state.demand != .unlimited { state.demand -= 1 }
        let value = state.queue.removeFirst()
        bound.handledOne(left: state.queue.count - capacity)
        return .perform(.value(Unmanaged.passRetained(receiver), value))
      }
      if state.queue.isEmpty, let completion = state.completion {
        state.receiver = nil
        state.parent = nil
        return .performAndStop(.completion(receiver, completion))
      }
      state.delivery.giveBack()
      return .stop
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

/// A subject that remembers its last values and replays them to each new subscriber; the engine
/// of `share(replay:)`.
///
/// Everything here is inlinable, so that client code specializes it for its types: a value goes
/// to each subscriber through closures made where the subscriber's type is known, never through
/// a generic class's method table, whose entries run unspecialized code.
@usableFromInline
final class ReplaySubject<Output, Failure: Error>: Subject, @unchecked Sendable {
  @usableFromInline
  struct State {
    @usableFromInline
    var recent: [Output] = []
    @usableFromInline
    var completion: Subscribers.Completion<Failure>?
    @usableFromInline
    var members: [ReplayMember<Output, Failure>] = []
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
    let members = state.withLock { state -> [ReplayMember<Output, Failure>] in
      guard state.completion == nil else { return [] }
      state.recent.append(value)
      if state.recent.count > bufferSize { state.recent.removeFirst(state.recent.count - bufferSize) }
      return state.members
    }
    for member in members { member.enqueue(value) }
  }

  @inlinable
  func send(completion: Subscribers.Completion<Failure>) {
    let members = state.withLock { state -> [ReplayMember<Output, Failure>] in
      guard state.completion == nil else { return [] }
      state.completion = completion
      state.upstreams = []
      defer { state.members = [] }
      return state.members
    }
    for member in members { member.finish(completion) }
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
      if state.completion == nil { state.members.append(member) }
      return (state.recent, state.completion)
    }
    conduit.start(replaying: recent, then: completion)
  }

  @inlinable
  func remove(_ conduit: AnyObject) {
    state.withLock { state in
      state.members.removeAll { $0.conduit === conduit }
    }
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
  @unchecked Sendable
{
  @usableFromInline
  typealias Output = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  enum Step {
    case value(Downstream, Output)
    case completion(Downstream, Subscribers.Completion<Failure>)
    case idle
  }

  /// What a live value leads to.
  @usableFromInline
  enum Arrival {
    /// It goes straight down: nothing waits, the subscriber has demand, and this thread now
    /// delivers.
    case deliver(Downstream, Output)
    /// It waits in the queue, and this thread now delivers.
    case drain
    /// It waits in the queue (or the subscriber is gone), for the thread that delivers.
    case nothing
  }

  @usableFromInline
  struct State {
    @usableFromInline
    var parent: ReplaySubject<Output, Failure>?
    @usableFromInline
    var downstream: Downstream?
    @usableFromInline
    var queue: [Output] = []
    @usableFromInline
    var completion: Subscribers.Completion<Failure>?
    @usableFromInline
    var demand = Subscribers.Demand.none
    /// Whether a thread is delivering; others only enqueue and leave it to that thread.
    @usableFromInline
    var delivering = true
    /// Whether the replay has been set up; until then the subscriber could not ask for anything,
    /// so no value waiting for it is dropped.
    @usableFromInline
    var started = false

    @inlinable
    init(parent: ReplaySubject<Output, Failure>, downstream: Downstream) {
      self.parent = parent
      self.downstream = downstream
    }
  }

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
  @usableFromInline
  let census: CensusToken
  // Immutable: the most values that wait here, the subject's buffer size.
  @usableFromInline
  let capacity: Int

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
    let downstream = state.withLock { state -> Downstream? in
      state.queue = recent + state.queue
      state.started = true
      if state.completion == nil { state.completion = completion }
      if state.completion != nil { state.parent = nil }
      return state.downstream
    }
    downstream?.receive(subscription: self)
    drain(adding: .none)
  }

  /// Takes a live value. When nothing waits and the subscriber has demand, the value goes
  /// straight down without being queued.
  @inlinable
  func enqueue(_ value: Output) {
    let arrival = state.withLock { state -> Arrival in
      guard let downstream = state.downstream else { return .nothing }
      if !state.delivering, state.queue.isEmpty, state.demand > 0 {
        state.delivering = true
        if state.demand != .unlimited { state.demand -= 1 }
        return .deliver(downstream, value)
      }
      state.queue.append(value)
      // Only a subscriber with no demand drops the oldest; values that demand covers are merely
      // waiting for the thread that delivers.
      if state.started, state.demand == .none, state.queue.count > capacity {
        state.queue.removeFirst(state.queue.count - capacity)
      }
      return takeDelivery(&state) ? .drain : .nothing
    }
    switch arrival {
    case .deliver(let downstream, let value):
      drain(adding: downstream.receive(value))
    case .drain:
      drain(adding: .none)
    case .nothing:
      return
    }
  }

  @inlinable
  func finish(_ completion: Subscribers.Completion<Failure>) {
    let owns = state.withLock { state -> Bool in
      guard state.downstream != nil, state.completion == nil else { return false }
      state.completion = completion
      state.parent = nil
      return takeDelivery(&state)
    }
    if owns { drain(adding: .none) }
  }

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let owns = state.withLock { state -> Bool in
      guard state.downstream != nil else { return false }
      state.demand += demand
      return takeDelivery(&state)
    }
    if owns { drain(adding: .none) }
  }

  @inlinable
  func cancel() {
    let parent = state.withLock { state -> ReplaySubject<Output, Failure>? in
      defer {
        state.parent = nil
        state.downstream = nil
        state.queue = []
      }
      return state.parent
    }
    parent?.remove(self)
  }

  @inlinable
  func takeDelivery(_ state: inout State) -> Bool {
    guard !state.delivering else { return false }
    state.delivering = true
    return true
  }

  /// Adds the demand the last delivered value returned, then delivers while there is something
  /// deliverable, one value per lock round trip; runs only on the thread that owns delivery, and
  /// hands ownership back when nothing is left.
  @inlinable
  func drain(adding more: Subscribers.Demand) {
    var more = more
    while true {
      let step = state.withLock { state -> Step in
        if more > 0, state.downstream != nil { state.demand += more }
        guard let downstream = state.downstream else {
          state.delivering = false
          return .idle
        }
        if !state.queue.isEmpty && state.demand > 0 {
          if state.demand != .unlimited { state.demand -= 1 }
          return .value(downstream, state.queue.removeFirst())
        }
        if state.queue.isEmpty, let completion = state.completion {
          state.downstream = nil
          state.parent = nil
          return .completion(downstream, completion)
        }
        state.delivering = false
        return .idle
      }
      switch step {
      case .value(let downstream, let value):
        more = downstream.receive(value)
      case .completion(let downstream, let completion):
        downstream.receive(completion: completion)
        return
      case .idle:
        return
      }
    }
  }
}

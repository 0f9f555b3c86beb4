/// A subject that remembers its last values and replays them to each new subscriber; the engine
/// of `share(replay:)`.
final class ReplaySubject<Output, Failure: Error>: Subject, @unchecked Sendable {
  private struct State {
    var recent: [Output] = []
    var completion: Subscribers.Completion<Failure>?
    var conduits: [ReplayConduit<Output, Failure>] = []
    var upstreams: [any Subscription] = []
  }

  // Guarded by its own lock.
  private let state = Locked(State())
  let bufferSize: Int

  init(bufferSize: Int) {
    self.bufferSize = bufferSize
  }

  deinit {
    let upstreams = state.withLock { $0.upstreams }
    for upstream in upstreams { upstream.cancel() }
  }

  func send(_ value: Output) {
    let conduits = state.withLock { state -> [ReplayConduit<Output, Failure>] in
      guard state.completion == nil else { return [] }
      state.recent.append(value)
      if state.recent.count > bufferSize { state.recent.removeFirst(state.recent.count - bufferSize) }
      return state.conduits
    }
    for conduit in conduits { conduit.enqueue(value) }
  }

  func send(completion: Subscribers.Completion<Failure>) {
    let conduits = state.withLock { state -> [ReplayConduit<Output, Failure>] in
      guard state.completion == nil else { return [] }
      state.completion = completion
      state.upstreams = []
      defer { state.conduits = [] }
      return state.conduits
    }
    for conduit in conduits { conduit.finish(completion) }
  }

  func send(subscription: any Subscription) {
    state.withLock { $0.upstreams.append(subscription) }
    subscription.request(.unlimited)
  }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let conduit = ReplayConduitFor(parent: self, downstream: subscriber)
    // Join and take the replay in one step, so no value is both replayed and sent live.
    let (recent, completion) = state.withLock { state in
      if state.completion == nil { state.conduits.append(conduit) }
      return (state.recent, state.completion)
    }
    conduit.start(replaying: recent, then: completion)
  }

  fileprivate func remove(_ conduit: ReplayConduit<Output, Failure>) {
    state.withLock { state in
      state.conduits.removeAll { $0 === conduit }
    }
  }
}

/// What the replay subject calls on each subscriber.
private class ReplayConduit<Output, Failure: Error>: @unchecked Sendable {
  func enqueue(_ value: Output) {}
  func finish(_ completion: Subscribers.Completion<Failure>) {}
}

/// One subscriber of a replay subject: a queue of undelivered values (at most the buffer size),
/// delivered as demand allows, by one thread at a time.
private final class ReplayConduitFor<Downstream: Subscriber>: ReplayConduit<Downstream.Input, Downstream.Failure>,
  Subscription, CustomStringConvertible, CensusScoped, @unchecked Sendable
{
  typealias Output = Downstream.Input
  typealias Failure = Downstream.Failure

  private enum Step {
    case value(Downstream, Output)
    case completion(Downstream, Subscribers.Completion<Failure>)
    case idle
  }

  private struct State {
    var parent: ReplaySubject<Output, Failure>?
    var downstream: Downstream?
    var queue: [Output] = []
    var completion: Subscribers.Completion<Failure>?
    var demand = Subscribers.Demand.none
    /// Whether a thread is delivering; others only enqueue and leave it to that thread.
    var delivering = true
    /// Whether the replay has been set up; until then the subscriber could not ask for anything,
    /// so no value waiting for it is dropped.
    var started = false
  }

  // Guarded by its own lock.
  private let state: Locked<State>
  private let census: CensusToken
  // Immutable: the most values that wait here, the subject's buffer size.
  private let capacity: Int

  var description: String { "ShareReplay" }
  var censusScope: CensusScope? { census.scope }

  init(parent: ReplaySubject<Output, Failure>, downstream: Downstream) {
    census = CensusToken(ReplayConduitFor.self, inheritingFrom: downstream)
    state = Locked(State(parent: parent, downstream: downstream))
    capacity = parent.bufferSize
  }

  /// Sends the subscription, then whatever the subscriber's demand allows of the replay.
  ///
  /// The subscriber joined the subject before this runs, so a value or the completion sent
  /// meanwhile on another thread may already wait here: it came after the replay, and goes after
  /// it.
  func start(replaying recent: [Output], then completion: Subscribers.Completion<Failure>?) {
    let downstream = state.withLock { state -> Downstream? in
      state.queue = recent + state.queue
      state.started = true
      if state.completion == nil { state.completion = completion }
      if state.completion != nil { state.parent = nil }
      return state.downstream
    }
    downstream?.receive(subscription: self)
    drain()
  }

  override func enqueue(_ value: Output) {
    let owns = state.withLock { state -> Bool in
      guard state.downstream != nil else { return false }
      state.queue.append(value)
      // Only a subscriber with no demand drops the oldest; values that demand covers are merely
      // waiting for the thread that delivers.
      if state.started, state.demand == .none, state.queue.count > capacity {
        state.queue.removeFirst(state.queue.count - capacity)
      }
      return takeDelivery(&state)
    }
    if owns { drain() }
  }

  override func finish(_ completion: Subscribers.Completion<Failure>) {
    let owns = state.withLock { state -> Bool in
      guard state.downstream != nil, state.completion == nil else { return false }
      state.completion = completion
      state.parent = nil
      return takeDelivery(&state)
    }
    if owns { drain() }
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let owns = state.withLock { state -> Bool in
      guard state.downstream != nil else { return false }
      state.demand += demand
      return takeDelivery(&state)
    }
    if owns { drain() }
  }

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

  private func takeDelivery(_ state: inout State) -> Bool {
    guard !state.delivering else { return false }
    state.delivering = true
    return true
  }

  /// Delivers while there is something deliverable, one value per lock round trip; runs only on
  /// the thread that owns delivery, and hands ownership back when nothing is left.
  private func drain() {
    while true {
      let step = state.withLock { state -> Step in
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
        let more = downstream.receive(value)
        if more > 0 { state.withLock { $0.demand += more } }
      case .completion(let downstream, let completion):
        downstream.receive(completion: completion)
        return
      case .idle:
        return
      }
    }
  }
}

import Synchronization

/// Delivers the elements of a sequence on demand, then a completion.
///
/// Shared by `Publishers.Sequence` and `Record`. Delivery is trampolined: a `request` made from
/// inside `receive(_:)` only adds demand, and the loop already running picks it up, so a
/// subscriber that asks for one element at a time never grows the stack. While demand is
/// unlimited the loop takes no lock per element; it checks an atomic flag for cancellation.
final class SequenceSubscription<Elements: Sequence, Downstream: Subscriber>: Subscription,
  CustomStringConvertible, CensusScoped, @unchecked Sendable
where Downstream.Input == Elements.Element {
  private struct State {
    var demand = Subscribers.Demand.none
    /// Whether some thread owns the delivery loop (and with it `iterator` and `downstream`).
    var delivering = false
    var terminated = false
  }

  // Guarded by `state`.
  private let state = Locked(State())
  // Set once by `cancel`, read without the lock by the delivery loop.
  private let cancelled = Atomic<Bool>(false)
  // Owned by whichever thread set `delivering`; released when the subscription ends.
  private var downstream: Downstream?
  // Owned like `downstream`.
  private var iterator: Elements.Iterator
  // Owned like `downstream`: the element after the one just delivered, read ahead so the
  // completion follows the last element without waiting for more demand.
  private var upcoming: Elements.Element?
  // Immutable.
  private let completion: Subscribers.Completion<Downstream.Failure>
  private let census: CensusToken
  let description: String

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  /// Subscribes `downstream` to the elements of `sequence` followed by `completion`. An empty
  /// sequence completes at once, with `Subscriptions.empty`.
  static func start(
    _ sequence: Elements, then completion: Subscribers.Completion<Downstream.Failure>,
    downstream: Downstream, description: String
  ) {
    var iterator = sequence.makeIterator()
    guard let first = iterator.next() else {
      downstream.receive(subscription: Subscriptions.empty)
      downstream.receive(completion: completion)
      return
    }
    let subscription = SequenceSubscription(
      iterator: iterator, first: first, completion: completion, downstream: downstream,
      description: description)
    downstream.receive(subscription: subscription)
  }

  private init(
    iterator: Elements.Iterator, first: Elements.Element,
    completion: Subscribers.Completion<Downstream.Failure>, downstream: Downstream, description: String
  ) {
    census = CensusToken(SequenceSubscription.self, inheritingFrom: downstream)
    self.iterator = iterator
    self.upcoming = first
    self.completion = completion
    self.downstream = downstream
    self.description = description
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let owns = state.withLock { state -> Bool in
      guard !state.terminated else { return false }
      state.demand += demand
      guard !state.delivering else { return false }
      state.delivering = true
      return true
    }
    if owns { deliver() }
  }

  func cancel() {
    guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
    let owns = state.withLock { state -> Bool in
      state.terminated = true
      guard !state.delivering else { return false }
      state.delivering = true
      return true
    }
    // The delivery loop, if one is running, sees the flag and releases everything itself.
    if owns { release() }
  }

  /// Runs while this thread owns delivery. Takes the demand granted so far, delivers it, and
  /// goes back for more until the demand is spent, the sequence ends or the subscriber cancels.
  private func deliver() {
    var demand = state.withLock { state in
      defer { state.demand = .none }
      return state.demand
    }
    while true {
      while demand > 0 {
        guard !cancelled.load(ordering: .relaxed), let downstream, let element = upcoming else {
          release()
          return
        }
        if demand != .unlimited { demand -= 1 }
        upcoming = iterator.next()
        let more = downstream.receive(element)
        if more > 0 { demand += more }
        if upcoming == nil {
          finish()
          return
        }
      }
      let granted = state.withLock { state -> Subscribers.Demand in
        if state.terminated || state.demand == .none {
          if !state.terminated { state.delivering = false }
          return state.terminated ? .unlimited : .none
        }
        defer { state.demand = .none }
        return state.demand
      }
      if granted == .none { return }
      demand = granted
    }
  }

  private func finish() {
    let shouldComplete = state.withLock { state -> Bool in
      defer { state.terminated = true }
      return !state.terminated
    }
    let downstream = self.downstream
    release()
    if shouldComplete && !cancelled.load(ordering: .relaxed) {
      downstream?.receive(completion: completion)
    }
  }

  private func release() {
    downstream = nil
    upcoming = nil
  }
}

import Synchronization

// Reduction: the engine of the operators that deliver at most one value at the end (`reduce`,
// `count`, `collect()`, `min`, `max`, `first`, `last`, `contains`, `allSatisfy` and their `try`
// forms). One file: the subscription and its reducer protocol.

/// The engine behind the aggregating operators: `reduce`, `count`, `collect()`, `min`, `max`,
/// `contains`, `allSatisfy`, `first`, `last` and their `try` forms.
///
/// It is upstream's subscriber and downstream's subscription. As soon as it is subscribed it
/// asks upstream for everything, as Combine does, and folds each value into an accumulator with
/// the operator's `step`. The result goes downstream only once downstream has asked for
/// something: a result ready before any demand is held until the first request, and so is the
/// bare `.finished` of an empty result (`first` of nothing), as in Combine. A step may decide
/// early (`contains` found its element, `first` its value): upstream is then cancelled at once
/// and the result delivered as if upstream had finished. A failure from upstream, or an error
/// thrown by a `try` step, goes downstream at once, without demand; a thrown error also cancels
/// upstream.
///
/// As in Combine, what arrives before upstream's subscription is ignored: a value (the step is
/// not called), a completion, and a cancel, after which the subscription that arrives later is
/// taken as if nothing had happened. A request made before it counts as demand.
///
/// Threads: upstream's calls are serialized, so the accumulator belongs to them and takes no
/// lock. What downstream can reach (its demand, cancellation, a held result) lives in `state`,
/// under its lock; whoever moves `state` to `.terminal` owns `downstream` from then on and is
/// the only one to call it, so calls into downstream never overlap. For the same reason the
/// mirror shows the result only once upstream is done: while folding, the accumulator belongs
/// to upstream's thread.
final class Reduction<Downstream: Subscriber, Input, UpstreamFailure: Error, Accumulator>: Subscriber,
  Subscription, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible, CensusScoped
{
  typealias Failure = UpstreamFailure
  typealias Output = Downstream.Input

  enum State {
    /// `demanded` once downstream has asked for anything.
    case awaitingSubscription(demanded: Bool)
    /// Folding.
    case active(upstream: any Subscription, demanded: Bool)
    /// Upstream is done and the result (`nil` for none) waits for downstream's first request.
    case holding(Output?)
    case terminal
  }

  /// The shape of `customMirror`, as Combine gives it for the operator.
  enum Reflection {
    /// `downstream`, `result`, `initial` and `status`, as most of the operators have.
    case reduction
    /// Only `count`, the number of elements collected, as `collect()` has.
    case collection
  }

  /// The running accumulator with the step that folds values into it.
  struct Fold {
    var accumulator: Accumulator
    let step: (inout Accumulator, Input) throws(Downstream.Failure) -> Bool

    init(
      accumulator: Accumulator, step: @escaping (inout Accumulator, Input) throws(Downstream.Failure) -> Bool
    ) {
      self.accumulator = accumulator
      self.step = step
    }

    /// Folds one value in; `true` when the result is decided and upstream is no longer needed.
    mutating func absorb(_ input: Input) throws(Downstream.Failure) -> Bool {
      try step(&accumulator, input)
    }
  }

  // Guarded by its own lock.
  let state = Locked(State.awaitingSubscription(demanded: false))
  // Set by `cancel`; read without the lock by upstream's calls and after delivering the result.
  let cancelled = Atomic<Bool>(false)
  // Owned by upstream's serialized calls, which release it once the fold is over.
  var fold: Fold?
  // Owned like `fold`: set once upstream's subscription is accepted, cleared once upstream's part
  // is over (finished, failed or decided early). Values and completions count only while set.
  var folding = false
  // Owned by whoever moves `state` to `.terminal`, who releases it; before that, touched only by
  // `receive(subscription:)`, which runs before downstream can reach this object.
  var downstream: Downstream?
  /// Turns the final accumulator into the value to publish, `nil` for none.
  let result: (Accumulator) -> Output?
  /// Turns an upstream failure into downstream's failure type (identity, or erasure for `try`).
  let convertFailure: (UpstreamFailure) -> Downstream.Failure
  let census: CensusToken
  let description: String
  /// The accumulator before any value, for the mirror.
  let initial: Accumulator
  let reflection: Reflection

  var censusScope: CensusScope? { census.scope }

  /// - Parameters:
  ///   - initial: the accumulator before any value.
  ///   - step: folds one value in; returns `true` when the result is decided early.
  ///   - result: the value to publish from the final accumulator, `nil` for none.
  ///   - convertFailure: maps upstream's failure to downstream's.
  ///   - reflection: the shape of the mirror.
  init(
    downstream: Downstream, description: String, initial: Accumulator,
    step: @escaping (inout Accumulator, Input) throws(Downstream.Failure) -> Bool,
    result: @escaping (Accumulator) -> Output?,
    convertFailure: @escaping (UpstreamFailure) -> Downstream.Failure,
    reflection: Reflection = .reduction
  ) {
    census = CensusToken(Reduction.self, inheritingFrom: downstream)
    self.downstream = downstream
    self.description = description
    self.initial = initial
    self.reflection = reflection
    fold = Fold(accumulator: initial, step: step)
    self.result = result
    self.convertFailure = convertFailure
  }

  // MARK: Subscriber (upstream's serialized calls)

  func receive(subscription: any Subscription) {
    let accepted = state.withLock { state -> Bool in
      guard case .awaitingSubscription(let demanded) = state else { return false }
      state = .active(upstream: subscription, demanded: demanded)
      return true
    }
    guard accepted, let downstream else {
      subscription.cancel()
      return
    }
    folding = true
    downstream.receive(subscription: self)
    // Downstream may have cancelled from inside `receive(subscription:)`.
    let active = state.withLock { state -> Bool in
      if case .active = state { return true }
      return false
    }
    if active { subscription.request(.unlimited) }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    guard folding else { return .none }
    if cancelled.load(ordering: .relaxed) {
      endFold()
      return .none
    }
    do throws(Downstream.Failure) {
      if try fold?.absorb(input) == true {
        conclude(cancellingUpstream: true)
      }
    } catch {
      fail(error, cancellingUpstream: true)
    }
    return .none
  }

  func receive(completion: Subscribers.Completion<UpstreamFailure>) {
    guard folding else { return }
    switch completion {
    case .finished: conclude(cancellingUpstream: false)
    case .failure(let error): fail(convertFailure(error), cancellingUpstream: false)
    }
  }

  /// Upstream's part is over: the fold and the user closure it holds are released.
  func endFold() {
    folding = false
    fold = nil
  }

  /// The result is known: delivers it now if downstream has asked, otherwise holds it (or the
  /// bare completion, when there is no value) for the first request.
  func conclude(cancellingUpstream: Bool) {
    let value = fold.flatMap { result($0.accumulator) }
    endFold()
    let (upstream, deliverNow) = state.withLock { state -> ((any Subscription)?, Bool) in
      guard case .active(let upstream, let demanded) = state else { return (nil, false) }
      if !demanded {
        state = .holding(value)
        return (upstream, false)
      }
      state = .terminal
      return (upstream, true)
    }
    if cancellingUpstream { upstream?.cancel() }
    if deliverNow { deliver(value) }
  }

  func fail(_ error: Downstream.Failure, cancellingUpstream: Bool) {
    endFold()
    let (upstream, failNow) = state.withLock { state -> ((any Subscription)?, Bool) in
      guard case .active(let upstream, _) = state else { return (nil, false) }
      state = .terminal
      return (upstream, true)
    }
    guard failNow else { return }
    if cancellingUpstream { upstream?.cancel() }
    let downstream = self.downstream
    self.downstream = nil
    downstream?.receive(completion: .failure(error))
  }

  /// Sends the result, if any, then `.finished`. Called by whoever moved `state` to `.terminal`.
  func deliver(_ value: Output?) {
    guard let downstream else { return }
    self.downstream = nil
    if let value {
      _ = downstream.receive(value)
      // Downstream may have cancelled from inside `receive(_:)`: then it hears nothing more.
      if cancelled.load(ordering: .acquiring) { return }
    }
    downstream.receive(completion: .finished)
  }

  // MARK: Subscription (downstream's calls, from any thread)

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let held = state.withLock { state -> Output?? in
      switch state {
      case .awaitingSubscription:
        state = .awaitingSubscription(demanded: true)
        return nil
      case .active(let upstream, _):
        state = .active(upstream: upstream, demanded: true)
        return nil
      case .holding(let value):
        state = .terminal
        return .some(value)
      case .terminal:
        return nil
      }
    }
    if let held { deliver(held) }
  }

  func cancel() {
    // A result held for want of demand leaves after the lock: its deinit may cancel this
    // subscription.
    var held = State.terminal
    let (upstream, owned) = state.withLock { state -> ((any Subscription)?, Bool) in
      // Before upstream's subscription, a cancel changes nothing, as in Combine: the
      // subscription that arrives later is taken and asked for everything.
      if case .awaitingSubscription = state { return (nil, false) }
      // Also when already terminal: it tells the delivery in progress to stop.
      cancelled.store(true, ordering: .releasing)
      switch state {
      case .active(let upstream, _):
        state = .terminal
        return (upstream, true)
      case .holding:
        swap(&state, &held)
        return (nil, true)
      case .awaitingSubscription, .terminal:
        return (nil, false)
      }
    }
    guard owned else { return }
    downstream = nil
    upstream?.cancel()
  }

  // MARK: Reflection (from any thread)

  var customMirror: Mirror {
    // `downstream` is released only after `state` has become `.terminal`, so it is read under
    // the lock while `state` says it is still there.
    let (reached, held, status) = state.withLock { state -> (Downstream?, Output?, State) in
      switch state {
      case .holding(let value): return (downstream, value, state)
      case .awaitingSubscription, .active: return (downstream, nil, state)
      case .terminal: return (nil, nil, state)
      }
    }
    switch reflection {
    case .reduction:
      let children: [Mirror.Child] = [
        ("downstream", reached.map { $0 as Any } ?? reached as Any), ("result", held as Any),
        ("initial", initial), ("status", status),
      ]
      return Mirror(self, children: children)
    case .collection:
      let count = held.flatMap { ($0 as Any) as? any Collection }?.count ?? 0
      return Mirror(self, children: [("count", count)])
    }
  }

  var playgroundDescription: Any { description }
}

import Synchronization

/// The engine behind the aggregating operators: `reduce`, `count`, `collect()`, `min`, `max`,
/// `contains`, `allSatisfy`, `ignoreOutput`, `first`, `last` and their `try` forms.
///
/// It is upstream's subscriber and downstream's subscription. As soon as it is subscribed it
/// asks upstream for everything, as Combine does, and folds each value into an accumulator with
/// the operator's `step`. The single result goes downstream only once downstream has asked for
/// something: a result ready before any demand is held until the first request. A step may
/// decide early (`contains` found its element, `first` its value): upstream is then cancelled
/// at once and the result delivered as if upstream had finished. A failure from upstream, or an
/// error thrown by a `try` step, goes downstream at once, without demand; a thrown error also
/// cancels upstream. A result that is empty (`first` of nothing, `ignoreOutput`) needs no
/// demand either: the completion goes at once.
///
/// Threads: upstream's calls are serialized, so the accumulator belongs to them and takes no
/// lock. What downstream can reach (its demand, cancellation, a held result) lives in `state`,
/// under its lock; whoever moves `state` to `.terminal` owns `downstream` from then on and is
/// the only one to call it, so calls into downstream never overlap.
@usableFromInline
final class Reduction<Downstream: Subscriber, Input, UpstreamFailure: Error, Accumulator>: Subscriber,
  SubscriptionRequestHandler, Subscription, CustomStringConvertible, CensusScoped, @unchecked Sendable
{
  @usableFromInline
  typealias Failure = UpstreamFailure
  @usableFromInline
  typealias Output = Downstream.Input

  @usableFromInline
  enum State {
    case awaitingSubscription
    /// Folding; `demanded` once downstream has asked for anything.
    case active(upstream: any Subscription, demanded: Bool)
    /// Upstream is done and the result waits for downstream's first request.
    case holding(Output)
    case terminal
  }

  /// The running accumulator with the step that folds values into it.
  @usableFromInline
  struct Fold {
    @usableFromInline
    var accumulator: Accumulator
    @usableFromInline
    let step: (inout Accumulator, Input) throws(Downstream.Failure) -> Bool

    @inlinable
    init(
      accumulator: Accumulator, step: @escaping (inout Accumulator, Input) throws(Downstream.Failure) -> Bool
    ) {
      self.accumulator = accumulator
      self.step = step
    }

    /// Folds one value in; `true` when the result is decided and upstream is no longer needed.
    @inlinable
    mutating func absorb(_ input: Input) throws(Downstream.Failure) -> Bool {
      try step(&accumulator, input)
    }
  }

  // Guarded by its own lock.
  @usableFromInline
  let state = Locked(State.awaitingSubscription)
  // Set by `cancel`; read without the lock by upstream's calls and after delivering the result.
  @usableFromInline
  let cancelled = Atomic<Bool>(false)
  // Owned by upstream's serialized calls (released by them once the fold is over), so the
  // runtime exclusivity check is skipped.
  @usableFromInline @exclusivity(unchecked)
  var fold: Fold?
  // Owned like `fold`: set once upstream's part is over (finished, failed or decided early).
  @usableFromInline @exclusivity(unchecked)
  var ended = false
  // Owned by whoever moves `state` to `.terminal`, who releases it; before that, touched only by
  // `receive(subscription:)`, which runs before downstream can reach this object.
  @usableFromInline @exclusivity(unchecked)
  var downstream: Downstream?
  /// Turns the final accumulator into the value to publish, `nil` for none.
  @usableFromInline
  let result: (Accumulator) -> Output?
  /// Turns an upstream failure into downstream's failure type (identity, or erasure for `try`).
  @usableFromInline
  let convertFailure: (UpstreamFailure) -> Downstream.Failure
  @usableFromInline
  let census: CensusToken
  // Specialized `request` and `cancel`; see `SubscriptionRequest`.
  @usableFromInline
  let handle: (Reduction, SubscriptionRequest) -> Void
  @usableFromInline
  let description: String

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  /// - Parameters:
  ///   - initial: the accumulator before any value.
  ///   - step: folds one value in; returns `true` when the result is decided early.
  ///   - result: the value to publish from the final accumulator, `nil` for none.
  ///   - convertFailure: maps upstream's failure to downstream's.
  @inlinable
  init(
    downstream: Downstream, description: String, initial: Accumulator,
    step: @escaping (inout Accumulator, Input) throws(Downstream.Failure) -> Bool,
    result: @escaping (Accumulator) -> Output?,
    convertFailure: @escaping (UpstreamFailure) -> Downstream.Failure
  ) {
    census = CensusToken(Reduction.self, inheritingFrom: downstream)
    self.downstream = downstream
    self.description = description
    fold = Fold(accumulator: initial, step: step)
    self.result = result
    self.convertFailure = convertFailure
    handle = SubscriptionRequest.dispatcher()
  }

  // MARK: Subscriber (upstream's serialized calls)

  @inlinable
  func receive(subscription: any Subscription) {
    let accepted = state.withLock { state -> Bool in
      guard case .awaitingSubscription = state else { return false }
      state = .active(upstream: subscription, demanded: false)
      return true
    }
    guard accepted, let downstream else {
      subscription.cancel()
      return
    }
    downstream.receive(subscription: self)
    // Downstream may have cancelled from inside `receive(subscription:)`.
    let active = state.withLock { state -> Bool in
      if case .active = state { return true }
      return false
    }
    if active { subscription.request(.unlimited) }
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    guard !ended else { return .none }
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

  @inlinable
  func receive(completion: Subscribers.Completion<UpstreamFailure>) {
    guard !ended else { return }
    switch completion {
    case .finished: conclude(cancellingUpstream: false)
    case .failure(let error): fail(convertFailure(error), cancellingUpstream: false)
    }
  }

  /// Upstream's part is over: the fold and the user closure it holds are released.
  @inlinable
  func endFold() {
    ended = true
    fold = nil
  }

  /// The result is known: delivers it now if downstream has asked (or there is nothing to
  /// deliver), otherwise holds it for the first request.
  @inlinable
  func conclude(cancellingUpstream: Bool) {
    let value = fold.flatMap { result($0.accumulator) }
    endFold()
    let (upstream, deliverNow) = state.withLock { state -> ((any Subscription)?, Bool) in
      guard case .active(let upstream, let demanded) = state else { return (nil, false) }
      if let value, !demanded {
        state = .holding(value)
        return (upstream, false)
      }
      state = .terminal
      return (upstream, true)
    }
    if cancellingUpstream { upstream?.cancel() }
    if deliverNow { deliver(value) }
  }

  @inlinable
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
  @inlinable
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
    let held = state.withLock { state -> Output? in
      switch state {
      case .active(let upstream, _):
        state = .active(upstream: upstream, demanded: true)
        return nil
      case .holding(let value):
        state = .terminal
        return value
      case .awaitingSubscription, .terminal:
        return nil
      }
    }
    if let held { deliver(held) }
  }

  @inlinable
  func handleCancel() {
    cancelled.store(true, ordering: .releasing)
    // A result held for want of demand leaves after the lock: its deinit may cancel this
    // subscription.
    var held = State.terminal
    let (upstream, owned) = state.withLock { state -> ((any Subscription)?, Bool) in
      switch state {
      case .active(let upstream, _):
        state = .terminal
        return (upstream, true)
      case .holding, .awaitingSubscription:
        swap(&state, &held)
        return (nil, true)
      case .terminal:
        return (nil, false)
      }
    }
    guard owned else { return }
    downstream = nil
    upstream?.cancel()
  }
}

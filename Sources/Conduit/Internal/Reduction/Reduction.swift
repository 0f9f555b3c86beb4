// Reduction: the engine of the operators that deliver at most one value at the end (`reduce`,
// `count`, `collect()`, `min`, `max`, `first`, `last`, `contains`, `allSatisfy` and their `try`
// forms). One file: the subscription and its state machine.

/// The decisions of a `Reduction`: where the subscription stands, with the downstream and the
/// upstream in the states that have them. The fold itself (the accumulator and the operator's
/// step) is not here: it belongs to the upstream's calls, and the step, a user closure, runs
/// outside the lock.
///
/// Whoever takes the downstream out of the state is the only one to call it, so calls into the
/// downstream never overlap.
struct ReductionStateMachine<Output, Downstream> {
  enum State {
    /// `demanded` once the downstream has asked for anything.
    case awaitingSubscription(Downstream, demanded: Bool)
    case folding(upstream: any Subscription, downstream: Downstream, demanded: Bool)
    /// The upstream is done and the result (`nil` for none) waits for the downstream's first
    /// request.
    case holding(Output?, downstream: Downstream)
    /// The result is going down; the finish follows unless the downstream cancels meanwhile.
    case delivering
    case terminal
  }

  enum SubscriptionAction {
    /// A second subscription, or one after the end.
    case cancel(any Subscription)
    /// Give the downstream its subscription, then ask `subscriptionHandedDown()` whether the
    /// upstream is to be asked for everything.
    case handDown(to: Downstream)
  }

  enum EndAction {
    case none
    /// Cancel the upstream, if any (a step that decided early, a thrown error).
    case cancel(upstream: (any Subscription)?)
    /// Cancel the upstream, if any, then send the result (`nil` for none) and `.finished`.
    case deliver(Output?, to: Downstream, cancelling: (any Subscription)?)
  }

  enum FailAction {
    case none
    /// Cancel the upstream, if any, then send the failure.
    case fail(Downstream, cancelling: (any Subscription)?)
  }

  enum RequestAction {
    case none
    /// A result waited for this request: send it (`nil` for none) and `.finished`.
    case deliver(Output?, to: Downstream)
  }

  enum CancelAction {
    case none
    /// Cancel the upstream, if any; `released` (the downstream, a result held) is let go of
    /// after the lock, as its deinits may call back.
    case cancel(upstream: (any Subscription)?, released: State)
  }

  var state: State

  init(downstream: Downstream) {
    state = .awaitingSubscription(downstream, demanded: false)
  }

  /// Whether the upstream's values are folded: only between its subscription and the end.
  var isFolding: Bool {
    if case .folding = state { true } else { false }
  }

  mutating func receiveSubscription(_ subscription: any Subscription) -> SubscriptionAction {
    guard case .awaitingSubscription(let downstream, let demanded) = state else { return .cancel(subscription) }
    state = .folding(upstream: subscription, downstream: downstream, demanded: demanded)
    return .handDown(to: downstream)
  }

  /// The upstream to ask for everything, unless the downstream cancelled from inside
  /// `receive(subscription:)`.
  func subscriptionHandedDown() -> (any Subscription)? {
    guard case .folding(let upstream, _, _) = state else { return nil }
    return upstream
  }

  /// The result is known (`decidedEarly`: a step decided before the upstream finished, which is
  /// then cancelled). It goes down now if the downstream has asked, or waits for its request.
  mutating func conclude(_ value: Output?, decidedEarly: Bool) -> EndAction {
    guard case .folding(let upstream, let downstream, let demanded) = state else { return .none }
    let cancelling = decidedEarly ? upstream : nil
    guard demanded else {
      state = .holding(value, downstream: downstream)
      return .cancel(upstream: cancelling)
    }
    state = value == nil ? .terminal : .delivering
    return .deliver(value, to: downstream, cancelling: cancelling)
  }

  /// The upstream failed, or a step threw (`fromStep`: the upstream is then cancelled). The
  /// failure goes down at once, without demand.
  mutating func fail(fromStep: Bool) -> FailAction {
    guard case .folding(let upstream, let downstream, _) = state else { return .none }
    state = .terminal
    return .fail(downstream, cancelling: fromStep ? upstream : nil)
  }

  /// The result has gone down: whether the finish follows (the downstream did not cancel
  /// meanwhile).
  mutating func resultDelivered() -> Bool {
    guard case .delivering = state else { return false }
    state = .terminal
    return true
  }

  mutating func request() -> RequestAction {
    switch state {
    case .awaitingSubscription(let downstream, _):
      state = .awaitingSubscription(downstream, demanded: true)
    case .folding(let upstream, let downstream, _):
      state = .folding(upstream: upstream, downstream: downstream, demanded: true)
    case .holding(let value, let downstream):
      state = value == nil ? .terminal : .delivering
      return .deliver(value, to: downstream)
    case .delivering, .terminal:
      break
    }
    return .none
  }

  mutating func cancel() -> CancelAction {
    switch state {
    // Before the upstream's subscription, a cancel changes nothing, as in Combine: the
    // subscription that arrives later is taken and asked for everything.
    case .awaitingSubscription, .terminal:
      return .none
    case .folding(let upstream, _, _):
      return .cancel(upstream: upstream, released: replace(&state, with: .terminal))
    case .holding, .delivering:
      return .cancel(upstream: nil, released: replace(&state, with: .terminal))
    }
  }
}

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
/// Its decisions are a `ReductionStateMachine`'s, under one lock. The fold belongs to the
/// upstream's serialized calls and takes no lock; each value asks the machine, under the lock,
/// whether folding goes on (no workload measures the reducers).
final class Reduction<Downstream: Subscriber, Input, UpstreamFailure: Error, Accumulator>: Subscriber,
  Subscription, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible, CensusScoped
{
  typealias Failure = UpstreamFailure
  typealias Output = Downstream.Input
  typealias Machine = ReductionStateMachine<Output, Downstream>
  typealias Step = (inout Accumulator, Input) throws(Downstream.Failure) -> Bool

  /// The shape of `customMirror`, as Combine gives it for the operator.
  enum Reflection {
    /// `downstream`, `result`, `initial` and `status`, as most of the operators have.
    case reduction
    /// Only `count`, the number of elements collected, as `collect()` has.
    case collection
  }

  // Guarded by its own lock.
  let state: Locked<Machine>
  // Owned by the upstream's serialized calls: the accumulator and the step that folds values
  // into it, from the upstream's subscription until its part is over, when they are released.
  var fold: (accumulator: Accumulator, step: Step)?
  // Read only by `receive(subscription:)`, which makes `fold` with it.
  var step: Step?
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
    step: @escaping Step,
    result: @escaping (Accumulator) -> Output?,
    convertFailure: @escaping (UpstreamFailure) -> Downstream.Failure,
    reflection: Reflection = .reduction
  ) {
    census = CensusToken(Reduction.self, inheritingFrom: downstream, named: description)
    state = Locked(Machine(downstream: downstream))
    self.description = description
    self.initial = initial
    self.reflection = reflection
    self.step = step
    self.result = result
    self.convertFailure = convertFailure
  }

  // MARK: Subscriber (upstream's serialized calls)

  func receive(subscription: any Subscription) {
    switch state.withLock({ $0.receiveSubscription(subscription) }) {
    case .cancel(let subscription):
      subscription.cancel()
    case .handDown(let downstream):
      if let step { fold = (initial, step) }
      step = nil
      downstream.receive(subscription: self)
      // The downstream may have cancelled from inside `receive(subscription:)`.
      state.withLock { $0.subscriptionHandedDown() }?.request(.unlimited)
    }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    guard fold != nil else { return .none }
    guard state.withLock({ $0.isFolding }) else {
      fold = nil
      return .none
    }
    do throws(Downstream.Failure) {
      let step = fold!.step
      if try step(&fold!.accumulator, input) { conclude(decidedEarly: true) }
    } catch {
      fail(error, fromStep: true)
    }
    return .none
  }

  func receive(completion: Subscribers.Completion<UpstreamFailure>) {
    guard fold != nil else { return }
    switch completion {
    case .finished: conclude(decidedEarly: false)
    case .failure(let error): fail(convertFailure(error), fromStep: false)
    }
  }

  /// The result is known: delivered now if the downstream has asked, otherwise held (or the
  /// bare completion, when there is no value) for the first request.
  func conclude(decidedEarly: Bool) {
    let value = fold.flatMap { result($0.accumulator) }
    fold = nil
    perform(state.withLock { $0.conclude(value, decidedEarly: decidedEarly) })
  }

  func fail(_ error: Downstream.Failure, fromStep: Bool) {
    fold = nil
    guard case .fail(let downstream, let upstream) = state.withLock({ $0.fail(fromStep: fromStep) }) else { return }
    upstream?.cancel()
    downstream.receive(completion: .failure(error))
  }

  func perform(_ action: Machine.EndAction) {
    switch action {
    case .none:
      break
    case .cancel(let upstream):
      upstream?.cancel()
    case .deliver(let value, let downstream, let upstream):
      upstream?.cancel()
      deliver(value, to: downstream)
    }
  }

  /// Sends the result, if any, then `.finished`.
  func deliver(_ value: Output?, to downstream: Downstream) {
    if let value {
      _ = downstream.receive(value)
      // The downstream may have cancelled from inside `receive(_:)`: then it hears nothing more.
      guard state.withLock({ $0.resultDelivered() }) else { return }
    }
    downstream.receive(completion: .finished)
  }

  // MARK: Subscription (downstream's calls, from any thread)

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    guard case .deliver(let value, let downstream) = state.withLock({ $0.request() }) else { return }
    deliver(value, to: downstream)
  }

  func cancel() {
    guard case .cancel(let upstream, let released) = state.withLock({ $0.cancel() }) else { return }
    upstream?.cancel()
    withExtendedLifetime(released) {}
  }

  // MARK: Reflection (from any thread)

  var customMirror: Mirror {
    let (downstream, held, status) = state.withLock { machine -> (Downstream?, Output?, String) in
      switch machine.state {
      case .awaitingSubscription(let downstream, _): (downstream, nil, "awaitingSubscription")
      case .folding(_, let downstream, _): (downstream, nil, "subscribed")
      case .holding(let value, let downstream): (downstream, value, "subscribed")
      case .delivering, .terminal: (nil, nil, "terminal")
      }
    }
    switch reflection {
    case .reduction:
      let children: [Mirror.Child] = [
        ("downstream", downstream.map { $0 as Any } ?? downstream as Any), ("result", held as Any),
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

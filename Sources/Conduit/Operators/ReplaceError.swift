extension Publishers {
  /// A publisher that replaces any errors in the stream with a provided element.
  ///
  /// When the upstream publisher fails, this publisher sends the replacement element and then
  /// finishes. If the subscriber has no demand left at that moment, the element waits until it
  /// asks for more, as in Combine.
  ///
  /// ```swift
  /// let cancellable = Fail<Int, URLError>(error: URLError(.badURL))
  ///     .replaceError(with: 0)
  ///     .sink { print($0) }   // 0
  /// ```
  public struct ReplaceError<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Never

    /// The element with which to replace errors from the upstream publisher.
    public let output: Upstream.Output

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// Creates a publisher that replaces any errors in the stream with a provided element.
    public init(upstream: Upstream, output: Output) {
      self.upstream = upstream
      self.output = output
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
      // As in Combine, the subscriber gets its subscription when the upstream hands over its own.
      upstream.subscribe(Inner(downstream: subscriber, output: output))
    }
  }
}

extension Publishers.ReplaceError: Equatable where Upstream: Equatable, Upstream.Output: Equatable {}

extension Publishers.ReplaceError: Sendable where Upstream: Sendable, Upstream.Output: Sendable {}

extension Publishers.ReplaceError {
  typealias Inner<Downstream: Subscriber> = ReplaceErrorInner<Link<Upstream.Output, Upstream.Failure, Downstream>>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Never
}

/// Its own subscription: it counts downstream's demand, so that on a failure it knows whether
/// the replacement can go out at once or must wait for a request. As Combine's does, it hands
/// itself to the subscriber when the upstream's subscription arrives, and ignores what comes
/// before that: a value, a completion, a cancel. A value beyond the demand stops the process,
/// as in Combine.
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`).
final class ReplaceErrorInner<Types: OperatorLink>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped
where Types.Downstream.Input == Types.Input, Types.Downstream.Failure == Never {
  typealias Input = Types.Input
  typealias Failure = Types.Failure
  typealias Downstream = Types.Downstream

  typealias Targets = SubscribedTargets<Downstream>

  enum Phase {
    /// Upstream's subscription has not arrived, so neither has downstream's.
    case awaitingSubscription(Downstream)
    case active(Targets)
    /// Upstream failed while downstream had no demand: the replacement waits for a request.
    case awaitingDemand(Downstream)
    case terminal
  }

  struct State {
    var phase: Phase
    /// Demand requested by downstream and not yet used.
    var demand = Subscribers.Demand.none

    init(phase: Phase) {
      self.phase = phase
    }
  }

  /// What to do once the lock is released. The targets taken out of the phase go with it, so
  /// that they are released after the lock.
  enum Action {
    case nothing
    case forward(Targets)
    case request(Targets)
    case replace(Downstream, ended: Targets?)
    case release(Targets)
  }

  // Guarded by its own lock.
  let state: Locked<State>
  let output: Input
  let census: CensusToken

  var censusScope: CensusScope? { census.scope }

  init(downstream: Downstream, output: Input) {
    census = CensusToken(ReplaceErrorInner.self, inheritingFrom: downstream)
    state = Locked(State(phase: .awaitingSubscription(downstream)))
    self.output = output
  }

  var description: String { "ReplaceError" }
  var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
  var playgroundDescription: Any { description }

  // MARK: Subscriber

  func receive(subscription: any Subscription) {
    let downstream = state.withLock { state -> Downstream? in
      guard case .awaitingSubscription(let downstream) = state.phase else { return nil }
      state.phase = .active(Targets(downstream: downstream, upstream: subscription))
      return downstream
    }
    guard let downstream else {
      subscription.cancel()
      return
    }
    downstream.receive(subscription: self)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    guard
      let more = state.withRetained(
        { state -> Targets? in
          guard case .active(let targets) = state.phase else { return nil }
          precondition(
            state.demand != .none,
            "replaceError: the upstream sent a value the subscriber had not requested; a publisher must not send more values than were demanded"
          )
          if state.demand != .unlimited { state.demand -= 1 }
          return targets
        },
        then: { $0.downstream.receive(input) })
    else { return .none }
    if more != .none {
      state.withLock { $0.demand += more }
    }
    return more
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    let action = state.withLock { state -> Action in
      // What comes after a failure held for want of demand (a finish too) is ignored, as in
      // Combine: the replacement still waits for a request.
      guard case .active(let targets) = state.phase else { return .nothing }
      switch completion {
      case .finished:
        state.phase = .terminal
        return .forward(targets)
      case .failure:
        if state.demand == .none {
          state.phase = .awaitingDemand(targets.downstream)
          return .release(targets)
        }
        state.phase = .terminal
        return .replace(targets.downstream, ended: targets)
      }
    }
    switch action {
    case .forward(let targets): targets.downstream.receive(completion: .finished)
    case .replace(let downstream, _): deliverReplacement(to: downstream)
    default: break
    }
  }

  // MARK: Subscription

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let action = state.withLock { state -> Action in
      switch state.phase {
      case .active(let targets):
        state.demand += demand
        return .request(targets)
      case .awaitingDemand(let downstream):
        state.phase = .terminal
        return .replace(downstream, ended: nil)
      case .awaitingSubscription:
        // Only counted, as in Combine: nobody can ask before the subscription is handed on.
        state.demand += demand
        return .nothing
      case .terminal:
        return .nothing
      }
    }
    switch action {
    case .request(let active):
      active.upstream.request(demand)
    case .replace(let downstream, _): deliverReplacement(to: downstream)
    default: break
    }
  }

  func cancel() {
    // Taken out, so that what the phase held is released after the lock. A cancel before the
    // subscription is ignored, as in Combine: nobody can cancel before it is handed on.
    let ended = state.withLock { state -> Phase? in
      if case .awaitingSubscription = state.phase { return nil }
      defer { state.phase = .terminal }
      return state.phase
    }
    if case .active(let targets) = ended { targets.upstream.cancel() }
  }

  func deliverReplacement(to downstream: Downstream) {
    _ = downstream.receive(output)
    downstream.receive(completion: .finished)
  }
}

extension Publisher {
  /// Replaces any errors in the stream with the provided element.
  ///
  /// If the upstream publisher fails, this publisher emits the provided element, then finishes
  /// normally.
  ///
  /// ```swift
  /// let cancellable = fetchScores()          // a publisher that may fail
  ///     .replaceError(with: [])
  ///     .sink { print($0) }
  /// ```
  public func replaceError(with output: Output) -> Publishers.ReplaceError<Self> {
    Publishers.ReplaceError(upstream: self, output: output)
  }
}

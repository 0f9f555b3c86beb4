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
  typealias Machine = ReplaceErrorStateMachine<Downstream>

  // Guarded by its own lock.
  let machine: Locked<Machine>
  let output: Input
  let census: CensusToken

  var censusScope: CensusScope? { census.scope }

  init(downstream: Downstream, output: Input) {
    census = CensusToken(ReplaceErrorInner.self, inheritingFrom: downstream)
    machine = Locked(Machine(downstream: downstream))
    self.output = output
  }

  var description: String { "ReplaceError" }
  var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
  var playgroundDescription: Any { description }

  // MARK: Subscriber

  func receive(subscription: any Subscription) {
    switch machine.withLock({ $0.receive(subscription: subscription) }) {
    case .cancel:
      subscription.cancel()
    case .handDown(let downstream):
      downstream.receive(subscription: self)
    }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    guard
      let more = machine.withRetained({ $0.value() }, then: { $0.downstream.receive(input) })
    else { return .none }
    if more != .none {
      machine.withLock { $0.add(more) }
    }
    return more
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    switch machine.withLock({ $0.receive(finished: completion.isFinished) }) {
    case .none, .release:
      break
    case .finish(let targets):
      targets.downstream.receive(completion: .finished)
    case .replace(let downstream, _):
      deliverReplacement(to: downstream)
    }
  }

  // MARK: Subscription

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    switch machine.withLock({ $0.request(demand) }) {
    case .none:
      break
    case .request(let upstream):
      upstream.request(demand)
    case .replace(let downstream):
      deliverReplacement(to: downstream)
    }
  }

  func cancel() {
    // What the machine held is released after the lock, as the action goes.
    if case .cancel(let targets) = machine.withLock({ $0.cancel() }) { targets.upstream.cancel() }
  }

  func deliverReplacement(to downstream: Downstream) {
    _ = downstream.receive(output)
    downstream.receive(completion: .finished)
  }
}

/// The decisions of `replaceError(with:)`: where the stream stands, and what downstream has
/// requested. Its events return what the subscription does after the lock; the downstream and
/// upstream they hand over leave with the action, so they are released after the lock.
///
/// ```
///   awaitingSubscription ── subscription ──► active ── failure, no demand ──► awaitingDemand
///                                              │                                  │ request
///                                              └── finish, failure, cancel ──► terminal ◄┘
/// ```
struct ReplaceErrorStateMachine<Downstream: Subscriber> {
  typealias Targets = SubscribedTargets<Downstream>

  enum State {
    /// Upstream's subscription has not arrived, so neither has downstream's. What downstream
    /// requests meanwhile (nobody can, as in Combine) is only counted.
    case awaitingSubscription(Downstream, demand: Subscribers.Demand)
    /// With the demand requested and not yet used.
    case active(Targets, demand: Subscribers.Demand)
    /// Upstream failed while downstream had no demand: the replacement waits for a request.
    case awaitingDemand(Downstream)
    case terminal
  }

  enum SubscriptionAction {
    case cancel
    case handDown(Downstream)
  }

  enum CompletionAction {
    case none
    /// Upstream finished: finish downstream.
    case finish(Targets)
    /// Upstream failed with demand: send the replacement and finish. `ended` is let go of after.
    case replace(Downstream, ended: Targets)
    /// Upstream failed without demand: let go of upstream; the replacement waits.
    case release(Targets)
  }

  enum RequestAction {
    case none
    case request(any Subscription)
    /// The replacement was waiting for this request: send it and finish.
    case replace(Downstream)
  }

  enum CancelAction {
    case none
    /// Cancel upstream; `targets` is let go of after.
    case cancel(Targets)
    /// Let go of what the state held.
    case release(State)
  }

  var state: State

  init(downstream: Downstream) {
    state = .awaitingSubscription(downstream, demand: .none)
  }

  mutating func receive(subscription: any Subscription) -> SubscriptionAction {
    guard case .awaitingSubscription(let downstream, let demand) = state else { return .cancel }
    state = .active(Targets(downstream: downstream, upstream: subscription), demand: demand)
    return .handDown(downstream)
  }

  /// Upstream sent a value: returns the targets to deliver it through, spending one demand.
  mutating func value() -> Targets? {
    guard case .active(let targets, let demand) = state else { return nil }
    precondition(
      demand != .none,
      "replaceError: the upstream sent a value the subscriber had not requested; a publisher must not send more values than were demanded"
    )
    if demand != .unlimited { state = .active(targets, demand: demand - 1) }
    return targets
  }

  /// Downstream returned `more` from a value.
  mutating func add(_ more: Subscribers.Demand) {
    guard case .active(let targets, let demand) = state else { return }
    state = .active(targets, demand: demand + more)
  }

  /// What comes after a failure held for want of demand (a finish too) is ignored, as in
  /// Combine: the replacement still waits for a request.
  mutating func receive(finished: Bool) -> CompletionAction {
    guard case .active(let targets, let demand) = state else { return .none }
    if finished {
      state = .terminal
      return .finish(targets)
    }
    if demand == .none {
      state = .awaitingDemand(targets.downstream)
      return .release(targets)
    }
    state = .terminal
    return .replace(targets.downstream, ended: targets)
  }

  mutating func request(_ more: Subscribers.Demand) -> RequestAction {
    switch state {
    case .active(let targets, let demand):
      state = .active(targets, demand: demand + more)
      return .request(targets.upstream)
    case .awaitingDemand(let downstream):
      state = .terminal
      return .replace(downstream)
    case .awaitingSubscription(let downstream, let demand):
      state = .awaitingSubscription(downstream, demand: demand + more)
      return .none
    case .terminal:
      return .none
    }
  }

  /// A cancel before the subscription is ignored, as in Combine: nobody can cancel before it is
  /// handed on.
  mutating func cancel() -> CancelAction {
    switch state {
    case .awaitingSubscription, .terminal:
      return .none
    case .active(let targets, _):
      state = .terminal
      return .cancel(targets)
    case .awaitingDemand:
      return .release(replace(&state, with: .terminal))
    }
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

extension Publishers {
  /// A publisher that replaces an empty stream with a provided element.
  ///
  /// As in Combine, once its subscriber has the subscription it asks upstream for `.unlimited`,
  /// and passes on what the subscriber requests as well; the values pass through as upstream
  /// sends them, so a subscriber that asks for less can be handed more. The replacement waits
  /// for the subscriber's first request.
  ///
  /// ```swift
  /// let cancellable = Empty<Int, Never>()
  ///     .replaceEmpty(with: 0)
  ///     .sink { print($0) }   // 0
  /// ```
  public struct ReplaceEmpty<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The element to deliver when the upstream publisher finishes without delivering any
    /// elements.
    public let output: Upstream.Output

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// Creates a publisher that replaces an empty stream with `output`.
    public init(upstream: Upstream, output: Upstream.Output) {
      self.upstream = upstream
      self.output = output
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, output: output))
    }
  }
}

extension Publishers.ReplaceEmpty: Equatable where Upstream: Equatable, Upstream.Output: Equatable {}

extension Publishers.ReplaceEmpty: Sendable where Upstream: Sendable, Upstream.Output: Sendable {}

extension Publishers.ReplaceEmpty {
  typealias Inner<Downstream: Subscriber> = ReplaceEmptyInner<Downstream>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
}

/// Passes values through and remembers whether any came. When upstream finishes empty, it
/// delivers the replacement with the completion, or, if the subscriber has not asked for
/// anything yet, keeps both until it does.
///
/// Generic over its downstream alone, as an operator that passes on the values and errors it
/// receives can be: one level of nesting per use rather than two (see `OperatorLink`).
final class ReplaceEmptyInner<Downstream: Subscriber>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped,
  Sendable
{
  typealias Input = Downstream.Input
  typealias Failure = Downstream.Failure

  /// The downstream, the replacement and the upstream subscription, in one object that never
  /// changes: a value retains it once under the lock, where copying the state's payload out
  /// would copy the upstream subscription's existential with it.
  final class Targets {
    let downstream: Downstream
    let output: Input
    let upstream: any Subscription

    init(downstream: Downstream, output: Input, upstream: any Subscription) {
      self.downstream = downstream
      self.output = output
      self.upstream = upstream
    }
  }

  enum State {
    // Whether the subscriber asked for anything, which counts once upstream finishes empty.
    case awaitingSubscription(Downstream, Input, requested: Bool)
    // Whether a value came; whether the subscriber asked for any.
    case subscribed(Targets, received: Bool, requested: Bool)
    // Upstream finished empty before the subscriber asked for anything.
    case finishedEmpty(Downstream, Input)
    case terminal
  }

  // Guarded by its own lock.
  let state: Locked<State>
  let census: CensusToken

  var description: String { "ReplaceEmpty" }
  var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
  var playgroundDescription: Any { description }
  var censusScope: CensusScope? { census.scope }

  init(downstream: Downstream, output: Input) {
    census = CensusToken(ReplaceEmptyInner.self, inheritingFrom: downstream)
    state = Locked(.awaitingSubscription(downstream, output, requested: false))
  }

  func receive(subscription: any Subscription) {
    let downstream = state.withLock { state -> Downstream? in
      guard case .awaitingSubscription(let downstream, let output, let requested) = state else { return nil }
      state = .subscribed(
        Targets(downstream: downstream, output: output, upstream: subscription), received: false,
        requested: requested)
      return downstream
    }
    guard let downstream else {
      subscription.cancel()
      return
    }
    downstream.receive(subscription: self)
    // As in Combine, upstream is asked for everything once the subscriber has its subscription,
    // after whatever the subscriber requested from inside `receive(subscription:)`; not when it
    // cancelled from there.
    let subscribed = state.withLock { state -> Bool in
      if case .subscribed = state { return true }
      return false
    }
    if subscribed { subscription.request(.unlimited) }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    return state.withRetained(
      { state -> Targets? in
        guard case .subscribed(let targets, let received, let requested) = state else { return nil }
        if !received {
          state = .subscribed(targets, received: true, requested: requested)
        }
        return targets
      },
      then: { $0.downstream.receive(input) }) ?? .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    // The targets are taken out, so that they are released after the lock.
    let ending = state.withLock { state -> (Targets, deliver: Bool, replace: Bool)? in
      guard case .subscribed(let targets, let received, let requested) = state else { return nil }
      if case .finished = completion, !received {
        guard requested else {
          state = .finishedEmpty(targets.downstream, targets.output)
          return (targets, deliver: false, replace: false)
        }
        state = .terminal
        return (targets, deliver: true, replace: true)
      }
      state = .terminal
      return (targets, deliver: true, replace: false)
    }
    guard let (targets, deliver, replace) = ending, deliver else { return }
    if replace { _ = targets.downstream.receive(targets.output) }
    targets.downstream.receive(completion: completion)
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let (active, waiting) = state.withLock { state -> (Targets?, (Downstream, Input)?) in
      switch state {
      case .subscribed(let targets, let received, let requested):
        if !requested {
          state = .subscribed(targets, received: received, requested: true)
        }
        return (targets, nil)
      case .finishedEmpty(let downstream, let output):
        state = .terminal
        return (nil, (downstream, output))
      case .awaitingSubscription(let downstream, let output, _):
        state = .awaitingSubscription(downstream, output, requested: true)
        return (nil, nil)
      case .terminal:
        return (nil, nil)
      }
    }
    if let (downstream, output) = waiting {
      _ = downstream.receive(output)
      downstream.receive(completion: .finished)
    } else if let active {
      active.upstream.request(demand)
    }
  }

  func cancel() {
    // Taken out, so that what the state held is released after the lock.
    var ended = State.terminal
    state.withLock { state in
      // Before upstream's subscription, a cancel changes nothing, as in Combine: the
      // subscription that arrives later is taken and asked for everything.
      if case .awaitingSubscription = state { return }
      swap(&state, &ended)
    }
    if case .subscribed(let targets, _, _) = ended { targets.upstream.cancel() }
  }
}

extension Publisher {
  /// Replaces an empty stream with the provided element.
  ///
  /// If upstream finishes without producing any elements, this publisher emits `output`, then
  /// finishes. Values and failures pass through unchanged.
  ///
  /// ```swift
  /// let cancellable = [Double]().publisher
  ///     .replaceEmpty(with: .nan)
  ///     .sink { print($0) }   // nan
  /// ```
  ///
  /// - Parameter output: The element to emit when upstream finishes without emitting any.
  public func replaceEmpty(with output: Output) -> Publishers.ReplaceEmpty<Self> {
    Publishers.ReplaceEmpty(upstream: self, output: output)
  }
}

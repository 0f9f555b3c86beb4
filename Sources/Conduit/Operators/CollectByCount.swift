extension Publishers {
  /// A publisher that buffers a maximum number of items.
  ///
  /// It publishes an array each time `count` elements have arrived, and the remaining
  /// elements, if any, as a shorter array when upstream finishes. If upstream fails, the
  /// elements not yet published are dropped and the failure goes downstream. Demand is counted
  /// in arrays: a subscriber's demand for `n` arrays becomes a demand for `n * count` elements
  /// upstream.
  ///
  /// ```swift
  /// let cancellable = (1...5).publisher
  ///     .collect(2)
  ///     .sink { print($0) }   // [1, 2], [3, 4], [5]
  /// ```
  public struct CollectByCount<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = [Upstream.Output]
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher that this publisher receives elements from.
    public let upstream: Upstream

    /// The maximum number of received elements to buffer before publishing.
    public let count: Int

    /// Creates a publisher that buffers a maximum number of items.
    ///
    /// - Precondition: `count` is at least 1.
    public init(upstream: Upstream, count: Int) {
      precondition(
        count > 0,
        "collect(\(count)): the count must be at least 1; use collect() to gather every element into one array")
      self.upstream = upstream
      self.count = count
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == [Upstream.Output], S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, count: count))
    }
  }
}

extension Publishers.CollectByCount: Equatable where Upstream: Equatable {}

extension Publishers.CollectByCount {
  typealias Inner<Downstream: Subscriber> = CollectByCountInner<Link<Upstream.Output, Upstream.Failure, Downstream>>
  where Downstream.Input == [Upstream.Output], Downstream.Failure == Upstream.Failure
}

/// The decisions of `collect(_:)`: where the subscription stands, with the buffer it fills.
///
/// As in Combine, a value that arrives before the upstream's subscription is ignored, a
/// completion that does passes on, and a cancel before it changes nothing: the subscription
/// arriving later is taken as the first. The subscriber hears nothing after its cancel, a
/// completion the upstream sends then included: the cancel lets go of it (DifferencesFromCombine
/// §4, in Conduit.docc).
struct CollectByCountStateMachine<Input, Downstream> {
  enum State {
    case awaitingSubscription(Downstream)
    case collecting(upstream: any Subscription, downstream: Downstream, buffer: [Input])
    /// The upstream has finished; the last, shorter array is going down, then the finish.
    case finishing(Downstream)
    case terminal
  }

  enum SubscriptionAction {
    /// A second subscription, or one after the end.
    case cancel(any Subscription)
    /// Give the downstream its subscription.
    case handDown(to: Downstream)
  }

  enum ValueAction {
    case none
    /// The buffer is full: send it.
    case publish([Input], to: Downstream)
  }

  enum CompletionAction {
    case none
    /// Send the completion.
    case complete(Downstream)
    /// Send the last, shorter array, then ask `remainderPublished()` whether the finish follows.
    case publishRemainder([Input], to: Downstream)
  }

  enum CancelAction {
    case none
    /// Cancel the upstream, if any; `released` (the downstream, the buffer) is let go of after
    /// the lock, as its deinits may call back.
    case cancel(upstream: (any Subscription)?, released: State)
  }

  var state: State
  let count: Int

  init(downstream: Downstream, count: Int) {
    state = .awaitingSubscription(downstream)
    self.count = count
  }

  mutating func receiveSubscription(_ subscription: any Subscription) -> SubscriptionAction {
    guard case .awaitingSubscription(let downstream) = state else { return .cancel(subscription) }
    state = .collecting(upstream: subscription, downstream: downstream, buffer: [])
    return .handDown(to: downstream)
  }

  mutating func receive(_ input: Input) -> ValueAction {
    guard case .collecting(let upstream, let downstream, var buffer) = state else { return .none }
    // Leaves the state's copy of the buffer, so that appending does not copy it.
    state = .terminal
    buffer.append(input)
    guard buffer.count >= count else {
      state = .collecting(upstream: upstream, downstream: downstream, buffer: buffer)
      return .none
    }
    var next: [Input] = []
    next.reserveCapacity(Swift.min(count, 1024))
    state = .collecting(upstream: upstream, downstream: downstream, buffer: next)
    return .publish(buffer, to: downstream)
  }

  mutating func receive(completion: Subscribers.Completion<some Error>) -> CompletionAction {
    switch state {
    case .collecting(_, let downstream, let buffer):
      if case .finished = completion, !buffer.isEmpty {
        state = .finishing(downstream)
        return .publishRemainder(buffer, to: downstream)
      }
      state = .terminal
      return .complete(downstream)
    // As in Combine, a completion before the subscription passes on.
    case .awaitingSubscription(let downstream):
      state = .terminal
      return .complete(downstream)
    case .finishing, .terminal:
      return .none
    }
  }

  /// The last array has gone down: the downstream to finish, unless it cancelled meanwhile.
  mutating func remainderPublished() -> Downstream? {
    guard case .finishing(let downstream) = state else { return nil }
    state = .terminal
    return downstream
  }

  /// The upstream to ask for `count` elements per array requested, while collecting.
  func request() -> (any Subscription)? {
    guard case .collecting(let upstream, _, _) = state else { return nil }
    return upstream
  }

  mutating func cancel() -> CancelAction {
    switch state {
    // Before the upstream's subscription, a cancel changes nothing, as in Combine.
    case .awaitingSubscription, .terminal:
      return .none
    case .collecting(let upstream, _, _):
      return .cancel(upstream: upstream, released: replace(&state, with: .terminal))
    case .finishing:
      return .cancel(upstream: nil, released: replace(&state, with: .terminal))
    }
  }
}

/// Fills a buffer from the upstream's calls and hands each full one downstream; its decisions
/// are a `CollectByCountStateMachine`'s, under one lock. No workload measures `collect(_:)`, so
/// each value takes the lock.
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`).
final class CollectByCountInner<Types: OperatorLink>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped
where Types.Downstream.Input == [Types.Input], Types.Downstream.Failure == Types.Failure {
  typealias Input = Types.Input
  typealias Failure = Types.Failure
  typealias Downstream = Types.Downstream
  typealias Machine = CollectByCountStateMachine<Input, Downstream>

  let state: Locked<Machine>
  let count: Int
  let census: CensusToken

  var description: String { "CollectByCount" }
  var playgroundDescription: Any { description }
  var censusScope: CensusScope? { census.scope }

  init(downstream: Downstream, count: Int) {
    census = CensusToken(CollectByCountInner.self, inheritingFrom: downstream)
    state = Locked(Machine(downstream: downstream, count: count))
    self.count = count
  }

  // MARK: Subscriber (the upstream's calls)

  func receive(subscription: any Subscription) {
    switch state.withLock({ $0.receiveSubscription(subscription) }) {
    case .cancel(let subscription): subscription.cancel()
    case .handDown(let downstream): downstream.receive(subscription: self)
    }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    guard case .publish(let full, let downstream) = state.withLock({ $0.receive(input) }) else { return .none }
    return downstream.receive(full) * count
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    switch state.withLock({ $0.receive(completion: completion) }) {
    case .none:
      break
    case .complete(let downstream):
      downstream.receive(completion: completion)
    case .publishRemainder(let remainder, let downstream):
      _ = downstream.receive(remainder)
      // The downstream may have cancelled from inside `receive(_:)`: then it hears nothing more.
      state.withLock { $0.remainderPublished() }?.receive(completion: completion)
    }
  }

  // MARK: Subscription (the downstream's calls, from any thread)

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    state.withLock { $0.request() }?.request(demand * count)
  }

  func cancel() {
    guard case .cancel(let upstream, let released) = state.withLock({ $0.cancel() }) else { return }
    upstream?.cancel()
    withExtendedLifetime(released) {}
  }

  // MARK: Reflection (from any thread)

  /// Combine's children.
  var customMirror: Mirror {
    let (downstream, upstream, buffer) = state.withLock { machine -> (Downstream?, (any Subscription)?, [Input]) in
      switch machine.state {
      case .awaitingSubscription(let downstream): (downstream, nil, [])
      case .collecting(let upstream, let downstream, let buffer): (downstream, upstream, buffer)
      case .finishing, .terminal: (nil, nil, [])
      }
    }
    let children: [Mirror.Child] = [
      ("downstream", downstream.map { $0 as Any } ?? downstream as Any), ("upstreamSubscription", upstream as Any),
      ("buffer", buffer), ("count", count),
    ]
    return Mirror(self, children: children)
  }
}

extension Publisher {
  /// Collects up to the specified number of elements, and then emits a single array of the
  /// collection.
  ///
  /// If upstream finishes before the buffer is full, the remaining elements go out as a
  /// shorter array before the completion; if upstream fails, they are dropped. Demand is
  /// counted in arrays.
  ///
  /// ```swift
  /// let cancellable = (0...10).publisher
  ///     .collect(5)
  ///     .sink { print($0) }   // [0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10]
  /// ```
  ///
  /// - Parameter count: The maximum number of received elements to buffer before publishing;
  ///   at least 1.
  public func collect(_ count: Int) -> Publishers.CollectByCount<Self> {
    Publishers.CollectByCount(upstream: self, count: count)
  }
}

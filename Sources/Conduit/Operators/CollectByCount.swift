import Synchronization

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

/// Fills a buffer from upstream's serialized calls and hands each full one downstream.
/// Downstream's requests and cancellation go through `state`; the buffer needs no lock.
///
/// As in Combine, a value that arrives before upstream's subscription is ignored, a completion
/// that does passes on, and a cancel before it changes nothing: the subscription arriving later
/// is taken as the first. The subscriber hears nothing after its cancel, a completion upstream
/// sends then included: the cancel lets go of it (DifferencesFromCombine §4, in
/// Conduit.docc).
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`).
final class CollectByCountInner<Types: OperatorLink>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped
where Types.Downstream.Input == [Types.Input], Types.Downstream.Failure == Types.Failure {
  typealias Input = Types.Input
  typealias Failure = Types.Failure
  typealias Downstream = Types.Downstream

  enum State {
    case awaitingSubscription(Downstream)
    case active(upstream: any Subscription, downstream: Downstream)
    case terminal
  }

  // Guarded by its own lock.
  let state: Locked<State>
  // Set by `cancel`; read without the lock by upstream's calls.
  let cancelled = Atomic<Bool>(false)
  // Owned by upstream's serialized calls.
  var buffer: [Input] = []
  // How many elements `buffer` holds, for the mirror on other threads; written by upstream's
  // calls alongside `buffer`.
  let buffered = Atomic<Int>(0)
  // Owned like `buffer`: set once upstream's subscription is accepted, cleared once upstream has
  // completed or the subscription was cancelled. Values count only while set.
  var collecting = false
  let count: Int
  let census: CensusToken

  var description: String { "CollectByCount" }
  var playgroundDescription: Any { description }
  var censusScope: CensusScope? { census.scope }

  init(downstream: Downstream, count: Int) {
    census = CensusToken(CollectByCountInner.self, inheritingFrom: downstream)
    state = Locked(.awaitingSubscription(downstream))
    self.count = count
  }

  // MARK: Subscriber (upstream's serialized calls)

  func receive(subscription: any Subscription) {
    let downstream = state.withLock { state -> Downstream? in
      guard case .awaitingSubscription(let downstream) = state else { return nil }
      state = .active(upstream: subscription, downstream: downstream)
      return downstream
    }
    guard let downstream else {
      subscription.cancel()
      return
    }
    collecting = true
    downstream.receive(subscription: self)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    guard collecting else { return .none }
    if cancelled.load(ordering: .relaxed) {
      end()
      return .none
    }
    buffer.append(input)
    guard buffer.count >= count else {
      buffered.store(buffer.count, ordering: .relaxed)
      return .none
    }
    let full = buffer
    buffer = []
    buffer.reserveCapacity(Swift.min(count, 1024))
    buffered.store(0, ordering: .relaxed)
    let downstream = state.withLock { state -> Downstream? in
      guard case .active(_, let downstream) = state else { return nil }
      return downstream
    }
    guard let downstream else { return .none }
    return downstream.receive(full) * count
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    let remainder = buffer
    end()
    // Taken out, so that the upstream subscription is released after the lock.
    let ended = state.exchange(.terminal)
    let downstream: Downstream
    switch ended {
    case .active(_, let active): downstream = active
    // As in Combine, a completion before the subscription passes on.
    case .awaitingSubscription(let waiting): downstream = waiting
    case .terminal: return
    }
    if case .finished = completion, !remainder.isEmpty {
      _ = downstream.receive(remainder)
      // Downstream may have cancelled from inside `receive(_:)`: then it hears nothing more.
      if cancelled.load(ordering: .acquiring) { return }
    }
    downstream.receive(completion: completion)
  }

  /// Upstream's part is over: the buffer is released.
  func end() {
    collecting = false
    buffer = []
    buffered.store(0, ordering: .relaxed)
  }

  // MARK: Subscription (downstream's calls, from any thread)

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let upstream = state.withLock { state -> (any Subscription)? in
      guard case .active(let upstream, _) = state else { return nil }
      return upstream
    }
    upstream?.request(demand * count)
  }

  func cancel() {
    // Taken out, so that the downstream and the upstream subscription are released after the lock.
    var ended = State.terminal
    state.withLock { state in
      // Before upstream's subscription, a cancel changes nothing, as in Combine.
      if case .awaitingSubscription = state { return }
      // Also when already terminal: it tells the delivery of a last buffer to stop.
      cancelled.store(true, ordering: .releasing)
      swap(&state, &ended)
    }
    if case .active(let upstream, _) = ended { upstream.cancel() }
  }

  // MARK: Reflection (from any thread)

  /// Combine's children. The buffer's elements belong to upstream's thread, so an empty buffer
  /// shows as `[]` and a filling one by its size.
  var customMirror: Mirror {
    let (downstream, upstream) = state.withLock { state -> (Downstream?, (any Subscription)?) in
      switch state {
      case .awaitingSubscription(let downstream): (downstream, nil)
      case .active(let upstream, let downstream): (downstream, upstream)
      case .terminal: (nil, nil)
      }
    }
    let size = buffered.load(ordering: .relaxed)
    let buffer: Any = size == 0 ? [Input]() : "\(size) elements"
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

import Synchronization

extension Publishers {
  /// A publisher that buffers elements received from an upstream publisher.
  ///
  /// Elements the downstream has not asked for yet wait in the buffer, up to `size` of them;
  /// `whenFull` decides what happens to one more. When the upstream finishes, the buffered
  /// elements are delivered before the completion. When the upstream fails, the failure is
  /// delivered at once and buffered elements are discarded, as in Combine. A `.customError`
  /// overflow ends the same way; Combine instead holds that failure until the downstream next
  /// requests, which a subscriber that has stopped requesting would never see.
  ///
  /// ```swift
  /// let cancellable = subject
  ///     .buffer(size: 100, prefetch: .byRequest, whenFull: .dropOldest)
  ///     .sink { print($0) }
  /// ```
  public struct Buffer<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The maximum number of elements to store.
    public let size: Int

    /// The strategy for initially populating the buffer.
    public let prefetch: Publishers.PrefetchStrategy

    /// The action to take when the buffer becomes full.
    public let whenFull: Publishers.BufferingStrategy<Failure>

    /// Creates a publisher that buffers elements received from an upstream publisher.
    ///
    /// - Precondition: `size` is not negative.
    @inlinable
    public init(
      upstream: Upstream, size: Int, prefetch: Publishers.PrefetchStrategy,
      whenFull: Publishers.BufferingStrategy<Failure>
    ) {
      precondition(
        size >= 0, "buffer(size: \(size)): a buffer cannot hold a negative number of elements; use 0 or more")
      self.upstream = upstream
      self.size = size
      self.prefetch = prefetch
      self.whenFull = whenFull
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, size: size, prefetch: prefetch, whenFull: whenFull))
    }
  }
}

extension Publishers.Buffer {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = BufferInner<Downstream>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
}

/// Holds elements until the downstream asks for them.
///
/// Elements reach the downstream from the upstream's calls and from the downstream's own
/// requests, possibly on different threads; whichever thread sets `delivering` owns the
/// downstream and delivers until there is nothing more it may deliver. The thread that
/// subscribes owns it from the start, so elements that arrive before the downstream has its
/// subscription wait in the buffer.
///
/// Generic over its downstream alone, as an operator that passes on the values and errors it
/// receives can be: one level of nesting per use rather than two (see `OperatorLink`).
@usableFromInline
final class BufferInner<Downstream: Subscriber>: Subscriber, SubscriptionRequestHandler, Subscription,
  CustomStringConvertible, CensusScoped,
  @unchecked Sendable
{
  @usableFromInline
  typealias Input = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  enum Phase {
    case awaitingSubscription
    case active
    /// The upstream finished; the buffer drains before the completion goes out.
    case finished
    /// The buffer overflowed with `.customError`; the error is being made.
    case overflowing
    /// A failure waits for the delivering thread.
    case failing(Failure)
    case cancelled
    case done
  }

  @usableFromInline
  struct State {
    @usableFromInline
    var phase = Phase.awaitingSubscription
    @usableFromInline
    var upstream: (any Subscription)?
    @usableFromInline
    var values = ValueQueue<Input>()
    @usableFromInline
    var demand = Subscribers.Demand.none
    @usableFromInline
    var delivering = true
    @usableFromInline
    var whenFull: Publishers.BufferingStrategy<Failure>

    @inlinable
    init(whenFull: Publishers.BufferingStrategy<Failure>) {
      self.whenFull = whenFull
    }

    @inlinable
    mutating func claimDelivery() -> Bool {
      if delivering { return false }
      delivering = true
      return true
    }

    /// Forgets the upstream, the buffered elements and the strategy's closure.
    @inlinable
    mutating func end(_ phase: Phase) -> (any Subscription)? {
      self.phase = phase
      values.removeAll()
      whenFull = .dropNewest
      defer { upstream = nil }
      return upstream
    }
  }

  @usableFromInline
  enum Arrival {
    case absorbed
    case deliver
    case overflow(() -> Failure, upstream: (any Subscription)?)
  }

  @usableFromInline
  enum Step {
    case deliver(Input)
    case complete(Subscribers.Completion<Failure>)
    case release
    case idle
  }

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
  // Owned by the thread that set `state.delivering`; released when the subscription ends.
  @usableFromInline @exclusivity(unchecked)
  var downstream: Downstream?
  @usableFromInline
  let size: Int
  @usableFromInline
  let prefetch: Publishers.PrefetchStrategy
  @usableFromInline
  let census: CensusToken
  // Specialized `request` and `cancel`; see `SubscriptionRequest`.
  @usableFromInline
  let handle: (BufferInner, SubscriptionRequest) -> Void

  @usableFromInline
  var description: String { "Buffer" }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(
    downstream: Downstream, size: Int, prefetch: Publishers.PrefetchStrategy,
    whenFull: Publishers.BufferingStrategy<Failure>
  ) {
    census = CensusToken(BufferInner.self, inheritingFrom: downstream)
    state = Locked(State(whenFull: whenFull))
    self.downstream = downstream
    self.size = size
    self.prefetch = prefetch
    handle = SubscriptionRequest.dispatcher()
  }

  // MARK: Upstream

  @inlinable
  func receive(subscription: any Subscription) {
    let accepted = state.withLock { state -> Bool in
      guard case .awaitingSubscription = state.phase else { return false }
      state.phase = .active
      state.upstream = subscription
      return true
    }
    guard accepted else {
      subscription.cancel()
      return
    }
    // As in Combine, the upstream is asked before the downstream has its subscription.
    let initial = prefetch == .keepFull ? Subscribers.Demand.max(size) : .unlimited
    if initial != .none { subscription.request(initial) }
    downstream?.receive(subscription: self)
    requestRefill(drain(more: .none, delivered: 0))
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    let arrival = state.withLock { state -> Arrival in
      guard case .active = state.phase else { return .absorbed }
      if !state.delivering && state.demand != .none && state.values.isEmpty {
        state.delivering = true
        if state.demand != .unlimited { state.demand -= 1 }
        return .deliver
      }
      if state.values.count < size {
        state.values.append(input)
        return .absorbed
      }
      switch state.whenFull {
      case .dropNewest:
        return .absorbed
      case .dropOldest:
        // A buffer of size zero has no oldest element to make room with.
        guard state.values.popFirst() != nil else { return .absorbed }
        state.values.append(input)
        return .absorbed
      case .customError(let makeError):
        return .overflow(makeError, upstream: state.end(.overflowing))
      }
    }
    switch arrival {
    case .absorbed:
      return .none
    case .deliver:
      let more = downstream?.receive(input) ?? .none
      let delivered = drain(more: more, delivered: 1)
      return prefetch == .keepFull ? .max(delivered) : .none
    case .overflow(let makeError, let upstream):
      let error = makeError()
      upstream?.cancel()
      let owns = state.withLock { state -> Bool in
        guard case .overflowing = state.phase else { return false }
        state.phase = .failing(error)
        return state.claimDelivery()
      }
      if owns { _ = drain(more: .none, delivered: 0) }
      return .none
    }
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>) {
    // The values a failure drops leave after the lock: their deinits may cancel this
    // subscription.
    var dropped = ValueQueue<Input>()
    let owns = state.withLock { state -> Bool in
      guard case .active = state.phase else { return false }
      switch completion {
      case .finished:
        state.phase = .finished
        state.upstream = nil
        state.whenFull = .dropNewest
      case .failure(let error):
        swap(&state.values, &dropped)
        _ = state.end(.failing(error))
      }
      return state.claimDelivery()
    }
    if owns { requestRefill(drain(more: .none, delivered: 0)) }
  }

  // MARK: Downstream

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
    let owns = state.withLock { state -> Bool in
      switch state.phase {
      case .active, .finished:
        state.demand += demand
        return !state.values.isEmpty && state.claimDelivery()
      default:
        return false
      }
    }
    if owns { requestRefill(drain(more: .none, delivered: 0)) }
  }

  @inlinable
  func handleCancel() {
    // The values dropped leave after the lock: their deinits may cancel this subscription.
    var dropped = ValueQueue<Input>()
    let ended = state.withLock { state -> ((any Subscription)?, Bool)? in
      switch state.phase {
      case .cancelled, .done: return nil
      default:
        swap(&state.values, &dropped)
        return (state.end(.cancelled), state.claimDelivery())
      }
    }
    guard let (upstream, owns) = ended else { return }
    upstream?.cancel()
    if owns { _ = drain(more: .none, delivered: 0) }
  }

  // MARK: Delivery

  /// With `.keepFull`, asks the upstream for as many elements as were handed downstream.
  @inlinable
  func requestRefill(_ delivered: Int) {
    guard prefetch == .keepFull, delivered > 0 else { return }
    let upstream = state.withLock { state -> (any Subscription)? in
      guard case .active = state.phase else { return nil }
      return state.upstream
    }
    upstream?.request(.max(delivered))
  }

  /// Runs while this thread owns delivery: delivers buffered elements while there is demand,
  /// then the completion once it is due. Returns how many elements were delivered, counting
  /// the `delivered` already handed over by the caller.
  @inlinable
  func drain(more initial: Subscribers.Demand, delivered initialCount: Int) -> Int {
    var more = initial
    var delivered = initialCount
    while true {
      let step = state.withLock { state -> Step in
        switch state.phase {
        case .active, .finished:
          if more != .none { state.demand += more }
          if state.demand != .none, let value = state.values.popFirst() {
            if state.demand != .unlimited { state.demand -= 1 }
            return .deliver(value)
          }
          if case .finished = state.phase, state.values.isEmpty {
            state.phase = .done
            return .complete(.finished)
          }
          state.delivering = false
          return .idle
        case .failing(let error):
          state.phase = .done
          return .complete(.failure(error))
        case .cancelled, .done:
          state.phase = .done
          return .release
        case .awaitingSubscription, .overflowing:
          state.delivering = false
          return .idle
        }
      }
      switch step {
      case .deliver(let value):
        more = downstream?.receive(value) ?? .none
        delivered += 1
      case .complete(let completion):
        let downstream = self.downstream
        self.downstream = nil
        downstream?.receive(completion: completion)
        return delivered
      case .release:
        downstream = nil
        return delivered
      case .idle:
        return delivered
      }
    }
  }
}

/// A first-in first-out queue of values waiting for delivery, shared by the operators that hold
/// values back (`buffer`, `flatMap`, `switchToLatest`, the combining operators). A ring buffer:
/// appending and popping are O(1) with no allocation once it has grown to the largest number of
/// values waiting at once, and a popped element is released at once.
@usableFromInline
struct ValueQueue<Element> {
  @usableFromInline
  var storage: ContiguousArray<Element?> = []
  /// Where the oldest element is, when there is one.
  @usableFromInline
  var head = 0
  @usableFromInline
  var count = 0

  @inlinable
  init() {}

  @inlinable
  var isEmpty: Bool { count == 0 }

  @inlinable
  mutating func append(_ element: Element) {
    if count == storage.count { grow() }
    var index = head + count
    if index >= storage.count { index -= storage.count }
    storage[index] = element
    count += 1
  }

  @inlinable
  mutating func popFirst() -> Element? {
    guard count > 0 else { return nil }
    let element = storage[head].take()
    count -= 1
    head = count == 0 || head + 1 == storage.count ? 0 : head + 1
    return element
  }

  /// The elements, oldest first.
  @inlinable
  var elements: [Element] {
    (0..<count).map { offset in
      var index = head + offset
      if index >= storage.count { index -= storage.count }
      return storage[index]!
    }
  }

  /// Releases every element, keeping the storage for what comes next.
  @inlinable
  mutating func removeAll() {
    while count > 0 { _ = popFirst() }
    head = 0
  }

  /// Doubles the capacity, moving the elements to the front in order.
  @inlinable @inline(never)
  mutating func grow() {
    var grown = ContiguousArray<Element?>()
    grown.reserveCapacity(Swift.max(4, storage.count * 2))
    for offset in 0..<count {
      var index = head + offset
      if index >= storage.count { index -= storage.count }
      grown.append(storage[index].take())
    }
    while grown.count < grown.capacity { grown.append(nil) }
    storage = grown
    head = 0
  }
}

extension Publisher {
  /// Buffers elements received from an upstream publisher.
  ///
  /// ```swift
  /// let cancellable = fastProducer
  ///     .buffer(size: 50, prefetch: .keepFull, whenFull: .dropOldest)
  ///     .sink(receiveValue: { slowConsumer.handle($0) })
  /// ```
  ///
  /// - Parameters:
  ///   - size: The maximum number of elements to store.
  ///   - prefetch: The strategy to initially populate the buffer.
  ///   - whenFull: The action to take when the buffer becomes full.
  @inlinable
  public func buffer(
    size: Int, prefetch: Publishers.PrefetchStrategy, whenFull: Publishers.BufferingStrategy<Failure>
  ) -> Publishers.Buffer<Self> {
    Publishers.Buffer(upstream: self, size: size, prefetch: prefetch, whenFull: whenFull)
  }
}

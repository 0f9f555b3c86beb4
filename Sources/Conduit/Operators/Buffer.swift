import Synchronization

extension Publishers {
  /// A publisher that buffers elements received from an upstream publisher.
  ///
  /// Elements the downstream has not asked for yet wait in the buffer, up to `size` of them;
  /// `whenFull` decides what happens to one more (a buffer of size zero is always full). As in
  /// Combine, a completion waits behind the buffered elements: the upstream's finish goes out once
  /// the buffer is empty and the downstream has demand; a failure (the upstream's, or the one a
  /// `.customError` strategy makes) goes out after the buffered elements the downstream has demand
  /// for, and at once, discarding the rest, when it has none. A `.customError` overflow cancels the
  /// upstream at once but, as in Combine, fails only at the downstream's next request.
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
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, size: size, prefetch: prefetch, whenFull: whenFull))
    }
  }
}

extension Publishers.Buffer {
  typealias Inner<Downstream: Subscriber> = BufferInner<Downstream>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
}

/// The decisions of a `buffer` subscription, kept apart from its calls out (DESIGN.md §3): each
/// event updates the state under the subscription's lock and says what the subscription does
/// once the lock is released.
///
/// Elements reach the downstream from the upstream's calls and from the downstream's requests,
/// possibly on different threads; the call that claims `delivery` (see `DeliveryOwnership`) owns
/// the downstream and asks `nextDelivery` what to deliver until there is nothing more it may deliver,
/// where `nextDelivery` gives delivery back. The subscribing call owns it from the start, so that what
/// arrives before the downstream has its subscription waits, and gives it back as it hands the
/// subscription down, so that a request from inside `receive(subscription:)` is answered at once, as
/// in Combine; a completion still waits until that call has returned (DifferencesFromCombine §7).
/// The buffered elements and the demand are kept beside the state, as every state before the end
/// has them.
struct BufferStateMachine<Input, Failure: Error> {
  enum State {
    /// The upstream's subscription has not arrived.
    case awaitingSubscription
    /// Elements flow; `completion` is the upstream's, once it has come, waiting to go out behind
    /// the buffered elements.
    case subscribed(upstream: any Subscription, completion: Subscribers.Completion<Failure>?)
    /// The buffer overflowed with `.customError`; the error is being made, out of the lock.
    case overflowing(upstream: any Subscription)
    /// The overflow's failure is made and waits, as in Combine, for the downstream's next request:
    /// until then the buffered elements stay and nothing goes out. The upstream is kept, as
    /// Combine keeps it, until the failure has gone out: a refill that follows the last elements
    /// is still asked of it.
    case overflowed(upstream: any Subscription, error: Failure)
    /// The downstream has its completion, or cancelled: nothing is held.
    case terminal
  }

  /// What the subscription lets go of when the stream ends, after the lock: the deinits of the
  /// elements, of the strategy's closure and of the upstream subscription may call back into it.
  struct Released {
    var values: ValueQueue<Input>
    var whenFull: Publishers.BufferingStrategy<Failure>
    /// The state the stream ended in, with the upstream subscription it held.
    var ended: State

    init(values: ValueQueue<Input>, whenFull: Publishers.BufferingStrategy<Failure>, ended: State) {
      self.values = values
      self.whenFull = whenFull
      self.ended = ended
    }

    /// The upstream subscription the stream held, if it had arrived.
    var upstream: (any Subscription)? { ended.upstream }
  }

  /// What to do with a subscription from the upstream.
  enum SubscriptionAction {
    /// Ask the upstream for `initial` (unless it is `.none`), then hand the buffer's subscription
    /// to the downstream.
    case accept(initial: Subscribers.Demand)
    /// Not wanted (a second one, or one after the end): cancel it.
    case cancel
  }

  /// What to do with an element from the upstream.
  enum ValueAction {
    /// Buffered, or dropped; `dropped` is the element `.dropOldest` made room by.
    case absorbed(dropped: Input?)
    /// This call owns the downstream and hands it the element at once, the buffer being empty.
    case deliver(Input)
    /// Buffered, and this call owns the downstream: it delivers what it may.
    case drain
    /// The buffer is full under `.customError`: the error is made, then `overflowed` told.
    case overflow(() -> Failure)
  }

  /// What to do once the overflow's error is made.
  enum OverflowAction {
    /// Cancel the upstream now; the failure waits for the downstream's next request.
    case cancelUpstream(any Subscription)
    /// The downstream cancelled meanwhile, which cancelled the upstream: nothing.
    case none
  }

  /// What to do once a request or a completion has been recorded.
  enum DrainAction {
    case none
    /// This call owns the downstream; with `.keepFull`, what it delivers is asked of `refill`.
    case drain(refill: (any Subscription)?)
  }

  /// What to do with the downstream's cancel.
  enum CancelAction {
    /// Before the subscription (ignored, as in Combine), or after the end: nothing.
    case none
    /// Cancel the upstream and let go of what the stream held; another call owns the downstream
    /// and lets go of it at its next step.
    case cancel(Released)
    /// As `cancel`, and this call owns the downstream: let go of it too.
    case cancelAndReleaseDownstream(Released)
  }

  /// What the owner of the downstream does next.
  enum Delivery {
    case deliver(Input)
    case complete(Subscribers.Completion<Failure>, Released)
    /// The downstream cancelled while this call delivered: let it go.
    case release
    case idle
  }

  var state = State.awaitingSubscription
  var values = ValueQueue<Input>()
  /// Requested by the downstream and not yet delivered.
  var demand = Subscribers.Demand.none
  /// Which call owns the downstream; the subscribing call, from the start.
  var delivery = DeliveryOwnership(claimed: true)
  /// Whether the downstream's `receive(subscription:)` has returned; until then a completion
  /// waits, even one that is due.
  var handedDown = false
  var whenFull: Publishers.BufferingStrategy<Failure>
  let size: Int
  let keepsFull: Bool

  init(size: Int, prefetch: Publishers.PrefetchStrategy, whenFull: Publishers.BufferingStrategy<Failure>) {
    self.size = size
    self.keepsFull = prefetch == .keepFull
    self.whenFull = whenFull
  }

  /// The completion waiting to go out (the upstream's, or the overflow's failure), as Combine
  /// reflects it.
  var completion: Subscribers.Completion<Failure>? {
    switch state {
    case .subscribed(_, let completion): completion
    case .overflowed(_, let error): .failure(error)
    case .awaitingSubscription, .overflowing, .terminal: nil
    }
  }

  /// The upstream's subscription.
  mutating func receive(subscription: any Subscription) -> SubscriptionAction {
    guard case .awaitingSubscription = state else { return .cancel }
    state = .subscribed(upstream: subscription, completion: nil)
    // As in Combine: as many as fit with `.keepFull`, all of them with `.byRequest`.
    return .accept(initial: keepsFull ? .max(size) : .unlimited)
  }

  /// An element from the upstream. As in Combine, one is taken after the upstream finished (it
  /// goes out before the finish), and ignored after a failure, before the subscription and after
  /// the end.
  mutating func receive(_ input: Input) -> ValueAction {
    switch state {
    case .subscribed(_, completion: .some(.failure)): return .absorbed(dropped: nil)
    case .subscribed: break
    case .awaitingSubscription, .overflowing, .overflowed, .terminal: return .absorbed(dropped: nil)
    }
    var dropped: Input?
    if values.count >= size {
      switch whenFull {
      case .dropNewest:
        return .absorbed(dropped: nil)
      case .dropOldest:
        // A buffer of size zero has no oldest element to make room with.
        guard let oldest = values.popFirst() else { return .absorbed(dropped: nil) }
        dropped = oldest
      case .customError(let makeError):
        if case .subscribed(let upstream, _) = state { state = .overflowing(upstream: upstream) }
        return .overflow(makeError)
      }
    }
    guard demand > 0, delivery.claim() else {
      values.append(input)
      return .absorbed(dropped: dropped)
    }
    guard values.isEmpty else {
      values.append(input)
      return .drain
    }
    takeOne()
    return .deliver(input)
  }

  /// The error `.customError` made: the stream fails with it at the downstream's next request,
  /// as in Combine, and the upstream is cancelled now, unless the downstream cancelled meanwhile
  /// (which cancelled it).
  mutating func overflowed(with error: Failure) -> OverflowAction {
    guard case .overflowing(let upstream) = state else { return .none }
    state = .overflowed(upstream: upstream, error: error)
    return .cancelUpstream(upstream)
  }

  /// The subscribing call has asked the upstream for the initial demand and is about to hand the
  /// downstream its subscription: it gives delivery back. Nothing can go out meanwhile but what
  /// the downstream asks for: it has asked for nothing yet, and a completion waits for
  /// `handDownReturned()`.
  mutating func handingDown() {
    if case .terminal = state { return }
    delivery.giveBack()
  }

  /// The downstream's `receive(subscription:)` has returned: whether this call now owns the
  /// downstream, and delivers what waited (the completion that came meanwhile).
  mutating func handDownReturned() -> Bool {
    handedDown = true
    return delivery.claim()
  }

  /// The upstream's completion: the first is kept until it may go out; others are ignored, as in
  /// Combine, as is one before the subscription.
  mutating func receive(completion: Subscribers.Completion<Failure>) -> DrainAction {
    guard case .subscribed(let upstream, nil) = state else { return .none }
    state = .subscribed(upstream: upstream, completion: completion)
    return claimDelivery(refill: nil)
  }

  /// A request from the downstream: any demand, `.none` too, as in Combine. One before the
  /// subscription is ignored.
  mutating func request(_ more: Subscribers.Demand) -> DrainAction {
    let upstream: any Subscription
    switch state {
    case .subscribed(let current, _), .overflowing(let current):
      upstream = current
    case .overflowed(let current, let error):
      // The request an overflow's failure waits for.
      state = .subscribed(upstream: current, completion: .failure(error))
      upstream = current
    case .awaitingSubscription, .terminal:
      return .none
    }
    demand += more
    return claimDelivery(refill: keepsFull ? upstream : nil)
  }

  /// The downstream's cancel. A cancel before the subscription is ignored, as in Combine.
  mutating func cancel() -> CancelAction {
    switch state {
    case .subscribed, .overflowing, .overflowed:
      let released = end()
      return delivery.claim() ? .cancelAndReleaseDownstream(released) : .cancel(released)
    case .awaitingSubscription, .terminal:
      return .none
    }
  }

  /// Asked by the owner of the downstream, after adding the demand the last element returned:
  /// the next element while there is demand, then the completion once it is due: a finish when
  /// the buffer is empty and there is demand, a failure when either runs out.
  mutating func nextDelivery(adding more: Subscribers.Demand) -> Delivery {
    switch state {
    case .subscribed, .overflowing, .overflowed:
      demand += more
      if demand > 0, let value = values.popFirst() {
        takeOne()
        return .deliver(value)
      }
      // Only once subscribed: an overflow's failure waits for a request. Only once the
      // downstream's `receive(subscription:)` has returned.
      if handedDown, case .subscribed(_, let completion?) = state {
        if demand > 0 { return .complete(completion, end()) }
        if case .failure = completion { return .complete(completion, end()) }
      }
      delivery.giveBack()
      return .idle
    case .terminal:
      return .release
    case .awaitingSubscription:
      delivery.giveBack()
      return .idle
    }
  }

  mutating func claimDelivery(refill: (any Subscription)?) -> DrainAction {
    guard delivery.claim() else { return .none }
    return .drain(refill: refill)
  }

  mutating func takeOne() {
    if demand != .unlimited { demand -= 1 }
  }

  /// Ends the stream: forgets the upstream, the buffered elements and the strategy's closure,
  /// and returns them to be let go of after the lock.
  mutating func end() -> Released {
    var released = Released(values: ValueQueue(), whenFull: .dropNewest, ended: .terminal)
    swap(&released.values, &values)
    swap(&released.whenFull, &whenFull)
    swap(&released.ended, &state)
    return released
  }
}

extension BufferStateMachine.State {
  /// The upstream subscription, once it has arrived and until the stream ends.
  var upstream: (any Subscription)? {
    switch self {
    case .subscribed(let upstream, _), .overflowing(let upstream), .overflowed(let upstream, _): upstream
    case .awaitingSubscription, .terminal: nil
    }
  }
}

/// Holds elements until the downstream asks for them; its decisions are a `BufferStateMachine`'s.
///
/// Generic over its downstream alone, as an operator that passes on the values and errors it
/// receives can be: one level of nesting per use rather than two (see `OperatorLink`).
final class BufferInner<Downstream: Subscriber>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped
{
  typealias Input = Downstream.Input
  typealias Failure = Downstream.Failure
  typealias Machine = BufferStateMachine<Input, Failure>

  // Guarded by its own lock.
  let state: Locked<Machine>
  // Owned by the call that owns `state.delivery`; released when the subscription ends.
  var downstream: Downstream?
  // Immutable: whether delivered elements are asked of the upstream again (`.keepFull`).
  let keepsFull: Bool
  let census: CensusToken

  var description: String { "Buffer" }
  var playgroundDescription: Any { description }
  var censusScope: CensusScope? { census.scope }

  /// The buffered elements, the state, the demand not yet met and the completion waiting, as
  /// Combine reflects them.
  var customMirror: Mirror {
    let (values, machineState, demand, completion) = state.withLock {
      ($0.values.elements, $0.state, $0.demand, $0.completion)
    }
    let children: [Mirror.Child] = [
      ("values", values), ("state", machineState), ("downstreamDemand", demand), ("terminal", completion as Any),
    ]
    return Mirror(self, children: children)
  }

  init(
    downstream: Downstream, size: Int, prefetch: Publishers.PrefetchStrategy,
    whenFull: Publishers.BufferingStrategy<Failure>
  ) {
    census = CensusToken(BufferInner.self, inheritingFrom: downstream)
    state = Locked(Machine(size: size, prefetch: prefetch, whenFull: whenFull))
    self.downstream = downstream
    keepsFull = prefetch == .keepFull
  }

  // MARK: Upstream

  func receive(subscription: any Subscription) {
    guard case .accept(let initial) = state.withLock({ $0.receive(subscription: subscription) }) else {
      subscription.cancel()
      return
    }
    // As in Combine, the upstream is asked before the downstream has its subscription.
    if initial != .none { subscription.request(initial) }
    // Taken while this call still owns the downstream: from here on, a request from inside
    // `receive(subscription:)` delivers at once, as in Combine.
    let downstream = self.downstream
    state.withLock { $0.handingDown() }
    downstream?.receive(subscription: self)
    // What waited for the hand-down to return (a completion) goes out now.
    if state.withLock({ $0.handDownReturned() }) {
      drain(more: .none, delivered: 0, refill: keepsFull ? subscription : nil)
    }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    // What the action holds (an element `.dropOldest` dropped) is let go of after the lock.
    switch state.withLock({ $0.receive(input) }) {
    case .absorbed:
      return .none
    case .deliver(let input):
      let more = downstream?.receive(input) ?? .none
      let delivered = drain(more: more, delivered: 1, refill: nil)
      return keepsFull ? .max(delivered) : .none
    case .drain:
      let delivered = drain(more: .none, delivered: 0, refill: nil)
      return keepsFull ? .max(delivered) : .none
    case .overflow(let makeError):
      let error = makeError()
      if case .cancelUpstream(let upstream) = state.withLock({ $0.overflowed(with: error) }) { upstream.cancel() }
      return .none
    }
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    // As in Combine, nothing is asked of the upstream for what this delivers.
    if case .drain = state.withLock({ $0.receive(completion: completion) }) {
      drain(more: .none, delivered: 0, refill: nil)
    }
  }

  // MARK: Downstream

  func request(_ demand: Subscribers.Demand) {
    if case .drain(let refill) = state.withLock({ $0.request(demand) }) {
      drain(more: .none, delivered: 0, refill: refill)
    }
  }

  func cancel() {
    // What the stream held leaves with the action, after the lock.
    switch state.withLock({ $0.cancel() }) {
    case .none:
      break
    case .cancel(let released):
      released.upstream?.cancel()
    case .cancelAndReleaseDownstream(let released):
      released.upstream?.cancel()
      downstream = nil
    }
  }

  // MARK: Delivery

  /// Runs while this call owns the downstream: delivers what the state machine says, then, with
  /// `.keepFull`, asks `refill` for as many elements as were delivered. Returns how many were
  /// delivered, counting the `delivered` already handed over by the caller.
  @discardableResult
  func drain(more initial: Subscribers.Demand, delivered initialCount: Int, refill: (any Subscription)?) -> Int {
    var more = initial
    var delivered = initialCount
    var refills = true
    state.drain { state -> NextDelivery<Machine.Delivery> in
      let step = state.nextDelivery(adding: more)
      switch step {
      case .deliver: return .perform(step)
      case .complete, .release: return .performAndStop(step)
      case .idle: return .stop
      }
    } perform: { step in
      switch step {
      case .deliver(let value):
        more = downstream?.receive(value) ?? .none
        delivered += 1
      case .complete(let completion, _):
        // What the stream held is let go of with the step, after the lock.
        let downstream = self.downstream
        self.downstream = nil
        downstream?.receive(completion: completion)
      case .release:
        downstream = nil
        refills = false
      case .idle:
        break
      }
    }
    // As in Combine, the refill follows the last elements even when the completion did.
    if refills, let refill, delivered > 0 { refill.request(.max(delivered)) }
    return delivered
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
  public func buffer(
    size: Int, prefetch: Publishers.PrefetchStrategy, whenFull: Publishers.BufferingStrategy<Failure>
  ) -> Publishers.Buffer<Self> {
    Publishers.Buffer(upstream: self, size: size, prefetch: prefetch, whenFull: whenFull)
  }
}

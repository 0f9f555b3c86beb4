extension Publishers {
  /// A publisher that emits all of one publisher's elements before those from another
  /// publisher.
  ///
  /// The suffix is subscribed only once the prefix has finished; demand the subscriber has not
  /// used yet carries over to it. If the prefix fails, the suffix is never subscribed.
  ///
  /// ```swift
  /// let cancellable = Publishers.Concatenate(prefix: [1, 2].publisher, suffix: [3].publisher)
  ///     .sink { print($0) }   // 1, 2, 3
  /// ```
  public struct Concatenate<Prefix: Publisher, Suffix: Publisher>: Publisher
  where Prefix.Failure == Suffix.Failure, Prefix.Output == Suffix.Output {
    /// The kind of values published by this publisher.
    public typealias Output = Suffix.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Suffix.Failure

    /// The publisher to republish, in its entirety, before republishing elements from `suffix`.
    public let prefix: Prefix

    /// The publisher to republish only after `prefix` finishes.
    public let suffix: Suffix

    /// Creates a publisher that emits all of `prefix`'s elements, then all of `suffix`'s.
    public init(prefix: Prefix, suffix: Suffix) {
      self.prefix = prefix
      self.suffix = suffix
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      // As in Combine, the subscriber gets its subscription when the prefix hands over its own.
      prefix.subscribe(Inner(downstream: subscriber, suffix: suffix).prefixSide)
    }
  }
}

extension Publishers.Concatenate: Equatable where Prefix: Equatable, Suffix: Equatable {}

extension Publishers.Concatenate: Sendable where Prefix: Sendable, Suffix: Sendable {}

extension Publishers.Concatenate {
  typealias Inner<Downstream: Subscriber> = ConcatenateInner<ConcatenateTypes<Suffix, Downstream>>
  where Downstream.Input == Suffix.Output, Downstream.Failure == Suffix.Failure
}

/// The `OperatorLink` of a `ConcatenateInner`: also names the publisher it subscribes to second.
protocol ConcatenateLink: OperatorLink where Suffix.Output == Input, Suffix.Failure == Failure {
  /// The publisher republished once the prefix has finished.
  associatedtype Suffix: Publisher
}

/// The `ConcatenateLink` of a subscription that republishes a prefix, then a `Suffix`, to
/// `Downstream`. Never instantiated.
enum ConcatenateTypes<Suffix: Publisher, Downstream: Subscriber>: ConcatenateLink {
  typealias Input = Suffix.Output
  typealias Failure = Suffix.Failure
}

/// The decisions of a `Publishers.Concatenate` subscription, kept apart from its calls out
/// (DESIGN.md §3): each event updates the state under the subscription's lock and says what the
/// subscription does once the lock is released.
///
/// Events come from the prefix or from the suffix, marked by `Side`, and only the current
/// publisher's count: what the prefix sends once it has finished (a value, a second completion)
/// is dropped. `demand` counts what the downstream asked for and has not received, in every
/// state before the end, so that the suffix is asked for exactly what the prefix did not
/// deliver.
struct ConcatenateStateMachine<Downstream, Suffix> {
  /// Which of the two publishers an event comes from.
  enum Side {
    case prefix
    case suffix
  }

  enum State {
    /// The prefix is being subscribed to; its subscription has not arrived.
    case awaitingPrefix(Downstream, Suffix)
    /// The prefix's values go to the downstream; the suffix waits for the prefix to finish.
    case prefix(Downstream, Suffix, upstream: any Subscription)
    /// The prefix finished and the suffix is being subscribed to; its subscription has not
    /// arrived.
    case awaitingSuffix(Downstream)
    /// The suffix's values go to the downstream.
    case suffix(Downstream, upstream: any Subscription)
    /// The downstream has its completion, or cancelled: nothing is held.
    case terminal
  }

  typealias SubscriptionAction = SuccessiveSubscriptionAction<Downstream>

  /// What to do with a value from either side.
  enum ValueAction {
    /// Hand the value to the downstream.
    case deliver(Downstream)
    /// From the prefix once it has finished, beyond the demand (from an upstream that breaks the
    /// contract), or after the end: drop it, as Combine does.
    case ignore
  }

  /// What to do once a side has completed.
  enum CompletionAction {
    /// Not the current side's, or after the end: nothing.
    case none
    /// The prefix finished: subscribe to the suffix. `finished` is the prefix's subscription, let
    /// go of after the lock.
    case subscribe(Suffix, finished: any Subscription)
    /// Send the completion to the downstream; `ended` is what the stream held, let go of after
    /// the lock.
    case complete(Downstream, ended: State)
  }

  typealias RequestAction = SuccessiveRequestAction<(any Subscription)>

  typealias CancelAction = SuccessiveCancelAction<(any Subscription), State>

  var state: State
  /// What the downstream asked for and has not received yet.
  var demand = Subscribers.Demand.none

  init(downstream: Downstream, suffix: Suffix) {
    state = .awaitingPrefix(downstream, suffix)
  }

  /// A subscription from `side`.
  mutating func receive(subscription: any Subscription, from side: Side) -> SubscriptionAction {
    switch state {
    case .awaitingPrefix(let downstream, let suffix) where side == .prefix:
      state = .prefix(downstream, suffix, upstream: subscription)
      return .handDown(downstream)
    case .awaitingSuffix(let downstream) where side == .suffix:
      state = .suffix(downstream, upstream: subscription)
      return demand > 0 ? .request(demand) : .none
    default:
      return .cancel
    }
  }

  /// A value from `side`, counted against the demand.
  mutating func receiveValue(from side: Side) -> ValueAction {
    let downstream: Downstream
    switch state {
    case .prefix(let current, _, _) where side == .prefix, .suffix(let current, _) where side == .suffix:
      downstream = current
    default:
      return .ignore
    }
    guard demand > 0 else { return .ignore }
    if demand != .unlimited { demand -= 1 }
    return .deliver(downstream)
  }

  /// The demand the downstream returned for a value, counted until the end.
  mutating func add(_ more: Subscribers.Demand) {
    if case .terminal = state { return }
    demand += more
  }

  /// `side` completed: the prefix's finish leads to the suffix; the prefix's failure, or the
  /// suffix's completion, ends the stream.
  mutating func receiveCompletion(from side: Side, finished: Bool) -> CompletionAction {
    switch state {
    case .prefix(let downstream, let suffix, let upstream) where side == .prefix:
      guard finished else { return .complete(downstream, ended: end()) }
      state = .awaitingSuffix(downstream)
      return .subscribe(suffix, finished: upstream)
    case .suffix(let downstream, _) where side == .suffix:
      return .complete(downstream, ended: end())
    default:
      return .none
    }
  }

  /// A request from the downstream. As in Combine, any demand, `.none` too, is passed on to the
  /// publisher subscribed to.
  mutating func request(_ more: Subscribers.Demand) -> RequestAction {
    switch state {
    case .prefix(_, _, let upstream), .suffix(_, let upstream):
      demand += more
      return .forward(upstream)
    case .awaitingPrefix, .awaitingSuffix:
      demand += more
      return .none
    case .terminal:
      return .none
    }
  }

  /// The downstream cancelled: the stream ends.
  mutating func cancel() -> CancelAction {
    let ended = end()
    switch ended {
    case .prefix(_, _, let upstream), .suffix(_, let upstream): return .cancel(upstream, ended: ended)
    case .awaitingPrefix, .awaitingSuffix: return .cancel(nil, ended: ended)
    case .terminal: return .none
    }
  }

  /// Ends the stream: returns what it held, to be let go of after the lock.
  mutating func end() -> State {
    var ended = State.terminal
    swap(&ended, &state)
    return ended
  }
}

/// The subscription the subscriber holds for the whole stream; its decisions are a
/// `ConcatenateStateMachine`'s. It subscribes to the prefix, then to the suffix, through two small
/// subscribers of their own (`PrefixSide`, `SuffixSide`), as Combine does, so that what the
/// prefix sends once it has finished is told apart from what the suffix sends. Both sides share
/// its `combineIdentifier`.
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`).
final class ConcatenateInner<Types: ConcatenateLink>: Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped,
  Sendable
where Types.Downstream.Input == Types.Input, Types.Downstream.Failure == Types.Failure {
  typealias Input = Types.Input
  typealias Failure = Types.Failure
  typealias Suffix = Types.Suffix
  typealias Downstream = Types.Downstream
  typealias Machine = ConcatenateStateMachine<Downstream, Suffix>

  // Guarded by its own lock.
  let state: Locked<Machine>
  let census: CensusToken

  var description: String { "Concatenate" }
  var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
  var playgroundDescription: Any { description }
  var censusScope: CensusScope? { census.scope }

  init(downstream: Downstream, suffix: Suffix) {
    census = CensusToken(ConcatenateInner.self, inheritingFrom: downstream)
    state = Locked(Machine(downstream: downstream, suffix: suffix))
  }

  /// The subscriber to the prefix.
  var prefixSide: PrefixSide { PrefixSide(inner: self) }

  func receive(subscription: any Subscription, from side: Machine.Side) {
    state.withLock({ $0.receive(subscription: subscription, from: side) }).perform(for: subscription, handingDown: self)
  }

  func receive(_ input: Input, from side: Machine.Side) -> Subscribers.Demand {
    guard case .deliver(let downstream) = state.withLock({ $0.receiveValue(from: side) }) else { return .none }
    let more = downstream.receive(input)
    if more > 0 {
      state.withLock { $0.add(more) }
    }
    return more
  }

  func receive(completion: Subscribers.Completion<Failure>, from side: Machine.Side) {
    let finished = if case .finished = completion { true } else { false }
    // What the machine lets go of leaves with the action, after the lock.
    switch state.withLock({ $0.receiveCompletion(from: side, finished: finished) }) {
    case .none: break
    case .subscribe(let suffix, _): suffix.subscribe(SuffixSide(inner: self))
    case .complete(let downstream, _): downstream.receive(completion: completion)
    }
  }

  func request(_ demand: Subscribers.Demand) {
    guard case .forward(let upstream) = state.withLock({ $0.request(demand) }) else { return }
    upstream.request(demand)
  }

  func cancel() {
    // The subscriber and the suffix leave with the action, after the lock: the subscriber's
    // deinit may cancel this subscription.
    guard case .cancel(let current, _) = state.withLock({ $0.cancel() }) else { return }
    current?.cancel()
  }
}

extension ConcatenateInner {
  /// The subscriber to the prefix: forwards to the subscription, marked as the prefix's.
  struct PrefixSide: Subscriber, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
    CensusTransparent
  {
    typealias Input = Types.Input
    typealias Failure = Types.Failure

    let inner: ConcatenateInner

    init(inner: ConcatenateInner) {
      self.inner = inner
    }

    var combineIdentifier: CombineIdentifier { inner.combineIdentifier }
    var description: String { inner.description }
    var customMirror: Mirror { inner.customMirror }
    var playgroundDescription: Any { description }
    var censusWrapped: Any? { inner }

    func receive(subscription: any Subscription) {
      inner.receive(subscription: subscription, from: .prefix)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
      inner.receive(input, from: .prefix)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      inner.receive(completion: completion, from: .prefix)
    }
  }

  /// The subscriber to the suffix: forwards to the subscription, marked as the suffix's.
  struct SuffixSide: Subscriber, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
    CensusTransparent
  {
    typealias Input = Types.Input
    typealias Failure = Types.Failure

    let inner: ConcatenateInner

    init(inner: ConcatenateInner) {
      self.inner = inner
    }

    var combineIdentifier: CombineIdentifier { inner.combineIdentifier }
    var description: String { inner.description }
    var customMirror: Mirror { inner.customMirror }
    var playgroundDescription: Any { description }
    var censusWrapped: Any? { inner }

    func receive(subscription: any Subscription) {
      inner.receive(subscription: subscription, from: .suffix)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
      inner.receive(input, from: .suffix)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      inner.receive(completion: completion, from: .suffix)
    }
  }
}

extension Publisher {
  /// Prefixes the output of this publisher with the specified values.
  ///
  /// ```swift
  /// let cancellable = [3, 4].publisher
  ///     .prepend(1, 2)
  ///     .sink { print($0) }   // 1, 2, 3, 4
  /// ```
  ///
  /// - Parameter elements: The elements to publish before this publisher's elements.
  public func prepend(_ elements: Output...) -> Publishers.Concatenate<Publishers.Sequence<[Output], Failure>, Self> {
    prepend(elements)
  }

  /// Prefixes the output of this publisher with the elements of a sequence.
  ///
  /// ```swift
  /// let cancellable = [3, 4].publisher
  ///     .prepend(stride(from: 0, to: 3, by: 1))
  ///     .sink { print($0) }   // 0, 1, 2, 3, 4
  /// ```
  ///
  /// - Parameter elements: A sequence of elements to publish before this publisher's elements.
  public func prepend<S: Sequence>(_ elements: S) -> Publishers.Concatenate<Publishers.Sequence<S, Failure>, Self>
  where Output == S.Element {
    prepend(Publishers.Sequence(sequence: elements))
  }

  /// Prefixes the output of this publisher with the elements emitted by the given publisher.
  ///
  /// This publisher is subscribed to only after the prefixing publisher finishes; if that
  /// publisher fails, the failure ends the stream.
  ///
  /// ```swift
  /// let cancellable = live
  ///     .prepend(cached)   // everything cached first, then the live values
  ///     .sink { print($0) }
  /// ```
  ///
  /// - Parameter publisher: The prefixing publisher.
  public func prepend<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<P, Self>
  where Failure == P.Failure, Output == P.Output {
    Publishers.Concatenate(prefix: publisher, suffix: self)
  }

  /// Appends the specified values to this publisher's output, after it finishes.
  ///
  /// ```swift
  /// let cancellable = [1, 2].publisher
  ///     .append(3, 4)
  ///     .sink { print($0) }   // 1, 2, 3, 4
  /// ```
  ///
  /// - Parameter elements: The elements to publish after this publisher's elements.
  public func append(_ elements: Output...) -> Publishers.Concatenate<Self, Publishers.Sequence<[Output], Failure>> {
    append(elements)
  }

  /// Appends the elements of a sequence to this publisher's output, after it finishes.
  ///
  /// ```swift
  /// let cancellable = [1, 2].publisher
  ///     .append(3...5)
  ///     .sink { print($0) }   // 1, 2, 3, 4, 5
  /// ```
  ///
  /// - Parameter elements: A sequence of elements to publish after this publisher's elements.
  public func append<S: Sequence>(_ elements: S) -> Publishers.Concatenate<Self, Publishers.Sequence<S, Failure>>
  where Output == S.Element {
    append(Publishers.Sequence(sequence: elements))
  }

  /// Appends the elements emitted by the given publisher to this publisher's output.
  ///
  /// The given publisher is subscribed to only after this one finishes; if this one fails, the
  /// failure ends the stream and the given publisher is never subscribed to.
  ///
  /// ```swift
  /// let cancellable = firstPage
  ///     .append(secondPage)
  ///     .sink { print($0) }
  /// ```
  ///
  /// - Parameter publisher: The appending publisher.
  public func append<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<Self, P>
  where P.Failure == Failure, P.Output == Output {
    Publishers.Concatenate(prefix: self, suffix: publisher)
  }
}

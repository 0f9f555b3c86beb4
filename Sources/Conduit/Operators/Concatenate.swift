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
    @inlinable
    public init(prefix: Prefix, suffix: Suffix) {
      self.prefix = prefix
      self.suffix = suffix
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      // As in Combine, the subscriber gets its subscription when the prefix hands over its own.
      prefix.subscribe(Inner(downstream: subscriber, suffix: suffix).prefixSide)
    }
  }
}

extension Publishers.Concatenate: Equatable where Prefix: Equatable, Suffix: Equatable {}

extension Publishers.Concatenate: Sendable where Prefix: Sendable, Suffix: Sendable {}

extension Publishers.Concatenate {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = ConcatenateInner<ConcatenateTypes<Suffix, Downstream>>
  where Downstream.Input == Suffix.Output, Downstream.Failure == Suffix.Failure
}

/// The `OperatorLink` of a `ConcatenateInner`: also names the publisher it subscribes to second.
@usableFromInline
protocol ConcatenateLink: OperatorLink where Suffix.Output == Input, Suffix.Failure == Failure {
  /// The publisher republished once the prefix has finished.
  associatedtype Suffix: Publisher
}

/// The `ConcatenateLink` of a subscription that republishes a prefix, then a `Suffix`, to
/// `Downstream`. Never instantiated.
@usableFromInline
enum ConcatenateTypes<Suffix: Publisher, Downstream: Subscriber>: ConcatenateLink {
  @usableFromInline
  typealias Input = Suffix.Output
  @usableFromInline
  typealias Failure = Suffix.Failure
}

/// The subscription the subscriber holds for the whole stream. It subscribes to the prefix, then
/// to the suffix, through two small subscribers of their own (`PrefixSide`, `SuffixSide`), as
/// Combine does: what the prefix sends once it has finished (a value, a second completion) is
/// told apart from what the suffix sends, and dropped. Both sides share its `combineIdentifier`.
/// It counts the demand not yet met so the suffix is asked for exactly what the prefix did not
/// deliver.
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`).
@usableFromInline
final class ConcatenateInner<Types: ConcatenateLink>: SubscriptionRequestHandler, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped,
  @unchecked Sendable
where Types.Downstream.Input == Types.Input, Types.Downstream.Failure == Types.Failure {
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Types.Failure
  @usableFromInline
  typealias Suffix = Types.Suffix
  @usableFromInline
  typealias Downstream = Types.Downstream

  @usableFromInline
  enum Phase {
    case awaitingPrefix
    case prefix
    case awaitingSuffix
    case suffix
    case terminal
  }

  /// Which of the two publishers a call comes from.
  @usableFromInline
  enum Side {
    case prefix
    case suffix

    /// The phase in which this side's values and completion are taken.
    @inlinable
    var activePhase: Phase { self == .prefix ? .prefix : .suffix }
  }

  @usableFromInline
  struct State {
    @usableFromInline
    var phase: Phase
    // Released when the stream ends.
    @usableFromInline
    var downstream: Downstream?
    // Released once subscribed to, or when the stream ends.
    @usableFromInline
    var suffix: Suffix?
    // The subscription to the prefix, then to the suffix.
    @usableFromInline
    var upstream: (any Subscription)?
    // Requested by the subscriber and not yet delivered.
    @usableFromInline
    var demand = Subscribers.Demand.none

    @inlinable
    init(phase: Phase, downstream: Downstream?, suffix: Suffix?) {
      self.phase = phase
      self.downstream = downstream
      self.suffix = suffix
    }

    /// A stream that has completed or been cancelled: nothing held.
    @inlinable
    static var ended: State { State(phase: .terminal, downstream: nil, suffix: nil) }
  }

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
  @usableFromInline
  let census: CensusToken
  // Specialized `request` and `cancel`; see `SubscriptionRequest`.
  @usableFromInline
  let handle: (ConcatenateInner, SubscriptionRequest) -> Void

  @usableFromInline
  var description: String { "Concatenate" }
  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
  @usableFromInline
  var playgroundDescription: Any { description }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(downstream: Downstream, suffix: Suffix) {
    census = CensusToken(ConcatenateInner.self, inheritingFrom: downstream)
    state = Locked(State(phase: .awaitingPrefix, downstream: downstream, suffix: suffix))
    handle = SubscriptionRequest.dispatcher()
  }

  /// The subscriber to the prefix.
  @inlinable
  var prefixSide: PrefixSide { PrefixSide(inner: self) }

  /// What `receive(subscription:)` does once it has recorded the subscription.
  @usableFromInline
  enum Start {
    /// The prefix's subscription: the subscriber gets its own now, and asks through it.
    case subscribe(Downstream)
    /// The suffix's subscription: it is asked for the demand not yet met.
    case request(Subscribers.Demand)
    /// A subscription not wanted (a second one, or one after the end): cancelled.
    case reject
  }

  @inlinable
  func receive(subscription: any Subscription, from side: Side) {
    let start = state.withLock { state -> Start in
      switch (state.phase, side) {
      case (.awaitingPrefix, .prefix):
        guard let downstream = state.downstream else { return .reject }
        state.phase = .prefix
        state.upstream = subscription
        return .subscribe(downstream)
      case (.awaitingSuffix, .suffix):
        state.phase = .suffix
        state.upstream = subscription
        return .request(state.demand)
      default:
        return .reject
      }
    }
    switch start {
    case .subscribe(let downstream): downstream.receive(subscription: self)
    case .request(let demand): if demand > 0 { subscription.request(demand) }
    case .reject: subscription.cancel()
    }
  }

  @inlinable
  func receive(_ input: Input, from side: Side) -> Subscribers.Demand {
    let downstream = state.withLock { state -> Downstream? in
      // A value beyond the demand (from an upstream that breaks the contract) is dropped, as
      // Combine does; so is one from the prefix once it has finished.
      guard state.phase == side.activePhase, state.demand > 0 else { return nil }
      if state.demand != .unlimited { state.demand -= 1 }
      return state.downstream
    }
    guard let downstream else { return .none }
    let more = downstream.receive(input)
    if more > 0 {
      state.withLock { state in
        if state.phase != .terminal { state.demand += more }
      }
    }
    return more
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>, from side: Side) {
    // Either the suffix to subscribe to next, or the subscriber to complete.
    let (suffix, downstream) = state.withLock { state -> (Suffix?, Downstream?) in
      guard state.phase == side.activePhase else { return (nil, nil) }
      state.upstream = nil
      if side == .prefix, case .finished = completion, let suffix = state.suffix {
        state.phase = .awaitingSuffix
        state.suffix = nil
        return (suffix, nil)
      }
      defer { state = State.ended }
      return (nil, state.downstream)
    }
    if let suffix {
      suffix.subscribe(SuffixSide(inner: self))
    } else if let downstream {
      downstream.receive(completion: completion)
    }
  }

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
    // As in Combine, any demand, `.none` too, is passed on to the publisher subscribed to.
    let upstream = state.withLock { state -> (any Subscription)? in
      guard state.phase != .terminal else { return nil }
      state.demand += demand
      return state.upstream
    }
    upstream?.request(demand)
  }

  @inlinable
  func handleCancel() {
    // The subscriber and the suffix leave after the lock: the subscriber's deinit may cancel
    // this subscription.
    let ended = state.exchange(State.ended)
    ended.upstream?.cancel()
  }
}

extension ConcatenateInner {
  /// The subscriber to the prefix: forwards to the subscription, marked as the prefix's.
  @usableFromInline
  struct PrefixSide: Subscriber, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible {
    @usableFromInline
    typealias Input = Types.Input
    @usableFromInline
    typealias Failure = Types.Failure

    @usableFromInline
    let inner: ConcatenateInner

    @inlinable
    init(inner: ConcatenateInner) {
      self.inner = inner
    }

    @inlinable
    var combineIdentifier: CombineIdentifier { inner.combineIdentifier }
    @usableFromInline
    var description: String { inner.description }
    @usableFromInline
    var customMirror: Mirror { inner.customMirror }
    @usableFromInline
    var playgroundDescription: Any { description }

    @inlinable
    func receive(subscription: any Subscription) {
      inner.receive(subscription: subscription, from: .prefix)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
      inner.receive(input, from: .prefix)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
      inner.receive(completion: completion, from: .prefix)
    }
  }

  /// The subscriber to the suffix: forwards to the subscription, marked as the suffix's.
  @usableFromInline
  struct SuffixSide: Subscriber, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible {
    @usableFromInline
    typealias Input = Types.Input
    @usableFromInline
    typealias Failure = Types.Failure

    @usableFromInline
    let inner: ConcatenateInner

    @inlinable
    init(inner: ConcatenateInner) {
      self.inner = inner
    }

    @inlinable
    var combineIdentifier: CombineIdentifier { inner.combineIdentifier }
    @usableFromInline
    var description: String { inner.description }
    @usableFromInline
    var customMirror: Mirror { inner.customMirror }
    @usableFromInline
    var playgroundDescription: Any { description }

    @inlinable
    func receive(subscription: any Subscription) {
      inner.receive(subscription: subscription, from: .suffix)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
      inner.receive(input, from: .suffix)
    }

    @inlinable
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
  @inlinable
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
  @inlinable
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
  @inlinable
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
  @inlinable
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
  @inlinable
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
  @inlinable
  public func append<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<Self, P>
  where P.Failure == Failure, P.Output == Output {
    Publishers.Concatenate(prefix: self, suffix: publisher)
  }
}

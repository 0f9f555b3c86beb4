extension Publishers {
  /// A publisher that publishes only elements that don't match the previous element.
  ///
  /// ```swift
  /// let cancellable = [1, 1, 2, 2, 2, 3, 1].publisher.eraseToAnyPublisher()
  ///     .removeDuplicates()
  ///     .sink { print($0) }   // 1, 2, 3, 1
  /// ```
  public struct RemoveDuplicates<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// A closure to evaluate whether two elements are equivalent, for purposes of filtering.
    public let predicate: (Output, Output) -> Bool

    /// Creates a publisher that publishes only elements that don't match the previous element,
    /// as evaluated by a provided closure.
    @inlinable
    public init(upstream: Upstream, predicate: @escaping (Output, Output) -> Bool) {
      self.upstream = upstream
      self.predicate = predicate
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, predicate: predicate))
    }
  }
}

extension Publishers.RemoveDuplicates {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = RemoveDuplicatesInner<Downstream>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
}

/// The subscriber `removeDuplicates` gives upstream; what it receives goes to its
/// `RemoveDuplicatesSubscription`, which downstream gets as its subscription, as in Combine. Upstream alone
/// holds it, so its deinit, which has the subscription let go of the subscriber, comes after
/// upstream's last call (see `FallibleInner`, which does the same for the operators with a step).
/// It is described and reflected as its subscription is.
///
/// Generic over its downstream alone, as an operator that passes on the values and errors it
/// receives can be: one level of nesting per use rather than two (see `OperatorLink`).
@usableFromInline
final class RemoveDuplicatesInner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
  CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped, @unchecked Sendable
{
  @usableFromInline
  typealias Input = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  let subscription: RemoveDuplicatesSubscription<Downstream>
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var description: String { subscription.description }
  @usableFromInline
  var playgroundDescription: Any { subscription.playgroundDescription }
  @usableFromInline
  var customMirror: Mirror { subscription.customMirror }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(downstream: Downstream, predicate: @escaping (Input, Input) -> Bool) {
    census = CensusToken(RemoveDuplicatesInner.self, inheritingFrom: downstream)
    subscription = RemoveDuplicatesSubscription(downstream: downstream, predicate: predicate)
  }

  deinit {
    subscription.release()
  }

  @inlinable
  func receive(subscription upstream: any Subscription) {
    subscription.receive(subscription: upstream)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    subscription.receive(input)
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>) {
    subscription.receive(completion: completion)
  }

  @usableFromInline
  func request(_ demand: Subscribers.Demand) {
    subscription.request(demand)
  }

  @usableFromInline
  func cancel() {
    subscription.cancel()
  }
}

/// The subscription of `removeDuplicates`, as Combine's is: it remembers the previous element,
/// and a duplicate is replaced by asking upstream for one more, so the total demand is kept. Once
/// the stream has ended (upstream completed, downstream cancelled), downstream's requests and
/// cancels no longer reach upstream, and the subscriber is let go of (at once when upstream's
/// call ends it, else when its `RemoveDuplicatesInner` goes). What reaches it before upstream's
/// subscription is handled as Combine does (it traps on a value, a completion or a request, and
/// a cancel ends the stream).
///
/// No lock: upstream's calls never overlap (contract 3), and where the stream stands is one
/// atomic word (`SubscriptionPhase`), which the value path reads with one relaxed load.
@usableFromInline
final class RemoveDuplicatesSubscription<Downstream: Subscriber>: SubscriptionRequestHandler, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped, @unchecked Sendable
{
  @usableFromInline
  typealias Input = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure

  // The three below are touched only from upstream's calls, which never overlap (contract 3),
  // and from the deinit of the `RemoveDuplicatesInner`, which comes after the last of them, so
  // the runtime check is skipped. `downstream` and `predicate` are `nil` once the stream has
  // ended and upstream's calls have seen it; `previous` is the element received last.
  @usableFromInline @exclusivity(unchecked)
  var downstream: Downstream?
  @usableFromInline @exclusivity(unchecked)
  var predicate: ((Input, Input) -> Bool)?
  @usableFromInline @exclusivity(unchecked)
  var previous: Input?
  // Stored once by `receive(subscription:)` before `phase` says `subscribed`, and read by
  // requests and cancels only after they see that; kept until deinit (see `SubscriptionPhase`).
  @usableFromInline @exclusivity(unchecked)
  var upstream: (any Subscription)?
  @usableFromInline
  let phase = SubscriptionPhase()
  @usableFromInline
  let census: CensusToken
  // Specialized `request` and `cancel`; see `SubscriptionRequest`.
  @usableFromInline
  let handle: (RemoveDuplicatesSubscription, SubscriptionRequest) -> Void

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(downstream: Downstream, predicate: @escaping (Input, Input) -> Bool) {
    census = CensusToken(RemoveDuplicatesSubscription.self, inheritingFrom: downstream)
    self.downstream = downstream
    self.predicate = predicate
    handle = SubscriptionRequest.dispatcher()
  }

  @usableFromInline
  var description: String { "RemoveDuplicates" }
  @usableFromInline
  var playgroundDescription: Any { description }

  // MARK: Upstream's serialized calls, through the `RemoveDuplicatesInner`

  @inlinable
  func receive(subscription: any Subscription) {
    guard phase.isAwaitingSubscription, let downstream else {
      subscription.cancel()
      return
    }
    upstream = subscription
    guard phase.subscribe() else {
      // Cancelled before it came; nothing reads `upstream` unless subscribed.
      upstream = nil
      subscription.cancel()
      return
    }
    downstream.receive(subscription: self)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    if !phase.isSubscribed {
      switch phase.admitValue(.filtering) {
      case .handle: break
      case .ignore: return .none
      case .release:
        release()
        return .none
      }
    }
    guard let downstream, let predicate else { return .none }
    let last = previous
    previous = input
    if let last, predicate(last, input) { return .max(1) }
    return downstream.receive(input)
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>) {
    switch phase.admitCompletion(.filtering) {
    case .handle:
      let downstream = self.downstream
      release()
      downstream?.receive(completion: completion)
    case .ignore: break
    case .release: release()
    }
  }

  /// Lets go of what upstream's calls use.
  @inlinable
  func release() {
    downstream = nil
    predicate = nil
    previous = nil
  }

  // MARK: Subscription (downstream's calls, from any thread)

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
    if phase.admitRequest(demand, .filtering) { upstream?.request(demand) }
  }

  @inlinable
  func handleCancel() {
    if phase.cancel(.filtering) { upstream?.cancel() }
  }

  // MARK: Reflection

  /// A debugging aid, as in Combine: it reads the previous element and the subscriber without
  /// synchronization, so it is meant for a stream that is not delivering at the time.
  @usableFromInline
  var customMirror: Mirror {
    let children: [Mirror.Child] = [
      ("downstream", downstream.map { $0 as Any } ?? downstream as Any), ("last", previous as Any),
    ]
    return Mirror(self, children: children)
  }
}

extension Publisher where Output: Equatable {
  /// Publishes only elements that don't match the previous element.
  ///
  /// ```swift
  /// let cancellable = [0, 1, 2, 2, 3, 3, 3, 4, 0].publisher.eraseToAnyPublisher()
  ///     .removeDuplicates()
  ///     .sink { print($0) }   // 0, 1, 2, 3, 4, 0
  /// ```
  @inlinable
  public func removeDuplicates() -> Publishers.RemoveDuplicates<Self> {
    Publishers.RemoveDuplicates(upstream: self, predicate: ==)
  }
}

extension Publisher {
  /// Publishes only elements that don't match the previous element, as evaluated by a provided
  /// closure.
  ///
  /// The closure receives the element received before and the current one, and returns `true`
  /// when the current one is a duplicate to drop.
  ///
  /// ```swift
  /// let cancellable = [1.0, 1.05, 2.0].publisher.eraseToAnyPublisher()
  ///     .removeDuplicates { abs($0 - $1) < 0.1 }
  ///     .sink { print($0) }   // 1.0, 2.0
  /// ```
  @inlinable
  public func removeDuplicates(
    by predicate: @escaping (Output, Output) -> Bool
  ) -> Publishers.RemoveDuplicates<Self> {
    Publishers.RemoveDuplicates(upstream: self, predicate: predicate)
  }
}

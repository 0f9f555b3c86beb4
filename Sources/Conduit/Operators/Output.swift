extension Publishers {
  /// A publisher that publishes elements specified by a range in the sequence of published
  /// elements.
  ///
  /// Elements before the range are dropped (each one is asked for again from upstream, so the
  /// subscriber's demand is kept); elements in the range pass through. As in Combine, the
  /// publisher learns that the range is over from the next element: on it, it cancels upstream
  /// and finishes. If upstream completes first, the completion passes through.
  ///
  /// ```swift
  /// let cancellable = ["a", "b", "c", "d"].publisher
  ///     .output(in: 1...2)
  ///     .sink { print($0) }   // b, c
  /// ```
  public struct Output<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher that this publisher receives elements from.
    public let upstream: Upstream

    /// The range of elements to publish.
    public let range: CountableRange<Int>

    /// Creates a publisher that publishes elements specified by a range.
    ///
    /// - Precondition: The range's bounds are not negative.
    @inlinable
    public init(upstream: Upstream, range: CountableRange<Int>) {
      precondition(
        range.lowerBound >= 0,
        "Publishers.Output(range: \(range)): the range must not start below 0; element indices start at 0")
      self.upstream = upstream
      self.range = range
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, range: range))
    }
  }
}

extension Publishers.Output: Equatable where Upstream: Equatable {}

extension Publishers.Output {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = OutputInner<Downstream>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
}

/// The subscriber `output(in:)` gives upstream; what it receives goes to its
/// `OutputSubscription`, which downstream gets as its subscription, as in Combine. Upstream alone
/// holds it, so its deinit, which has the subscription let go of the subscriber, comes after
/// upstream's last call (see `FallibleInner`, which does the same for the operators with a step).
/// It is described and reflected as its subscription is.
///
/// Generic over its downstream alone, as an operator that passes on the values and errors it
/// receives can be: one level of nesting per use rather than two (see `OperatorLink`).
@usableFromInline
final class OutputInner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
  CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped, @unchecked Sendable
{
  @usableFromInline
  typealias Input = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  let subscription: OutputSubscription<Downstream>
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
  init(downstream: Downstream, range: CountableRange<Int>) {
    census = CensusToken(OutputInner.self, inheritingFrom: downstream)
    subscription = OutputSubscription(downstream: downstream, range: range)
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

/// The subscription of `output(in:)`, as Combine's is: it counts upstream's
/// elements and passes on those in the range; at the first element after the range it cancels
/// upstream and finishes. Once the stream has ended (that, upstream completed, downstream
/// cancelled), downstream's requests and cancels no longer reach upstream, and the subscriber
/// is let go of (at once when upstream's call ends it, else when its `OutputInner` goes). As in
/// Combine, an element before upstream's subscription is counted like any other (but the range's
/// end does not end the stream until the subscription has come), and a completion, request or
/// cancel before it is ignored.
///
/// No lock: upstream's calls never overlap (contract 3), and where the stream stands is one
/// atomic word (`SubscriptionPhase`), which the value path reads with one relaxed load.
@usableFromInline
final class OutputSubscription<Downstream: Subscriber>: SubscriptionRequestHandler, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped, @unchecked Sendable
{
  @usableFromInline
  typealias Input = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure

  // The three below are touched only from upstream's serialized calls and from the deinit of
  // the `OutputInner`, which comes after the last of them, so the runtime exclusivity check is
  // skipped. `downstream` is `nil` once the stream has ended and upstream's
  // calls have seen it.
  @usableFromInline @exclusivity(unchecked)
  var downstream: Downstream?
  @usableFromInline @exclusivity(unchecked)
  var remainingUntilStart: Int
  @usableFromInline @exclusivity(unchecked)
  var remainingCount: Int
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
  let handle: (OutputSubscription, SubscriptionRequest) -> Void

  @usableFromInline
  var description: String { "Output" }
  @usableFromInline
  var playgroundDescription: Any { description }
  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: [:]) }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(downstream: Downstream, range: CountableRange<Int>) {
    census = CensusToken(OutputSubscription.self, inheritingFrom: downstream)
    self.downstream = downstream
    remainingUntilStart = range.lowerBound
    remainingCount = range.count
    handle = SubscriptionRequest.dispatcher()
  }

  // MARK: Upstream's serialized calls, through the `OutputInner`

  @inlinable
  func receive(subscription: any Subscription) {
    guard phase.isAwaitingSubscription, let downstream else {
      subscription.cancel()
      return
    }
    upstream = subscription
    guard phase.subscribe() else {
      // Ended before it came; nothing reads `upstream` unless subscribed.
      upstream = nil
      subscription.cancel()
      return
    }
    downstream.receive(subscription: self)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    if !phase.isSubscribed {
      switch phase.admitValue(.accumulating) {
      case .handle: break
      case .ignore: return .none
      case .release:
        release()
        return .none
      }
    }
    guard let downstream else { return .none }
    if remainingUntilStart > 0 {
      remainingUntilStart -= 1
      return .max(1)
    }
    if remainingCount > 0 {
      remainingCount -= 1
      return downstream.receive(input)
    }
    guard let ending = phase.end(.accumulating) else { return .none }
    release()
    if ending.cancelsUpstream { upstream?.cancel() }
    if ending.completesDownstream { downstream.receive(completion: .finished) }
    return .none
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>) {
    switch phase.admitCompletion(.accumulating) {
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
    if phase.admitRequest(demand, .accumulating) { upstream?.request(demand) }
  }

  @inlinable
  func handleCancel() {
    if phase.cancel(.accumulating) { upstream?.cancel() }
  }
}

extension Publisher {
  /// Publishes a specific element, indicated by its index in the sequence of published
  /// elements.
  ///
  /// If the publisher completes normally or with an error before publishing the specified
  /// element, then the publisher doesn't produce any elements.
  ///
  /// ```swift
  /// let cancellable = ["a", "b", "c"].publisher
  ///     .output(at: 1)
  ///     .sink { print($0) }   // b
  /// ```
  ///
  /// - Parameter index: The index that indicates the element to publish; not negative.
  @inlinable
  public func output(at index: Int) -> Publishers.Output<Self> {
    precondition(
      index >= 0 && index < Int.max,
      "output(at: \(index)): the index must be between 0 and Int.max - 1; element indices start at 0")
    return Publishers.Output(upstream: self, range: index..<(index + 1))
  }

  /// Publishes elements specified by their range in the sequence of published elements.
  ///
  /// After all elements are published, the publisher finishes normally. If the publisher
  /// completes normally or with an error before producing all the elements in the range, it
  /// doesn't publish the remaining elements.
  ///
  /// ```swift
  /// let cancellable = (10...20).publisher
  ///     .output(in: 3...5)
  ///     .sink { print($0) }   // 13, 14, 15
  /// ```
  ///
  /// - Parameter range: A range that indicates which elements to publish, by index from 0.
  @inlinable
  public func output<R: RangeExpression>(in range: R) -> Publishers.Output<Self> where R.Bound == Int {
    Publishers.Output(upstream: self, range: range.relative(to: 0..<Int.max))
  }
}

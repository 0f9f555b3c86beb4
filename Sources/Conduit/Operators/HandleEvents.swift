extension Publishers {
  /// A publisher that performs the specified closures when publisher events occur.
  ///
  /// ```swift
  /// let cancellable = [1, 2].publisher
  ///     .handleEvents(receiveOutput: { print("saw", $0) }, receiveCompletion: { print("done", $0) })
  ///     .sink { _ in }
  /// ```
  public struct HandleEvents<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// A closure that executes when the publisher receives the subscription from the upstream
    /// publisher.
    public var receiveSubscription: ((any Subscription) -> Void)?

    /// A closure that executes when the publisher receives a value from the upstream publisher.
    public var receiveOutput: ((Upstream.Output) -> Void)?

    /// A closure that executes when the publisher receives the completion from the upstream
    /// publisher.
    public var receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Void)?

    /// A closure that executes when the downstream receiver cancels publishing.
    public var receiveCancel: (() -> Void)?

    /// A closure that executes when the publisher receives a request for more elements, from
    /// the subscriber's `request(_:)` or from the demand its `receive(_:)` returns.
    public var receiveRequest: ((Subscribers.Demand) -> Void)?

    /// Creates a publisher that performs the specified closures when publisher events occur.
    @inlinable
    public init(
      upstream: Upstream,
      receiveSubscription: ((any Subscription) -> Void)? = nil,
      receiveOutput: ((Upstream.Output) -> Void)? = nil,
      receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Void)? = nil,
      receiveCancel: (() -> Void)? = nil,
      receiveRequest: ((Subscribers.Demand) -> Void)?
    ) {
      self.upstream = upstream
      self.receiveSubscription = receiveSubscription
      self.receiveOutput = receiveOutput
      self.receiveCompletion = receiveCompletion
      self.receiveCancel = receiveCancel
      self.receiveRequest = receiveRequest
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        Inner(
          downstream: subscriber,
          handlers: Handlers(
            receiveSubscription: receiveSubscription, receiveOutput: receiveOutput,
            receiveCompletion: receiveCompletion, receiveCancel: receiveCancel, receiveRequest: receiveRequest)))
    }
  }
}

extension Publishers.HandleEvents {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = HandleEventsInner<Downstream>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure

  @usableFromInline
  typealias Handlers = HandleEventsHandlers<Upstream.Output, Upstream.Failure>
}

/// The user's closures, held by a subscription until it ends.
@usableFromInline
struct HandleEventsHandlers<Input, Failure: Error> {
  @usableFromInline
  let receiveSubscription: ((any Subscription) -> Void)?
  @usableFromInline
  let receiveOutput: ((Input) -> Void)?
  @usableFromInline
  let receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)?
  @usableFromInline
  let receiveCancel: (() -> Void)?
  @usableFromInline
  let receiveRequest: ((Subscribers.Demand) -> Void)?

  @inlinable
  init(
    receiveSubscription: ((any Subscription) -> Void)?,
    receiveOutput: ((Input) -> Void)?,
    receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)?,
    receiveCancel: (() -> Void)?,
    receiveRequest: ((Subscribers.Demand) -> Void)?
  ) {
    self.receiveSubscription = receiveSubscription
    self.receiveOutput = receiveOutput
    self.receiveCompletion = receiveCompletion
    self.receiveCancel = receiveCancel
    self.receiveRequest = receiveRequest
  }
}

/// Stands between upstream and downstream as the subscription, so that it sees requests and
/// cancellation. The downstream and the closures wait in the locked state for the upstream
/// subscription, then move with it into a `Targets` object that the state holds; each call takes
/// a reference to that object out of the lock, and the state drops it when the stream completes
/// or is cancelled.
///
/// Before the upstream's subscription arrives it behaves as Combine's does: a value or a
/// completion passes through to the downstream, a request or a cancel only runs its closure, and
/// every subscription that arrives runs `receiveSubscription`, a rejected second one too.
///
/// Generic over its downstream alone, as an operator that passes on the values and errors it
/// receives can be: one level of nesting per use rather than two (see `OperatorLink`).
@usableFromInline
final class HandleEventsInner<Downstream: Subscriber>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped,
  Sendable
{
  @usableFromInline
  typealias Input = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure
  @usableFromInline
  typealias Handlers = HandleEventsHandlers<Input, Failure>

  /// Everything a subscribed stream calls, in one object that never changes: taking it out of the
  /// state retains one reference, where copying the downstream, the five optional closures and the
  /// upstream subscription out would retain and release each of them around every value. The state
  /// drops it when the stream completes or is cancelled, and it goes with the last call that
  /// still runs.
  @usableFromInline
  final class Targets {
    @usableFromInline
    let downstream: Downstream
    @usableFromInline
    let handlers: Handlers
    @usableFromInline
    let upstream: any Subscription

    @inlinable
    init(downstream: Downstream, handlers: Handlers, upstream: any Subscription) {
      self.downstream = downstream
      self.handlers = handlers
      self.upstream = upstream
    }
  }

  @usableFromInline
  enum State {
    case awaitingSubscription(Downstream, Handlers)
    case subscribed(Targets)
    case terminal
  }

  /// What `receive(subscription:)` found.
  @usableFromInline
  enum Arrival {
    /// The first subscription: the closure runs, then the stream is subscribed.
    case first(Downstream, Handlers)
    /// One more while subscribed: the closure runs, then it is cancelled.
    case extra(Handlers)
    /// One after the end: cancelled.
    case late
  }

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var description: String { "HandleEvents" }
  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
  @usableFromInline
  var playgroundDescription: Any { description }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(downstream: Downstream, handlers: Handlers) {
    census = CensusToken(HandleEventsInner.self, inheritingFrom: downstream)
    state = Locked(.awaitingSubscription(downstream, handlers))
  }

  @usableFromInline
  func receive(subscription: any Subscription) {
    let arrival = state.withLock { state -> Arrival in
      switch state {
      case .awaitingSubscription(let downstream, let handlers): return .first(downstream, handlers)
      case .subscribed(let targets): return .extra(targets.handlers)
      case .terminal: return .late
      }
    }
    switch arrival {
    case .first(let downstream, let handlers):
      handlers.receiveSubscription?(subscription)
      let targets = Targets(downstream: downstream, handlers: handlers, upstream: subscription)
      let subscribed = state.withLock { state -> Bool in
        guard case .awaitingSubscription = state else { return false }
        state = .subscribed(targets)
        return true
      }
      guard subscribed else {
        subscription.cancel()
        return
      }
      downstream.receive(subscription: self)
    case .extra(let handlers):
      handlers.receiveSubscription?(subscription)
      subscription.cancel()
    case .late:
      subscription.cancel()
    }
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    whileSubscribed { targets in
      Self.pass(input, to: targets.downstream, handlers: targets.handlers)
    } ?? receiveBeforeSubscription(input)
  }

  /// A value that comes before the subscription passes through, as in Combine; one after the end
  /// is dropped.
  @inlinable @inline(never)
  func receiveBeforeSubscription(_ input: Input) -> Subscribers.Demand {
    let awaiting = state.withLock { state -> (Downstream, Handlers)? in
      guard case .awaitingSubscription(let downstream, let handlers) = state else { return nil }
      return (downstream, handlers)
    }
    guard let (downstream, handlers) = awaiting else { return .none }
    return Self.pass(input, to: downstream, handlers: handlers)
  }

  @inlinable @inline(__always)
  static func pass(_ input: Input, to downstream: Downstream, handlers: Handlers) -> Subscribers.Demand {
    handlers.receiveOutput?(input)
    let demand = downstream.receive(input)
    if demand > 0 { handlers.receiveRequest?(demand) }
    return demand
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    // Taken out, so that the downstream and the closures are released after the lock. A
    // completion before the subscription passes through too, as in Combine.
    let ended = state.exchange(.terminal)
    let targets: (Downstream, Handlers)
    switch ended {
    case .subscribed(let subscribed): targets = (subscribed.downstream, subscribed.handlers)
    case .awaitingSubscription(let downstream, let handlers): targets = (downstream, handlers)
    case .terminal: return
    }
    targets.1.receiveCompletion?(completion)
    targets.0.receive(completion: completion)
  }

  /// Calls `body` with the targets if the stream is subscribed, outside the lock. The targets are
  /// retained once, under the lock, and lent to `body` from that reference, so that the closures
  /// and the downstream read from them are not retained again.
  @inlinable @inline(__always)
  func whileSubscribed<Result>(_ body: (Targets) -> Result) -> Result? {
    state.withRetained(
      { state -> Targets? in
        guard case .subscribed(let targets) = state else { return nil }
        return targets
      },
      then: body)
  }

  /// The closures while the subscription has not arrived, for the calls that only run them.
  @inlinable
  func handlersBeforeSubscription() -> Handlers? {
    state.withLock { state -> Handlers? in
      guard case .awaitingSubscription(_, let handlers) = state else { return nil }
      return handlers
    }
  }

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    // As in Combine, any demand, `.none` too, is reported and passed on; one made before the
    // subscription is only reported.
    let forwarded: Void? = whileSubscribed { targets in
      targets.handlers.receiveRequest?(demand)
      targets.upstream.request(demand)
    }
    if forwarded == nil { handlersBeforeSubscription()?.receiveRequest?(demand) }
  }

  @usableFromInline
  func cancel() {
    // Taken out rather than only dropped, so that the downstream and the closures, with whatever
    // they captured, are released after the lock, when the calls below return.
    let active = state.withLock { state -> Targets? in
      guard case .subscribed(let targets) = state else { return nil }
      state = .terminal
      return targets
    }
    guard let targets = active else {
      // As in Combine, a cancel before the subscription only runs its closure.
      handlersBeforeSubscription()?.receiveCancel?()
      return
    }
    targets.handlers.receiveCancel?()
    targets.upstream.cancel()
  }
}

extension Publisher {
  /// Performs the specified closures when publisher events occur.
  ///
  /// `receiveSubscription` runs when the subscription arrives from upstream, before the
  /// subscriber gets it; `receiveOutput` and `receiveCompletion` run before the subscriber
  /// receives the value or the completion; `receiveRequest` runs for each request the
  /// subscriber makes and for each positive demand its `receive(_:)` returns; `receiveCancel`
  /// runs when the subscriber cancels, before upstream is cancelled.
  ///
  /// ```swift
  /// let cancellable = (1...3).publisher
  ///     .handleEvents(
  ///         receiveSubscription: { _ in print("subscribed") },
  ///         receiveOutput: { print("value", $0) },
  ///         receiveCompletion: { print("completion", $0) },
  ///         receiveCancel: { print("cancelled") },
  ///         receiveRequest: { print("request", $0) })
  ///     .sink { _ in }
  /// ```
  ///
  /// - Parameters:
  ///   - receiveSubscription: Runs when the publisher receives the subscription from upstream.
  ///   - receiveOutput: Runs when the publisher receives a value from upstream.
  ///   - receiveCompletion: Runs when the publisher receives the completion from upstream.
  ///   - receiveCancel: Runs when the downstream subscriber cancels.
  ///   - receiveRequest: Runs when the publisher receives a request for more elements.
  @inlinable
  public func handleEvents(
    receiveSubscription: ((any Subscription) -> Void)? = nil,
    receiveOutput: ((Output) -> Void)? = nil,
    receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
    receiveCancel: (() -> Void)? = nil,
    receiveRequest: ((Subscribers.Demand) -> Void)? = nil
  ) -> Publishers.HandleEvents<Self> {
    Publishers.HandleEvents(
      upstream: self, receiveSubscription: receiveSubscription, receiveOutput: receiveOutput,
      receiveCompletion: receiveCompletion, receiveCancel: receiveCancel, receiveRequest: receiveRequest)
  }
}

import Synchronization

extension Publishers {
  /// A publisher that handles errors from an upstream publisher by replacing the failed
  /// publisher with another publisher.
  ///
  /// When the upstream fails, the handler's publisher is subscribed to and asked for the demand
  /// the downstream had left.
  ///
  /// ```swift
  /// let cancellable = api.fetchUser()
  ///     .catch { _ in Just(User.guest) }
  ///     .sink { print($0) }
  /// ```
  public struct Catch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
  where Upstream.Output == NewPublisher.Output {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = NewPublisher.Failure

    /// The publisher that this publisher receives elements from.
    public let upstream: Upstream

    /// A closure that accepts the upstream failure as input and returns a publisher to replace
    /// the upstream publisher.
    public let handler: (Upstream.Failure) -> NewPublisher

    /// Creates a publisher that handles errors from an upstream publisher by replacing the
    /// failed publisher with another publisher.
    public init(upstream: Upstream, handler: @escaping (Upstream.Failure) -> NewPublisher) {
      self.upstream = upstream
      self.handler = handler
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let handler = self.handler
      upstream.subscribe(
        Inner<S>(
          downstream: subscriber,
          handler: { .success(handler($0)) },
          replacementFailure: { $0 },
          description: "Catch"))
    }
  }
}

extension Publishers.Catch {
  typealias Inner<Downstream: Subscriber> = CatchSubscription<
    CatchTypes<Upstream.Output, Upstream.Failure, NewPublisher, Downstream>
  >
  where Downstream.Input == Output
}

/// The `OperatorLink` of a `CatchSubscription`: also names the replacement publisher.
protocol CatchLink: OperatorLink where NewPublisher.Output == Input {
  /// The kind of publisher that replaces the upstream when it fails.
  associatedtype NewPublisher: Publisher
}

/// The `CatchLink` of a subscription that receives `Input` and `Failure`, replaces a failed
/// upstream with a `NewPublisher`, and sends on to `Downstream`. Never instantiated.
enum CatchTypes<Input, Failure: Error, NewPublisher: Publisher, Downstream: Subscriber>: CatchLink
where NewPublisher.Output == Input {}

/// The decisions of a `catch` or `tryCatch` subscription, kept apart from its calls out
/// (DESIGN.md §3): each event updates the state under the subscription's lock and says what the
/// subscription does once the lock is released.
///
/// The stream runs on the upstream until it fails, then on the publisher the handler makes from
/// the failure. `demand` counts what the downstream asked for and has not received, in every state
/// before the end, so that the replacement is asked for exactly what the upstream left.
struct CatchStateMachine<Downstream: Subscriber, Handler> {
  typealias Targets = SubscribedTargets<Downstream>

  enum State {
    /// The upstream is being subscribed to; its subscription has not arrived.
    case awaitingUpstream(Downstream, handler: Handler)
    /// The upstream's values go to the downstream; the handler waits for the upstream to fail.
    case upstream(Targets, handler: Handler)
    /// The upstream failed: the handler is making the replacement, or the replacement is being
    /// subscribed to and its subscription has not arrived.
    case awaitingReplacement(Downstream)
    /// The replacement's values go to the downstream.
    case replacement(Targets)
    /// The downstream has its completion, or cancelled: nothing is held.
    case terminal

    /// The downstream, until the stream ends.
    var downstream: Downstream? {
      switch self {
      case .awaitingUpstream(let downstream, _), .awaitingReplacement(let downstream): downstream
      case .upstream(let targets, _), .replacement(let targets): targets.downstream
      case .terminal: nil
      }
    }
  }

  typealias SubscriptionAction = SuccessiveSubscriptionAction<Downstream>

  /// What to do with a value from the upstream or from the replacement.
  enum ValueAction {
    /// Hand the value to the downstream of these targets.
    case deliver(Targets)
    /// From a publisher that is no longer the current one, or after the end: drop it.
    case ignore
    /// The upstream sent a value beyond the demand, or before its subscription: a broken
    /// contract, which stops the process as in Combine.
    case unrequested
  }

  /// What to do once the upstream has failed.
  enum FailureAction {
    /// After the end: nothing.
    case none
    /// Make the replacement with the handler, and subscribe to it; `failed` is the upstream's
    /// targets, let go of after the lock.
    case replace(Handler, failed: Targets)
    /// The upstream failed before its subscription or after failing once: a broken contract,
    /// which stops the process as in Combine.
    case outOfOrder
  }

  /// What to do once the stream may have ended.
  enum CompletionAction {
    /// The completion is not the stream's (it comes from a publisher no longer current, or after
    /// the end): nothing.
    case none
    /// Send the completion to the downstream; `ended` is what the stream held, let go of after
    /// the lock, as the deinits of the handler's captures may call back into the subscription.
    case complete(Downstream, ended: State)
  }

  typealias RequestAction = SuccessiveRequestAction<Targets>

  typealias CancelAction = SuccessiveCancelAction<Targets, State>

  var state: State
  /// What the downstream asked for and has not received yet.
  var demand = Subscribers.Demand.none

  init(downstream: Downstream, handler: Handler) {
    state = .awaitingUpstream(downstream, handler: handler)
  }

  /// The downstream, until the stream ends.
  var downstream: Downstream? { state.downstream }

  // MARK: Upstream

  /// The upstream's subscription.
  mutating func receiveUpstream(subscription: any Subscription) -> SubscriptionAction {
    guard case .awaitingUpstream(let downstream, let handler) = state else { return .cancel }
    state = .upstream(Targets(downstream: downstream, upstream: subscription), handler: handler)
    return .handDown(downstream)
  }

  /// A value from the upstream, counted against the demand when it is delivered.
  mutating func receiveUpstreamValue() -> ValueAction {
    switch state {
    case .upstream(let targets, _):
      guard demand != .none else { return .unrequested }
      takeOne()
      return .deliver(targets)
    case .awaitingUpstream:
      return .unrequested
    case .awaitingReplacement, .replacement, .terminal:
      return .ignore
    }
  }

  /// The upstream finished: so does the stream, unless the upstream is no longer current.
  mutating func upstreamFinished() -> CompletionAction {
    guard case .upstream = state else { return .none }
    return complete()
  }

  /// The upstream failed: the handler is to make the replacement, and is let go of.
  mutating func upstreamFailed() -> FailureAction {
    switch state {
    case .upstream(let targets, let handler):
      state = .awaitingReplacement(targets.downstream)
      return .replace(handler, failed: targets)
    case .awaitingUpstream, .awaitingReplacement, .replacement:
      return .outOfOrder
    case .terminal:
      return .none
    }
  }

  /// The handler threw (`tryCatch`): the stream fails with what it threw.
  mutating func handlerThrew() -> CompletionAction {
    guard case .awaitingReplacement = state else { return .none }
    return complete()
  }

  // MARK: Replacement

  /// The replacement's subscription.
  mutating func receiveReplacement(subscription: any Subscription) -> SubscriptionAction {
    guard case .awaitingReplacement(let downstream) = state else { return .cancel }
    state = .replacement(Targets(downstream: downstream, upstream: subscription))
    return demand == .none ? .none : .request(demand)
  }

  /// A value from the replacement. As in Combine, it is not checked against the demand.
  mutating func receiveReplacementValue() -> ValueAction {
    guard case .replacement(let targets) = state else { return .ignore }
    takeOne()
    return .deliver(targets)
  }

  /// The replacement completed: so does the stream.
  mutating func replacementCompleted() -> CompletionAction {
    guard case .replacement = state else { return .none }
    return complete()
  }

  // MARK: Downstream

  /// The demand the downstream returned for a value it received, while a subscription is current.
  mutating func add(_ more: Subscribers.Demand) {
    switch state {
    case .upstream, .replacement: demand += more
    case .awaitingUpstream, .awaitingReplacement, .terminal: break
    }
  }

  /// A request from the downstream: counted until the end, and passed on to the current
  /// subscription.
  mutating func request(_ more: Subscribers.Demand) -> RequestAction {
    switch state {
    case .upstream(let targets, _), .replacement(let targets):
      demand += more
      return .forward(targets)
    case .awaitingUpstream, .awaitingReplacement:
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
    case .upstream(let targets, _), .replacement(let targets): return .cancel(targets, ended: ended)
    case .awaitingUpstream, .awaitingReplacement: return .cancel(nil, ended: ended)
    case .terminal: return .none
    }
  }

  mutating func takeOne() {
    if demand != .unlimited { demand -= 1 }
  }

  /// Ends the stream, returning the completion to send and what the stream held.
  mutating func complete() -> CompletionAction {
    let ended = end()
    guard let downstream = ended.downstream else { return .none }
    return .complete(downstream, ended: ended)
  }

  /// Ends the stream: returns what it held, to be let go of after the lock.
  mutating func end() -> State {
    var ended = State.terminal
    swap(&ended, &state)
    return ended
  }
}

/// The subscription of `catch` and `tryCatch`: forwards the upstream, and on its failure
/// subscribes to the handler's publisher with the demand left over. Its decisions are a
/// `CatchStateMachine`'s.
///
/// `handler` returns the replacement publisher, or (for `tryCatch`) the error it threw;
/// `replacementFailure` turns the replacement's failure into the downstream's.
///
/// Calls into the downstream do not overlap without further care: the replacement is subscribed
/// only after the upstream has failed, and each of them serializes its own calls.
///
/// As in Combine, an upstream that breaks the contract in a way that would make the two overlap
/// or the demand go wrong stops the process: a value beyond the demand (or before the
/// subscription), a failure before the subscription, a failure after the first one.
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`).
final class CatchSubscription<Types: CatchLink>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped
where Types.Downstream.Input == Types.Input {
  typealias Input = Types.Input
  typealias Failure = Types.Failure
  typealias NewPublisher = Types.NewPublisher
  typealias Downstream = Types.Downstream
  typealias Handler = (Failure) -> Result<NewPublisher, Downstream.Failure>
  typealias Machine = CatchStateMachine<Downstream, Handler>

  // Guarded by its own lock.
  let state: Locked<Machine>
  let replacementFailure: (NewPublisher.Failure) -> Downstream.Failure
  let census: CensusToken

  let description: String
  var censusScope: CensusScope? { census.scope }

  /// The downstream (while the stream lasts) and the demand not yet met, as Combine reflects them.
  var customMirror: Mirror {
    let (downstream, demand) = state.withLock { ($0.downstream, $0.demand) }
    let downstreamChild: Any = if let downstream { downstream } else { downstream as Any }
    let children: [Mirror.Child] = [("downstream", downstreamChild), ("demand", demand)]
    return Mirror(self, children: children)
  }

  var playgroundDescription: Any { description }

  init(
    downstream: Downstream,
    handler: @escaping Handler,
    replacementFailure: @escaping (NewPublisher.Failure) -> Downstream.Failure,
    description: String
  ) {
    self.description = description
    census = CensusToken(CatchSubscription.self, inheritingFrom: downstream)
    state = Locked(Machine(downstream: downstream, handler: handler))
    self.replacementFailure = replacementFailure
  }

  // MARK: Upstream

  func receive(subscription: any Subscription) {
    state.withLock { $0.receiveUpstream(subscription: subscription) }.perform(for: subscription, handingDown: self)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    deliver(input, fromReplacement: false)
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    switch completion {
    case .finished:
      complete(state.withLock { $0.upstreamFinished() }, with: .finished)
    case .failure(let error):
      switch state.withLock({ $0.upstreamFailed() }) {
      case .none:
        return
      case .outOfOrder:
        preconditionFailure(
          "\(description): the upstream failed before its subscription or after failing once; a publisher sends its subscription first and completes at most once"
        )
      case .replace(let handler, _):
        // The upstream's targets leave with the action, after the lock.
        switch handler(error) {
        case .success(let replacement):
          replacement.subscribe(Replacement(parent: self))
        case .failure(let thrown):
          complete(state.withLock { $0.handlerThrew() }, with: .failure(thrown))
        }
      }
    }
  }

  // MARK: Replacement

  func replacementSubscribed(_ subscription: any Subscription) {
    state.withLock { $0.receiveReplacement(subscription: subscription) }.perform(for: subscription, handingDown: self)
  }

  func replacementCompleted(_ completion: Subscribers.Completion<NewPublisher.Failure>) {
    let action = state.withLock { $0.replacementCompleted() }
    switch completion {
    case .finished: complete(action, with: .finished)
    case .failure(let error): complete(action, with: .failure(replacementFailure(error)))
    }
  }

  // MARK: Performing the machine's actions

  func complete(_ action: Machine.CompletionAction, with completion: Subscribers.Completion<Downstream.Failure>) {
    // What the stream held leaves with the action, after the lock.
    guard case .complete(let downstream, _) = action else { return }
    downstream.receive(completion: completion)
  }

  func deliver(_ input: Input, fromReplacement: Bool) -> Subscribers.Demand {
    guard
      let more = state.withRetained(
        { state -> Machine.Targets? in
          switch fromReplacement ? state.receiveReplacementValue() : state.receiveUpstreamValue() {
          case .deliver(let targets): return targets
          case .ignore: return nil
          case .unrequested: preconditionFailure("\(description): \(Self.unwantedValue)")
          }
        },
        then: { $0.downstream.receive(input) })
    else { return .none }
    if more != .none {
      state.withLock { $0.add(more) }
    }
    return more
  }

  static var unwantedValue: String {
    "the upstream sent a value the subscriber had not requested; a publisher must not send more values than were demanded"
  }

  // MARK: Downstream

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    state.withRetained(
      { state -> Machine.Targets? in
        guard case .forward(let targets) = state.request(demand) else { return nil }
        return targets
      },
      then: { $0.upstream.request(demand) })
  }

  func cancel() {
    // What the stream held leaves with the action, after the lock: the downstream's and the
    // handler's deinits may run arbitrary code.
    guard case .cancel(let current, _) = state.withLock({ $0.cancel() }) else { return }
    current?.upstream.cancel()
  }
}

extension CatchSubscription {
  /// Subscribes to the replacement publisher. Created when the upstream fails, possibly on
  /// another thread, so it takes its census scope from the catch's subscription.
  final class Replacement: Subscriber, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
    CensusScoped
  {
    typealias Input = NewPublisher.Output
    typealias Failure = NewPublisher.Failure

    let parent: CatchSubscription
    let census: CensusToken

    var description: String { parent.description }
    var customMirror: Mirror { parent.customMirror }
    var playgroundDescription: Any { description }
    var censusScope: CensusScope? { census.scope }

    init(parent: CatchSubscription) {
      census = CensusToken(Replacement.self, inheritingFrom: parent)
      self.parent = parent
    }

    func receive(subscription: any Subscription) {
      parent.replacementSubscribed(subscription)
    }

    func receive(_ input: NewPublisher.Output) -> Subscribers.Demand {
      parent.deliver(input, fromReplacement: true)
    }

    func receive(completion: Subscribers.Completion<NewPublisher.Failure>) {
      parent.replacementCompleted(completion)
    }
  }
}

extension Publisher {
  /// Handles errors from an upstream publisher by replacing it with another publisher.
  ///
  /// ```swift
  /// let cancellable = loadFromNetwork()
  ///     .catch { _ in loadFromCache() }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  ///
  /// - Parameter handler: A closure that accepts the upstream failure as input and returns a
  ///   publisher to replace the upstream publisher.
  public func `catch`<P: Publisher>(_ handler: @escaping (Failure) -> P) -> Publishers.Catch<Self, P>
  where Output == P.Output {
    Publishers.Catch(upstream: self, handler: handler)
  }
}

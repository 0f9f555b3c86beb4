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
    @inlinable
    public init(upstream: Upstream, handler: @escaping (Upstream.Failure) -> NewPublisher) {
      self.upstream = upstream
      self.handler = handler
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
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
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = CatchSubscription<
    CatchTypes<Upstream.Output, Upstream.Failure, NewPublisher, Downstream>
  >
  where Downstream.Input == Output
}

/// The `OperatorLink` of a `CatchSubscription`: also names the replacement publisher.
@usableFromInline
protocol CatchLink: OperatorLink where NewPublisher.Output == Input {
  /// The kind of publisher that replaces the upstream when it fails.
  associatedtype NewPublisher: Publisher
}

/// The `CatchLink` of a subscription that receives `Input` and `Failure`, replaces a failed
/// upstream with a `NewPublisher`, and sends on to `Downstream`. Never instantiated.
@usableFromInline
enum CatchTypes<Input, Failure: Error, NewPublisher: Publisher, Downstream: Subscriber>: CatchLink
where NewPublisher.Output == Input {}

/// The subscription of `catch` and `tryCatch`: forwards the upstream, and on its failure
/// subscribes to the handler's publisher with the demand left over.
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
@usableFromInline
final class CatchSubscription<Types: CatchLink>: Subscriber, SubscriptionRequestHandler, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped, @unchecked Sendable
where Types.Downstream.Input == Types.Input {
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Types.Failure
  @usableFromInline
  typealias NewPublisher = Types.NewPublisher
  @usableFromInline
  typealias Downstream = Types.Downstream

  @usableFromInline
  typealias Targets = SubscribedTargets<Downstream>

  @usableFromInline
  enum Phase {
    case awaitingUpstream
    case upstream(Targets)
    /// The upstream failed; the replacement's subscription has not arrived yet.
    case awaitingReplacement
    case replacement(Targets)
    case done
  }

  /// What `State.end` lets go of, for the caller to release after the lock.
  @usableFromInline
  typealias Ended = (
    downstream: Downstream?, targets: Targets?, handler: ((Failure) -> Result<NewPublisher, Downstream.Failure>)?
  )

  @usableFromInline
  struct State {
    @usableFromInline
    var phase = Phase.awaitingUpstream
    /// What the downstream asked for and has not received yet.
    @usableFromInline
    var demand = Subscribers.Demand.none
    @usableFromInline
    var downstream: Downstream?
    @usableFromInline
    var handler: ((Failure) -> Result<NewPublisher, Downstream.Failure>)?

    @inlinable
    init(downstream: Downstream, handler: @escaping (Failure) -> Result<NewPublisher, Downstream.Failure>) {
      self.downstream = downstream
      self.handler = handler
    }

    /// Ends the subscription and lets go of the downstream and the handler; returns the
    /// downstream, the targets and the handler (and what it captured), to be released after the
    /// lock.
    @inlinable
    mutating func end() -> Ended {
      let targets: Targets? =
        switch phase {
        case .upstream(let targets), .replacement(let targets): targets
        default: nil
        }
      phase = .done
      defer {
        downstream = nil
        handler = nil
      }
      return (downstream, targets, handler)
    }
  }

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
  @usableFromInline
  let replacementFailure: (NewPublisher.Failure) -> Downstream.Failure
  @usableFromInline
  let census: CensusToken
  // Specialized `request` and `cancel`; see `SubscriptionRequest`.
  @usableFromInline
  let handle: (CatchSubscription, SubscriptionRequest) -> Void

  @usableFromInline
  let description: String
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  /// The downstream (while the stream lasts) and the demand not yet met, as Combine reflects them.
  @usableFromInline
  var customMirror: Mirror {
    let (downstream, demand) = state.withLock { ($0.downstream, $0.demand) }
    let downstreamChild: Any = if let downstream { downstream } else { downstream as Any }
    let children: [Mirror.Child] = [("downstream", downstreamChild), ("demand", demand)]
    return Mirror(self, children: children)
  }

  @usableFromInline
  var playgroundDescription: Any { description }

  @inlinable
  init(
    downstream: Downstream,
    handler: @escaping (Failure) -> Result<NewPublisher, Downstream.Failure>,
    replacementFailure: @escaping (NewPublisher.Failure) -> Downstream.Failure,
    description: String
  ) {
    self.description = description
    census = CensusToken(CatchSubscription.self, inheritingFrom: downstream)
    state = Locked(State(downstream: downstream, handler: handler))
    self.replacementFailure = replacementFailure
    handle = SubscriptionRequest.dispatcher()
  }

  // MARK: Upstream

  @inlinable
  func receive(subscription: any Subscription) {
    let downstream = state.withLock { state -> Downstream? in
      guard case .awaitingUpstream = state.phase, let downstream = state.downstream else { return nil }
      state.phase = .upstream(Targets(downstream: downstream, upstream: subscription))
      return downstream
    }
    guard let downstream else {
      subscription.cancel()
      return
    }
    downstream.receive(subscription: self)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    deliver(input, fromReplacement: false)
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>) {
    switch completion {
    case .finished:
      let ended = state.withLock { state -> Ended in
        guard case .upstream = state.phase else { return (nil, nil, nil) }
        return state.end()
      }
      ended.downstream?.receive(completion: .finished)
    case .failure(let error):
      // The upstream's targets are taken out, so that they are released after the lock.
      let failed = state.withLock {
        state -> (handler: ((Failure) -> Result<NewPublisher, Downstream.Failure>)?, targets: Targets)? in
        switch state.phase {
        case .upstream: break
        case .awaitingUpstream, .awaitingReplacement, .replacement:
          preconditionFailure(
            "\(description): the upstream failed before its subscription or after failing once; a publisher sends its subscription first and completes at most once"
          )
        case .done: return nil
        }
        guard case .upstream(let targets) = state.phase else { return nil }
        state.phase = .awaitingReplacement
        defer { state.handler = nil }
        return (state.handler, targets)
      }
      guard let handler = failed?.handler else { return }
      switch handler(error) {
      case .success(let replacement):
        replacement.subscribe(Replacement(parent: self))
      case .failure(let thrown):
        let ended = state.withLock { state -> Ended in
          guard case .awaitingReplacement = state.phase else { return (nil, nil, nil) }
          return state.end()
        }
        ended.downstream?.receive(completion: .failure(thrown))
      }
    }
  }

  // MARK: Replacement

  @inlinable
  func replacementSubscribed(_ subscription: any Subscription) {
    let demand = state.withLock { state -> Subscribers.Demand? in
      guard case .awaitingReplacement = state.phase, let downstream = state.downstream else { return nil }
      state.phase = .replacement(Targets(downstream: downstream, upstream: subscription))
      return state.demand
    }
    guard let demand else {
      subscription.cancel()
      return
    }
    if demand != .none { subscription.request(demand) }
  }

  @inlinable
  func replacementCompleted(_ completion: Subscribers.Completion<NewPublisher.Failure>) {
    let ended = state.withLock { state -> Ended in
      guard case .replacement = state.phase else { return (nil, nil, nil) }
      return state.end()
    }
    switch completion {
    case .finished: ended.downstream?.receive(completion: .finished)
    case .failure(let error): ended.downstream?.receive(completion: .failure(replacementFailure(error)))
    }
  }

  @inlinable
  func deliver(_ input: Input, fromReplacement: Bool) -> Subscribers.Demand {
    guard
      let more = state.withRetained(
        { state -> Targets? in
          switch state.phase {
          case .upstream(let targets) where !fromReplacement, .replacement(let targets) where fromReplacement:
            precondition(state.demand != .none || fromReplacement, "\(description): \(Self.unwantedValue)")
            if state.demand != .unlimited { state.demand -= 1 }
            return targets
          case .awaitingUpstream where !fromReplacement:
            preconditionFailure("\(description): \(Self.unwantedValue)")
          default:
            return nil
          }
        },
        then: { $0.downstream.receive(input) })
    else { return .none }
    if more != .none {
      state.withLock { state in
        switch state.phase {
        case .upstream, .replacement: state.demand += more
        default: break
        }
      }
    }
    return more
  }

  @inlinable
  static var unwantedValue: String {
    "the upstream sent a value the subscriber had not requested; a publisher must not send more values than were demanded"
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
    state.withRetained(
      { state -> Targets? in
        switch state.phase {
        case .upstream(let targets), .replacement(let targets):
          state.demand += demand
          return targets
        case .awaitingUpstream, .awaitingReplacement:
          state.demand += demand
          return nil
        case .done:
          return nil
        }
      },
      then: { $0.upstream.request(demand) })
  }

  @inlinable
  func handleCancel() {
    let (downstream, current, handler) = state.withLock { state -> Ended in
      if case .done = state.phase { return (nil, nil, nil) }
      return state.end()
    }
    current?.upstream.cancel()
    // Released outside the lock: the downstream's and the handler's deinits may run arbitrary
    // code.
    _ = (downstream, handler)
  }
}

extension CatchSubscription {
  /// Subscribes to the replacement publisher. Created when the upstream fails, possibly on
  /// another thread, so it takes its census scope from the catch's subscription.
  @usableFromInline
  final class Replacement: Subscriber, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
    CensusScoped, @unchecked Sendable
  {
    @usableFromInline
    typealias Input = NewPublisher.Output
    @usableFromInline
    typealias Failure = NewPublisher.Failure

    @usableFromInline
    let parent: CatchSubscription
    @usableFromInline
    let census: CensusToken

    @usableFromInline
    var description: String { parent.description }
    @usableFromInline
    var customMirror: Mirror { parent.customMirror }
    @usableFromInline
    var playgroundDescription: Any { description }
    @usableFromInline
    var censusScope: CensusScope? { census.scope }

    @inlinable
    init(parent: CatchSubscription) {
      census = CensusToken(Replacement.self, inheritingFrom: parent)
      self.parent = parent
    }

    @inlinable
    func receive(subscription: any Subscription) {
      parent.replacementSubscribed(subscription)
    }

    @inlinable
    func receive(_ input: NewPublisher.Output) -> Subscribers.Demand {
      parent.deliver(input, fromReplacement: true)
    }

    @inlinable
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
  @inlinable
  public func `catch`<P: Publisher>(_ handler: @escaping (Failure) -> P) -> Publishers.Catch<Self, P>
  where Output == P.Output {
    Publishers.Catch(upstream: self, handler: handler)
  }
}

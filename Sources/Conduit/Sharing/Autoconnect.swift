extension Publishers {
  /// A publisher that automatically connects to an upstream connectable publisher.
  ///
  /// It connects when the first subscriber attaches, and cancels the connection when the last
  /// subscriber has gone (cancelled or completed); a later subscriber connects again.
  ///
  /// ```swift
  /// let timer = connectable.autoconnect()
  /// let cancellable = timer.sink { print($0) }   // connects here
  /// ```
  public final class Autoconnect<Upstream: ConnectablePublisher>: Publisher, @unchecked Sendable {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    private struct State {
      var subscribers = 0
      var connection: (any Cancellable)?
    }

    /// The publisher from which this publisher receives elements.
    public final let upstream: Upstream

    // Guarded by its own lock.
    private let state = Locked(State())

    /// Creates a publisher that automatically connects to an upstream connectable publisher.
    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let needsConnection = state.withLock { state -> Bool in
        state.subscribers += 1
        return state.subscribers == 1 && state.connection == nil
      }
      upstream.subscribe(Inner(parent: self, downstream: subscriber))
      guard needsConnection else { return }
      let connection = upstream.connect()
      let stale = state.withLock { state -> (any Cancellable)? in
        // Everyone left while connecting: the connection is not wanted any more.
        guard state.subscribers > 0 else { return connection }
        state.connection = connection
        return nil
      }
      stale?.cancel()
    }

    fileprivate func subscriberLeft() {
      let connection = state.withLock { state -> (any Cancellable)? in
        state.subscribers -= 1
        guard state.subscribers == 0 else { return nil }
        defer { state.connection = nil }
        return state.connection
      }
      connection?.cancel()
    }
  }
}

extension Publishers.Autoconnect {
  /// Counts its subscriber out of the parent when it completes or is cancelled.
  private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
    CensusScoped, @unchecked Sendable
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    private enum State {
      case awaitingSubscription(Publishers.Autoconnect<Upstream>, Downstream)
      case subscribed(Publishers.Autoconnect<Upstream>, Downstream, any Subscription)
      case terminal
    }

    // Guarded by its own lock.
    private let state: Locked<State>
    private let census: CensusToken

    var description: String { "Autoconnect" }
    var censusScope: CensusScope? { census.scope }

    init(parent: Publishers.Autoconnect<Upstream>, downstream: Downstream) {
      census = CensusToken(Inner.self, inheritingFrom: downstream)
      state = Locked(.awaitingSubscription(parent, downstream))
    }

    func receive(subscription: any Subscription) {
      let downstream = state.withLock { state -> Downstream? in
        guard case .awaitingSubscription(let parent, let downstream) = state else { return nil }
        state = .subscribed(parent, downstream, subscription)
        return downstream
      }
      guard let downstream else {
        subscription.cancel()
        return
      }
      downstream.receive(subscription: self)
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      let downstream = state.withLock { state -> Downstream? in
        if case .subscribed(_, let downstream, _) = state { return downstream }
        return nil
      }
      return downstream?.receive(input) ?? .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      let ended = state.withLock { state -> (Publishers.Autoconnect<Upstream>, Downstream)? in
        defer { state = .terminal }
        if case .subscribed(let parent, let downstream, _) = state { return (parent, downstream) }
        return nil
      }
      guard let (parent, downstream) = ended else { return }
      downstream.receive(completion: completion)
      parent.subscriberLeft()
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let upstream = state.withLock { state -> (any Subscription)? in
        if case .subscribed(_, _, let upstream) = state { return upstream }
        return nil
      }
      upstream?.request(demand)
    }

    func cancel() {
      let ended = state.withLock { state -> (Publishers.Autoconnect<Upstream>, any Subscription)? in
        defer { state = .terminal }
        if case .subscribed(let parent, _, let upstream) = state { return (parent, upstream) }
        return nil
      }
      guard let (parent, upstream) = ended else { return }
      upstream.cancel()
      parent.subscriberLeft()
    }
  }
}

extension ConnectablePublisher {
  /// Automates the process of connecting or disconnecting from this connectable publisher.
  ///
  /// ```swift
  /// let shared = publisher.multicast { PassthroughSubject() }.autoconnect()
  /// ```
  public func autoconnect() -> Publishers.Autoconnect<Self> {
    Publishers.Autoconnect(upstream: self)
  }
}

extension Publishers {
  /// A publisher that republishes elements until another publisher emits an element.
  ///
  /// ```swift
  /// let cancellable = ticks
  ///     .prefix(untilOutputFrom: stopButtonTaps)
  ///     .sink { print($0) }   // ticks until the first tap, then finished
  /// ```
  public struct PrefixUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// Another publisher, whose first output causes this publisher to finish.
    public let other: Other

    /// Creates a publisher that republishes elements of `upstream` until `other` emits an
    /// element.
    public init(upstream: Upstream, other: Other) {
      self.upstream = upstream
      self.other = other
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let inner = Inner(downstream: subscriber)
      other.subscribe(Inner.Trigger(inner: inner))
      upstream.subscribe(inner)
    }
  }
}

extension Publishers.PrefixUntilOutput: Sendable where Upstream: Sendable, Other: Sendable {}

extension Publishers.PrefixUntilOutput {
  /// The subscriber to upstream and to the other publisher, and the subscription downstream
  /// holds.
  ///
  /// The other publisher's first value may arrive on any thread, even while upstream is
  /// delivering a value: whichever thread is inside a call into downstream (`delivering`) delivers
  /// the completion when that call returns, so calls into downstream never overlap.
  private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
    CensusScoped, @unchecked Sendable
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    private enum Link {
      case awaiting
      case active(any Subscription)
      case done
    }

    private struct State {
      var downstream: Downstream?
      var upstream = Link.awaiting
      var trigger = Link.awaiting
      // The other publisher emitted before upstream's subscription arrived.
      var triggeredEarly = false
      // A thread is inside a call into downstream.
      var delivering = false
      // A completion decided while `delivering`, for that thread to deliver.
      var pendingCompletion: Subscribers.Completion<Upstream.Failure>?
      var terminal = false
    }

    /// Receives the other publisher's events on behalf of `Inner`.
    struct Trigger: Subscriber, CustomStringConvertible {
      typealias Input = Other.Output
      typealias Failure = Other.Failure

      let inner: Inner

      var combineIdentifier: CombineIdentifier { inner.combineIdentifier }
      var description: String { "PrefixUntilOutput" }

      func receive(subscription: any Subscription) { inner.triggerReceive(subscription: subscription) }
      func receive(_ input: Other.Output) -> Subscribers.Demand { inner.triggerFired() }
      func receive(completion: Subscribers.Completion<Other.Failure>) { inner.triggerCompleted() }
    }

    // Guarded by its own lock.
    private let state: Locked<State>
    private let census: CensusToken

    var description: String { "PrefixUntilOutput" }
    var censusScope: CensusScope? { census.scope }

    init(downstream: Downstream) {
      census = CensusToken(Inner.self, inheritingFrom: downstream)
      state = Locked(State(downstream: downstream))
    }

    // MARK: Upstream

    private enum SubscriptionAction {
      case reject
      case forward(Downstream)
      case finishAtOnce(Downstream)
    }

    func receive(subscription: any Subscription) {
      let action = state.withLock { state -> SubscriptionAction in
        guard case .awaiting = state.upstream, !state.terminal, let downstream = state.downstream else {
          return .reject
        }
        if state.triggeredEarly {
          state.terminal = true
          state.upstream = .done
          state.downstream = nil
          return .finishAtOnce(downstream)
        }
        state.upstream = .active(subscription)
        state.delivering = true
        return .forward(downstream)
      }
      switch action {
      case .reject:
        subscription.cancel()
      case .forward(let downstream):
        downstream.receive(subscription: self)
        endDelivery(to: downstream)
      case .finishAtOnce(let downstream):
        subscription.cancel()
        downstream.receive(subscription: self)
        downstream.receive(completion: .finished)
      }
    }

    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
      let downstream = state.withLock { state -> Downstream? in
        guard !state.terminal, case .active = state.upstream, let downstream = state.downstream else { return nil }
        state.delivering = true
        return downstream
      }
      guard let downstream else { return .none }
      let demand = downstream.receive(input)
      endDelivery(to: downstream)
      return demand
    }

    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
      let (downstream, trigger) = state.withLock { state -> (Downstream?, (any Subscription)?) in
        guard !state.terminal, case .active = state.upstream else { return (nil, nil) }
        state.upstream = .done
        return (end(&state, with: completion), take(&state.trigger))
      }
      trigger?.cancel()
      downstream?.receive(completion: completion)
    }

    // MARK: The other publisher

    private func triggerReceive(subscription: any Subscription) {
      let accepted = state.withLock { state -> Bool in
        guard case .awaiting = state.trigger, !state.terminal else { return false }
        state.trigger = .active(subscription)
        return true
      }
      if accepted {
        subscription.request(.max(1))
      } else {
        subscription.cancel()
      }
    }

    private func triggerFired() -> Subscribers.Demand {
      let (trigger, upstream, downstream) = state.withLock {
        state -> ((any Subscription)?, (any Subscription)?, Downstream?) in
        guard case .active(let trigger) = state.trigger, !state.terminal else { return (nil, nil, nil) }
        state.trigger = .done
        if case .awaiting = state.upstream {
          state.triggeredEarly = true
          return (trigger, nil, nil)
        }
        return (trigger, take(&state.upstream), end(&state, with: .finished))
      }
      // The trigger has done its job; nothing more is wanted from it.
      trigger?.cancel()
      upstream?.cancel()
      downstream?.receive(completion: .finished)
      return .none
    }

    private func triggerCompleted() {
      // The other publisher ending without a value changes nothing.
      state.withLock { state in
        if case .active = state.trigger { state.trigger = .done }
      }
    }

    // MARK: Subscription

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let upstream = state.withLock { state -> (any Subscription)? in
        guard !state.terminal, case .active(let upstream) = state.upstream else { return nil }
        return upstream
      }
      upstream?.request(demand)
    }

    func cancel() {
      let (upstream, trigger) = state.withLock { state -> ((any Subscription)?, (any Subscription)?) in
        guard !state.terminal else { return (nil, nil) }
        state.terminal = true
        state.downstream = nil
        state.pendingCompletion = nil
        return (take(&state.upstream), take(&state.trigger))
      }
      upstream?.cancel()
      trigger?.cancel()
    }

    // MARK: Helpers

    /// Ends the stream in `state`: returns the subscriber to complete now, or `nil` if the thread
    /// inside a call into it will complete it when that call returns.
    private func end(_ state: inout State, with completion: Subscribers.Completion<Upstream.Failure>) -> Downstream? {
      state.terminal = true
      if state.delivering {
        state.pendingCompletion = completion
        return nil
      }
      defer { state.downstream = nil }
      return state.downstream
    }

    /// Called by the thread that set `delivering` once its call into downstream returned.
    private func endDelivery(to downstream: Downstream) {
      let completion = state.withLock { state -> Subscribers.Completion<Upstream.Failure>? in
        state.delivering = false
        guard let completion = state.pendingCompletion else { return nil }
        state.pendingCompletion = nil
        state.downstream = nil
        return completion
      }
      if let completion { downstream.receive(completion: completion) }
    }

    private func take(_ link: inout Link) -> (any Subscription)? {
      defer { link = .done }
      if case .active(let subscription) = link { return subscription }
      return nil
    }
  }
}

extension Publisher {
  /// Republishes elements until another publisher emits an element.
  ///
  /// When the other publisher emits its first element, this publisher cancels upstream and
  /// finishes. The other publisher finishing or failing without an element changes nothing.
  ///
  /// ```swift
  /// let numbers = PassthroughSubject<Int, Never>()
  /// let stop = PassthroughSubject<Void, Never>()
  /// let cancellable = numbers
  ///     .prefix(untilOutputFrom: stop)
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// numbers.send(1)   // 1
  /// stop.send()       // finished
  /// numbers.send(2)   // (nothing)
  /// ```
  ///
  /// - Parameter publisher: The publisher whose first element ends this one.
  public func prefix<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.PrefixUntilOutput<Self, P> {
    Publishers.PrefixUntilOutput(upstream: self, other: publisher)
  }
}

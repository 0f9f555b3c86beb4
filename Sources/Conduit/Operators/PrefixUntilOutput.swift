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
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let inner = Inner(downstream: subscriber)
      other.subscribe(TriggerSubscriber<Inner<S>, Other.Output>(target: inner))
      upstream.subscribe(inner)
    }
  }
}

extension Publishers.PrefixUntilOutput: Sendable where Upstream: Sendable, Other: Sendable {}

extension Publishers.PrefixUntilOutput {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = PrefixUntilOutputInner<
    PrefixUntilOutputTypes<Upstream.Output, Upstream.Failure, Other.Failure, Downstream>
  >
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
}

/// The types `prefix(untilOutputFrom:)`'s subscriber works with: an `OperatorLink` that also
/// names the errors of the other publisher.
@usableFromInline
protocol PrefixUntilOutputLink: OperatorLink {
  /// The kind of errors the other publisher sends.
  associatedtype OtherFailure: Error
}

/// The `PrefixUntilOutputLink` of a subscriber that receives `Input` and `Failure`, watches a
/// publisher failing with `OtherFailure`, and sends on to `Downstream`. Never instantiated.
@usableFromInline
enum PrefixUntilOutputTypes<Input, Failure: Error, OtherFailure: Error, Downstream: Subscriber>:
  PrefixUntilOutputLink
{}

/// The subscriber to upstream and to the other publisher, and the subscription downstream
/// holds.
///
/// The other publisher's first value may arrive on any thread, even while upstream is
/// delivering a value: whichever thread is inside a call into downstream (`delivering` above
/// zero) delivers the completion when that call returns, so calls into downstream never
/// overlap.
///
/// Generic over one `PrefixUntilOutputLink`, so that a pipeline repeating the operator stays
/// specialized (see `OperatorLink`).
@usableFromInline
final class PrefixUntilOutputInner<Types: PrefixUntilOutputLink>: TriggeredSubscription<Types.Downstream>,
  Subscriber, TriggerTarget,
  CustomStringConvertible, @unchecked Sendable
where Types.Downstream.Input == Types.Input, Types.Downstream.Failure == Types.Failure {
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Types.Failure
  @usableFromInline
  typealias Downstream = Types.Downstream

  @usableFromInline
  var description: String { "PrefixUntilOutput" }

  @inlinable
  init(downstream: Downstream) {
    super.init(PrefixUntilOutputInner.self, downstream: downstream)
  }

  // MARK: Upstream

  @usableFromInline
  enum SubscriptionAction {
    case reject
    case forward(Downstream)
    case finishAtOnce(Downstream)
  }

  @inlinable
  func receive(subscription: any Subscription) {
    let action = state.withLock { state -> SubscriptionAction in
      guard case .awaiting = state.upstream, !state.terminal, let downstream = state.downstream else {
        return .reject
      }
      if state.triggered {
        state.terminal = true
        state.upstream = .done
        state.downstream = nil
        return .finishAtOnce(downstream)
      }
      state.upstream = .active(subscription)
      state.delivering += 1
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

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    let downstream = state.withLock { state -> Downstream? in
      guard !state.terminal, case .active = state.upstream, let downstream = state.downstream else { return nil }
      state.delivering += 1
      return downstream
    }
    guard let downstream else { return .none }
    let demand = downstream.receive(input)
    endDelivery(to: downstream)
    return demand
  }

  // MARK: The other publisher

  @inlinable
  func triggerFired() -> Subscribers.Demand {
    let (trigger, upstream, downstream) = state.withLock {
      state -> ((any Subscription)?, (any Subscription)?, Downstream?) in
      guard case .active(let trigger) = state.trigger, !state.terminal else { return (nil, nil, nil) }
      state.trigger = .done
      if case .awaiting = state.upstream {
        state.triggered = true
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

  @inlinable
  func triggerCompleted(_ completion: Subscribers.Completion<Types.OtherFailure>) {
    // The other publisher ending without a value changes nothing.
    state.withLock { state in
      if case .active = state.trigger { state.trigger = .done }
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

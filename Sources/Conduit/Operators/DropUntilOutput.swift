extension Publishers {
  /// A publisher that ignores elements from the upstream publisher until it receives an
  /// element from a second publisher.
  ///
  /// ```swift
  /// let cancellable = readings
  ///     .drop(untilOutputFrom: calibrated)
  ///     .sink { print($0) }   // readings from the first calibration on
  /// ```
  public struct DropUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher
  where Upstream.Failure == Other.Failure {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher that this publisher receives elements from.
    public let upstream: Upstream

    /// A publisher to monitor for its first emitted element.
    public let other: Other

    /// Creates a publisher that ignores elements from `upstream` until `other` emits an
    /// element.
    public init(upstream: Upstream, other: Other) {
      self.upstream = upstream
      self.other = other
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let inner = Inner(downstream: subscriber)
      subscriber.receive(subscription: inner)
      other.subscribe(TriggerSubscriber<Inner<S>, Other.Output>(target: inner))
      upstream.subscribe(inner)
    }
  }
}

extension Publishers.DropUntilOutput: Equatable where Upstream: Equatable, Other: Equatable {}

extension Publishers.DropUntilOutput: Sendable where Upstream: Sendable, Other: Sendable {}

extension Publishers.DropUntilOutput {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = DropUntilOutputInner<Downstream>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
}

/// The subscriber to upstream and to the other publisher, and the subscription downstream
/// holds.
///
/// The other publisher may complete on any thread, even while upstream is delivering a value:
/// whichever thread is inside a call into downstream (`delivering` above zero) delivers the
/// completion when that call returns, so calls into downstream never overlap.
///
/// Generic over its downstream alone, as an operator that passes on the values and errors it
/// receives can be: one level of nesting per use rather than two (see `OperatorLink`).
@usableFromInline
final class DropUntilOutputInner<Downstream: Subscriber>: TriggeredSubscription<Downstream>, Subscriber,
  TriggerTarget,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, Sendable
{
  @usableFromInline
  typealias Input = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  var description: String { "DropUntilOutput" }
  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
  @usableFromInline
  var playgroundDescription: Any { description }

  @inlinable
  init(downstream: Downstream) {
    super.init(DropUntilOutputInner.self, downstream: downstream)
  }

  // MARK: Upstream

  @usableFromInline
  func receive(subscription: any Subscription) {
    let demand = state.withLock { state -> Subscribers.Demand? in
      guard case .awaiting = state.upstream, !state.terminal else { return nil }
      state.upstream = .active(subscription)
      return state.outstandingDemand
    }
    guard let demand else {
      subscription.cancel()
      return
    }
    if demand > 0 { subscription.request(demand) }
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    let downstream = state.withLock { state -> Downstream? in
      guard state.triggered else {
        // Before the trigger, the value is dropped and the demand it answered is spent, as
        // in Combine; until then every value counts against what was requested, also after a
        // cancel or the end of the stream.
        precondition(
          state.outstandingDemand != .none,
          "drop(untilOutputFrom:): upstream sent a value it was not asked for; a publisher must not send more values than its subscriber requested"
        )
        state.outstandingDemand -= 1
        return nil
      }
      guard !state.terminal, let downstream = state.downstream else { return nil }
      state.delivering += 1
      return downstream
    }
    guard let downstream else { return .none }
    let demand = downstream.receive(input)
    endDelivery(to: downstream)
    return demand
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    // Downstream has had its subscription since the start: a completion arriving before
    // upstream's subscription goes on too, as in Combine.
    upstreamCompleted(completion, announced: true)
  }

  // MARK: The other publisher

  @inlinable
  func triggerFired() -> Subscribers.Demand {
    state.withLock { state in
      // As in Combine, the trigger is not cancelled: it has sent the one value asked of it.
      // Its subscription is cancelled when the stream ends, so that the trigger does not keep
      // this subscription alive (DifferencesFromCombine §5, in Conduit.docc).
      guard case .active = state.trigger, !state.terminal else { return }
      state.triggered = true
    }
    return .none
  }

  @inlinable
  func triggerCompleted(_ completion: Subscribers.Completion<Failure>) {
    // Ending before emitting ends the stream, even when it finishes (and even before its
    // subscription, as in Combine); after emitting, it changes nothing.
    let (downstream, upstream) = state.withLock { state -> (Downstream?, (any Subscription)?) in
      guard !state.terminal else { return (nil, nil) }
      if state.triggered {
        state.trigger = .done
        return (nil, nil)
      }
      state.trigger = .done
      return (end(&state, with: completion), take(&state.upstream))
    }
    upstream?.cancel()
    downstream?.receive(completion: completion)
  }
}

extension Publisher {
  /// Ignores elements from the upstream publisher until it receives an element from a second
  /// publisher.
  ///
  /// The second publisher is asked for one element; once it arrives, upstream's elements pass
  /// through, and the second publisher is cancelled when this publisher completes or is
  /// cancelled (see <doc:DifferencesFromCombine>, §5). Requests go
  /// to upstream from the start, `.none` included, so elements upstream sends before the
  /// trigger are dropped and the demand they answered is spent; an element beyond that demand
  /// stops the program. If the second publisher completes before emitting, this publisher
  /// completes the same way and cancels upstream.
  ///
  /// ```swift
  /// let upstream = PassthroughSubject<Int, Never>()
  /// let second = PassthroughSubject<String, Never>()
  /// let cancellable = upstream
  ///     .drop(untilOutputFrom: second)
  ///     .sink { print($0) }
  /// upstream.send(1)     // (dropped)
  /// second.send("A")
  /// upstream.send(2)     // 2
  /// ```
  ///
  /// - Parameter publisher: A publisher to monitor for its first emitted element.
  public func drop<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.DropUntilOutput<Self, P>
  where Failure == P.Failure {
    Publishers.DropUntilOutput(upstream: self, other: publisher)
  }
}

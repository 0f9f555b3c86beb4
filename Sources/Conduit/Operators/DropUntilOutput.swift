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
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
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
    super.init(DropUntilOutputInner.self, downstream: downstream, announced: true, gated: true)
  }

  // MARK: Upstream

  @usableFromInline
  func receive(subscription: any Subscription) {
    upstreamSubscribed(subscription)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    upstreamValue(input)
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    // Downstream has had its subscription since the start: a completion arriving before
    // upstream's subscription goes on too, as in Combine.
    upstreamCompleted(completion)
  }

  // MARK: The other publisher

  @usableFromInline
  func triggerFired() -> Subscribers.Demand {
    machine.withLock { $0.triggerFiredOpening() }
    return .none
  }

  @usableFromInline
  func triggerCompleted(_ completion: Subscribers.Completion<Failure>) {
    // Ending before emitting ends the stream; after emitting, it changes nothing.
    perform(machine.withLock { $0.triggerCompleted(ending: completion) })
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

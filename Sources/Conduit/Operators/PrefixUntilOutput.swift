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
///
/// It has no description or custom reflection, as in Combine.
@usableFromInline
final class PrefixUntilOutputInner<Types: PrefixUntilOutputLink>: TriggeredSubscription<Types.Downstream>,
  Subscriber, TriggerTarget, @unchecked Sendable
where Types.Downstream.Input == Types.Input, Types.Downstream.Failure == Types.Failure {
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Types.Failure
  @usableFromInline
  typealias Downstream = Types.Downstream

  @inlinable
  init(downstream: Downstream) {
    super.init(PrefixUntilOutputInner.self, downstream: downstream, announced: false, gated: false)
  }

  // MARK: Upstream

  @usableFromInline
  func receive(subscription: any Subscription) {
    // Downstream waits for this subscription, as in Combine: it gets it as upstream's arrives.
    upstreamSubscribed(subscription)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    upstreamValue(input)
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    // Before upstream's subscription, downstream has not had one either: the stream ends
    // without a word to it, as in Combine.
    upstreamCompleted(completion)
  }

  // MARK: The other publisher

  @usableFromInline
  func triggerFired() -> Subscribers.Demand {
    perform(machine.withLock { $0.triggerFiredFinishing() })
    return .none
  }

  @usableFromInline
  func triggerCompleted(_ completion: Subscribers.Completion<Types.OtherFailure>) {
    // The other publisher ending without a value changes nothing; a subscription it sends
    // afterwards is cancelled, as in Combine.
    perform(machine.withLock { $0.triggerCompleted(ending: nil) })
  }
}

extension Publisher {
  /// Republishes elements until another publisher emits an element.
  ///
  /// When the other publisher emits its first element, this publisher cancels upstream and the
  /// other publisher, and finishes. The other publisher finishing or failing without an element
  /// changes nothing. Requests go to upstream as they are, `.none` included.
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

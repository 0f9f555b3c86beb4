import Synchronization

// Subscriptions: small pieces that many operator subscriptions share.
//
// - `SubscriptionPhase.swift`: where a lock-free subscription stands, in one atomic word.
// - `SubscriptionRequest.swift`: what a subscriber asks of its subscription.
// - `SubscribedTargets.swift`: a subscription's downstream and upstream once subscribed, and the
//   boxes that carry a downstream out of a lock.
// - `SubjectSubscriber.swift`: the subscriber `Publisher.subscribe(_ subject:)` attaches upstream
//   of a subject.

/// Where an operator's own subscription stands, in one atomic word, for subscriptions whose
/// upstream calls take no lock: the value path reads it with one relaxed load and writes
/// nothing; the few transitions (the subscription arrives, the stream ends, downstream cancels)
/// are single atomic operations. Each decision returns what the caller does next, which it does
/// with no lock held.
///
/// What each phase means for the owner's other stored state: its subscription to upstream is
/// stored by `receive(subscription:)` before the phase becomes `subscribed` (with release
/// ordering), so a request or a cancel from any thread that sees `subscribed` (with acquire
/// ordering) sees it; it is never changed again, so it is kept until the owner goes. What
/// upstream's calls use (downstream, the step's state) is touched only by them, never by a
/// request or a cancel, and lives in the subscriber upstream was given (a separate object,
/// `FallibleInner`, that upstream alone holds), so it goes when upstream lets go of that.
@usableFromInline
struct SubscriptionPhase: ~Copyable {
  /// Upstream's subscription has not arrived.
  @inlinable
  static var awaitingSubscription: Int { 0 }
  /// Values flow.
  @inlinable
  static var subscribed: Int { 1 }
  /// Finished, failed or cancelled.
  @inlinable
  static var ended: Int { 2 }

  /// How a stream the owner itself ends (a step threw or finished) is wound up.
  @usableFromInline
  struct Ending {
    /// Upstream's subscription was live: cancel it.
    @usableFromInline
    let cancelsUpstream: Bool
    /// Downstream has not been told the stream is over (it did not cancel): complete it.
    @usableFromInline
    let completesDownstream: Bool

    @inlinable
    init(cancelsUpstream: Bool, completesDownstream: Bool) {
      self.cancelsUpstream = cancelsUpstream
      self.completesDownstream = completesDownstream
    }
  }

  @usableFromInline
  let word = Atomic<Int>(0)

  @inlinable
  init() {}

  /// Whether values flow: the value path's one check. Relaxed, as the value path reads nothing
  /// that another thread writes.
  @inlinable @inline(__always)
  var isSubscribed: Bool { word.load(ordering: .relaxed) == Self.subscribed }

  /// Whether upstream's subscription is still to come.
  @inlinable
  var isAwaitingSubscription: Bool { word.load(ordering: .relaxed) == Self.awaitingSubscription }

  /// Whether the stream has ended.
  @inlinable
  var hasEnded: Bool { word.load(ordering: .relaxed) == Self.ended }

  /// Upstream's subscription, already stored by the caller, arrives: whether it is taken (the
  /// stream has not ended before it, by a cancel or by a value or completion before it).
  @inlinable
  func subscribe() -> Bool {
    word.compareExchange(
      expected: Self.awaitingSubscription, desired: Self.subscribed, ordering: .acquiringAndReleasing
    ).exchanged
  }

  /// A value arrives while values do not flow: whether to handle it as usual (else it is
  /// ignored, as after the end).
  @inlinable
  func admitsValue(_ kind: CombineSubscriptionKind) -> Bool {
    guard word.load(ordering: .relaxed) == Self.awaitingSubscription else { return false }
    switch kind {
    case .mapping, .accumulating, .coding: return true
    case .dropping: return false
    case .filtering:
      preconditionFailure(
        "Subscriber.receive(_:) before receive(subscription:): a publisher must send its subscriber a subscription before any value"
      )
    }
  }

  /// A completion arrives from upstream: whether to pass it on, which ends the stream (else it
  /// is ignored).
  @inlinable
  func admitsCompletion(_ kind: CombineSubscriptionKind) -> Bool {
    if word.load(ordering: .relaxed) == Self.awaitingSubscription {
      switch kind {
      case .mapping, .accumulating, .dropping: return false
      case .coding: break
      case .filtering:
        preconditionFailure(
          "Subscriber.receive(completion:) before receive(subscription:): a publisher must send its subscriber a subscription before completing"
        )
      }
    }
    return word.exchange(Self.ended, ordering: .acquiringAndReleasing) != Self.ended
  }

  /// The owner ends the stream from one of upstream's calls; `nil` when the end is ignored
  /// (`accumulating` before upstream's subscription).
  @usableFromInline
  func end(_ kind: CombineSubscriptionKind) -> Ending? {
    if case .accumulating = kind, word.load(ordering: .relaxed) == Self.awaitingSubscription { return nil }
    let previous = word.exchange(Self.ended, ordering: .acquiringAndReleasing)
    return Ending(cancelsUpstream: previous == Self.subscribed, completesDownstream: previous != Self.ended)
  }

  /// Downstream requests `demand`: whether to pass it upstream.
  @inlinable
  func admitRequest(_ demand: Subscribers.Demand, _ kind: CombineSubscriptionKind) -> Bool {
    switch kind {
    case .dropping, .filtering: demand.assertPositive()
    case .mapping, .accumulating, .coding: break
    }
    let phase = word.load(ordering: .acquiring)
    if phase == Self.awaitingSubscription, case .filtering = kind {
      preconditionFailure(
        "Subscription.request(_:) before the subscriber received the subscription: request only through a subscription the subscriber was given"
      )
    }
    return phase == Self.subscribed
  }

  /// Downstream cancels: whether to cancel upstream. Only the first cancel of a live
  /// subscription does.
  @usableFromInline
  func cancel(_ kind: CombineSubscriptionKind) -> Bool {
    switch kind {
    case .filtering:
      return word.exchange(Self.ended, ordering: .acquiringAndReleasing) == Self.subscribed
    case .mapping, .accumulating, .coding, .dropping:
      return word.compareExchange(
        expected: Self.subscribed, desired: Self.ended, ordering: .acquiringAndReleasing
      ).exchanged
    }
  }

  /// The phase's name, for mirrors.
  @usableFromInline
  var name: String {
    switch word.load(ordering: .relaxed) {
    case Self.awaitingSubscription: "awaitingSubscription"
    case Self.subscribed: "subscribed"
    default: "terminal"
    }
  }
}

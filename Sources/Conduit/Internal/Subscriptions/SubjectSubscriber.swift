import Synchronization

/// Forwards everything it receives to a subject, and lets the caller cancel the subscription.
///
/// As in Combine, it is itself the subscription the subject receives (described "Subject"):
/// the subject's requests and cancel go through it to the upstream.
///
/// A value goes through to one of Conduit's subjects with one atomic load, no lock and no
/// retain: `phase` says whether values still go to the subject, which the relay references
/// without counting it per value. The relay lets go of such a subject at completion (a call that
/// never overlaps `receive(_:)`), or else when it is freed: after a cancel, once the upstream and
/// the token have let go of the relay. Conduit's subjects forget a relay that is cancelled, so
/// the subject and the relay do not keep each other.
///
/// Any other subject is referenced weakly, as Combine does: such a subject may keep the relay
/// (its subscription) for its life, and must still be freed when its owner lets it go.
@usableFromInline
final class SubjectSubscriber<Downstream: Subject>: Subscriber, Subscription, CustomStringConvertible,
  CustomReflectable, CustomPlaygroundDisplayConvertible
{
  @usableFromInline
  typealias Input = Downstream.Output
  @usableFromInline
  typealias Failure = Downstream.Failure

  /// `phase` before the upstream's subscription arrives.
  @inlinable
  static var awaitingSubscription: Int { 0 }
  /// `phase` while values go to the subject.
  @inlinable
  static var subscribed: Int { 1 }
  /// `phase` once the relay completed or was cancelled.
  @inlinable
  static var ended: Int { 2 }

  /// Whether the subject is one of Conduit's, held strongly; any other is held weakly.
  @inlinable
  static var retainsSubject: Bool { Downstream.self is any UpstreamForgetting.Type }

  // Fields with unchecked exclusivity skip the runtime check, which costs in "share() with two subscribers".
  // One of Conduit's subjects, retained; `nil` once the relay has completed. Written only at
  // completion, under `upstream`'s lock; read without it by `receive(_:)`, which never overlaps
  // the completion (the upstream serializes its calls).
  @usableFromInline @exclusivity(unchecked)
  var subject: Unmanaged<Downstream>?
  // Any other subject. Written only by `init`.
  @usableFromInline
  weak var foreignSubject: Downstream?
  // Changed only under `upstream`'s lock; read without it by `receive(_:)`.
  @usableFromInline
  let phase = Atomic<Int>(0)
  // Guarded by its own lock; `nil` before the subscription and once the relay has ended.
  @usableFromInline
  let upstream = Locked<(any Subscription)?>(nil)
  @usableFromInline
  let census: CensusToken

  @inlinable
  init(_ subject: Downstream) {
    census = CensusToken(SubjectSubscriber.self)
    if Self.retainsSubject {
      self.subject = Unmanaged.passRetained(subject)
    } else {
      foreignSubject = subject
    }
  }

  deinit {
    subject?.release()
  }

  @usableFromInline
  var description: String { "Subject" }

  @usableFromInline
  var playgroundDescription: Any { description }

  @usableFromInline
  var customMirror: Mirror {
    let (subject, upstream) = upstream.withLock { upstream in (currentSubject, upstream) }
    let children: [Mirror.Child] = [
      ("downstreamSubject", subject as Any), ("upstreamSubscription", upstream as Any), ("subject", subject as Any),
    ]
    return Mirror(self, children: children)
  }

  /// The subject, if the relay still has it.
  @inlinable
  var currentSubject: Downstream? {
    subject?.takeUnretainedValue() ?? foreignSubject
  }

  @usableFromInline
  func receive(subscription: any Subscription) {
    let subject = upstream.withLock { upstream -> Downstream? in
      guard phase.load(ordering: .relaxed) == Self.awaitingSubscription, let subject = currentSubject else {
        return nil
      }
      upstream = subscription
      phase.store(Self.subscribed, ordering: .releasing)
      return subject
    }
    guard let subject else {
      subscription.cancel()
      return
    }
    subject.send(subscription: self)
    // A cancel on another thread between the lock and the line above asked the subject to forget
    // the relay before the subject had recorded it; forget it now that it has.
    if phase.load(ordering: .acquiring) != Self.subscribed {
      (subject as? any UpstreamForgetting)?.forgetUpstream(combineIdentifier)
    }
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    guard phase.load(ordering: .acquiring) == Self.subscribed else { return .none }
    // `subject` is set for one of Conduit's subjects until the completion, which never overlaps
    // this call; any other subject is `foreignSubject`.
    if let subject {
      subject._withUnsafeGuaranteedRef { $0.send(input) }
    } else {
      foreignSubject?.send(input)
    }
    return .none
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    let (subject, wasSubscribed) = upstream.withLock { upstream -> (Downstream?, Bool) in
      upstream = nil
      let subject = self.subject?.takeRetainedValue() ?? foreignSubject
      self.subject = nil
      return (subject, phase.exchange(Self.ended, ordering: .acquiringAndReleasing) == Self.subscribed)
    }
    if wasSubscribed { subject?.send(completion: completion) }
  }

  /// Asks the upstream for more, while the relay is subscribed: the subject's requests come here.
  @usableFromInline
  func request(_ demand: Subscribers.Demand) {
    upstream.withLock { $0 }?.request(demand)
  }

  @usableFromInline
  func cancel() {
    // One of Conduit's subjects stays referenced: a value may be on its way to it on the
    // upstream's thread. The relay lets go of it when freed, which follows once the upstream and
    // the token have.
    let ended = upstream.withLock { upstream -> (Downstream?, any Subscription)? in
      defer { upstream = nil }
      guard phase.exchange(Self.ended, ordering: .acquiringAndReleasing) == Self.subscribed, let upstream
      else { return nil }
      return (currentSubject, upstream)
    }
    guard let (subject, subscription) = ended else { return }
    subscription.cancel()
    // Conduit's subjects keep their upstream subscriptions, this relay among them; a relay
    // subscribed and cancelled over and over must not accumulate dead ones.
    (subject as? any UpstreamForgetting)?.forgetUpstream(combineIdentifier)
  }
}

/// A subject that can let go of an upstream subscription cancelled through
/// `Publisher.subscribe(_:)`'s token.
@usableFromInline
protocol UpstreamForgetting: AnyObject {
  func forgetUpstream(_ identifier: CombineIdentifier)
}

extension SubjectSubscriber: CensusScoped {
  /// The pipeline this relay starts, which what the upstream creates for it joins.
  @usableFromInline
  var censusScope: CensusScope? { census.scope }
}

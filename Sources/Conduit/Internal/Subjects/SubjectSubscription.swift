import Synchronization

/// The `Subscription` a subject hands its subscriber.
///
/// It forwards `request` and `cancel` to its member until the subscription ends, then forgets
/// it, so that a subscriber that keeps its subscription does not keep itself alive through it.
/// It holds nothing else, and is not counted by the census: only what holds it can outlive the
/// pipeline with it, and the member it leads to is counted.
///
/// It is described, reflected and shown in playgrounds as Combine's subject subscriptions are:
/// by the subject's name, with the subject (as `parent` and as `subject`), the subscriber and
/// the demand not yet used; once the subscription has ended, the first two are `nil` and the
/// demand is what was left of it then.
@usableFromInline
final class SubjectSubscription: Subscription, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible,
  CensusScoped
{
  // Guards `member` and `demandLeft`.
  @usableFromInline
  let lock = Locked<Void>(())
  // Fields with unchecked exclusivity skip the runtime check, which costs in "PassthroughSubject.send, 1 sink".
  // Guarded by `lock`: the member, until the subscription ends.
  @usableFromInline @exclusivity(unchecked)
  var member: SubjectMember?
  // Guarded by `lock`: the demand the member had left when the subscription ended, for the
  // mirror.
  @usableFromInline
  var demandLeft: UInt = 0
  @usableFromInline
  let censusScope: CensusScope?
  // Immutable: tells the subject, specialized for its element type and the subscriber's.
  @usableFromInline
  let notify: (SubjectMember, SubjectMember.Notice) -> Void

  @usableFromInline
  var description: String { kind.subscriptionDescription }

  @usableFromInline
  var playgroundDescription: Any { description }

  @usableFromInline
  var customMirror: Mirror {
    let (current, left) = lock.withLock { _ in (self.member, self.demandLeft) }
    var demand = Subscribers.Demand(rawValue: left)
    var reflected: (downstream: Any?, subject: Any.Type?) = (nil, nil)
    if let current {
      demand = Subscribers.Demand(rawValue: current.demand.load(ordering: .relaxed))
      reflected = current.reflected()
    }
    let (downstream, subject) = reflected
    if kind == .objectWillChange { return Mirror(self, children: [("downstream", downstream as Any)]) }
    let children: [Mirror.Child] = [
      ("parent", subject as Any), ("downstream", downstream as Any), ("demand", demand), ("subject", subject as Any),
    ]
    return Mirror(self, children: children)
  }

  // Immutable: which kind of subject, for `description`, the mirror and demand.
  @usableFromInline
  let kind: SubjectKind

  @inlinable
  init(
    member: SubjectMember, kind: SubjectKind, censusScope: CensusScope?,
    notify: @escaping (SubjectMember, SubjectMember.Notice) -> Void
  ) {
    self.member = member
    self.kind = kind
    self.censusScope = censusScope
    self.notify = notify
  }

  @usableFromInline
  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    guard let member = lock.withLock({ _ in member }) else { return }
    // An `objectWillChange` subscriber that has asked once gets every signal, as in Combine.
    member.addDemand(kind == .objectWillChange ? .unlimited : demand)
    if member.tracksCurrentValue {
      // Pairs with `SubjectDownstream.missedCurrentValue`: either the subject sees this demand
      // after marking the value as missed, or this load sees the mark.
      if member.awaitingCurrentValue.load(ordering: .sequentiallyConsistent) {
        notify(member, .wantsCurrentValue)
      }
    } else {
      notify(member, .demanded)
    }
  }

  @usableFromInline
  func cancel() {
    let member = lock.withLock { _ in
      defer { self.member = nil }
      if let member = self.member { demandLeft = member.demand.load(ordering: .relaxed) }
      return self.member
    }
    guard let member, !member.terminated.exchange(true, ordering: .acquiringAndReleasing) else { return }
    notify(member, .cancelled)
  }

  /// Called by the subject's delivery when the subscription has ended.
  @usableFromInline
  func unlink() {
    lock.withLock { _ in
      if let member { demandLeft = member.demand.load(ordering: .relaxed) }
      member = nil
    }
  }
}

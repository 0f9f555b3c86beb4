import Synchronization

/// What a subject's subscription handle needs of one subscriber: its demand and whether it has
/// ended.
///
/// It is not generic, so that `SubjectHandle` is not either: a subscriber calls `request` and
/// `cancel` through `any Subscription`, and the witnesses of a generic class run unspecialized.
///
/// A delivery reads these fields, the conduit's `offer` and the subscriber, and they all sit in
/// the first 64 bytes of the object: with many subscribers, each cache line more is a miss more
/// per value. Everything else the class hierarchy holds comes after them.
@usableFromInline
class SubjectMember: @unchecked Sendable {
  /// What a handle asks the subject to do for a member.
  @usableFromInline
  enum Notice {
    /// The subscriber cancelled: take the member off the subject's list and let it go.
    case cancelled
    /// Demand arrived while the member was owed the current value.
    case wantsCurrentValue
    /// Demand arrived for a passthrough subject's member.
    case demanded
  }

  // Demand not yet used, `UInt.max` for unlimited.
  @usableFromInline
  let demand = Atomic<UInt>(0)
  // Set once, by a cancel or by the completion, whichever comes first; after it nothing more is
  // delivered.
  @usableFromInline
  let terminated = Atomic<Bool>(false)
  // A current-value subject's subscriber gets the value with its first demand, and again with
  // the next demand after it missed a value for want of demand, as in Combine.
  @usableFromInline
  let awaitingCurrentValue: Atomic<Bool>
  // Immutable: whether the subject is a current-value subject.
  @usableFromInline
  let tracksCurrentValue: Bool
  // Owned by the subject's delivery: whether `receive(subscription:)` has returned, so that the
  // subscriber may be called.
  @usableFromInline @exclusivity(unchecked)
  var ready = false
  // Owned by the subject's delivery: whether a current-value subject's subscriber is owed the
  // current value, having had no value since it joined or since it missed one. This, not
  // `awaitingCurrentValue` (which only tells a request to ask), decides whether an offer of the
  // current value still stands when the delivery comes to it.
  @usableFromInline @exclusivity(unchecked)
  var owedCurrentValue: Bool

  @inlinable
  init(tracksCurrentValue: Bool) {
    self.tracksCurrentValue = tracksCurrentValue
    awaitingCurrentValue = Atomic(tracksCurrentValue)
    owedCurrentValue = tracksCurrentValue
  }

  /// The subscriber and the subject's type, for the handle's mirror; the subject's delivery may be
  /// using them meanwhile, which reading them does not disturb.
  @usableFromInline
  func reflected() -> (downstream: Any?, subject: Any.Type?) { (nil, nil) }

  @inlinable @inline(__always)
  func takeDemand() -> Bool {
    var current = demand.load(ordering: .relaxed)
    while true {
      if current == .max { return true }
      if current == 0 { return false }
      let (exchanged, original) = demand.compareExchange(
        expected: current, desired: current - 1, ordering: .relaxed)
      if exchanged { return true }
      current = original
    }
  }

  @inlinable
  func addDemand(_ more: Subscribers.Demand) {
    var current = demand.load(ordering: .relaxed)
    while current != .max {
      let updated = (Subscribers.Demand(rawValue: current) + more).rawValue
      let (exchanged, original) = demand.compareExchange(
        expected: current, desired: updated, ordering: .sequentiallyConsistent)
      if exchanged { return }
      current = original
    }
  }
}

/// One subscriber of a subject, as the subject's delivery sees it.
///
/// Everything here except the atomics of `SubjectMember` is touched only by the thread that owns
/// the subject's delivery (see `SubjectCore`), so calls into the subscriber never overlap.
/// `offer` is a function stored at subscription time rather than a method: it is created where
/// the subscriber's type is known, so the delivery of a value is specialized for it (a class
/// method of a generic class always runs unspecialized). The rarer events, which would push the
/// subscriber out of the object's first cache line if they were stored functions too, are
/// methods.
@usableFromInline
class SubjectConduit<Output, Failure: Error>: SubjectMember, @unchecked Sendable {
  // The value comes by pointer: a function type that names `Output` directly would be called
  // through a reabstraction thunk (the stored function takes its argument indirectly, the
  // specialized closure directly), which cost a second call per subscriber per value.
  @usableFromInline
  let offer: (SubjectConduit<Output, Failure>, UnsafePointer<Output>) -> Void

  @inlinable
  init(
    tracksCurrentValue: Bool, offer: @escaping (SubjectConduit<Output, Failure>, UnsafePointer<Output>) -> Void
  ) {
    self.offer = offer
    super.init(tracksCurrentValue: tracksCurrentValue)
  }

  /// `receive(subscription:)` has returned: delivers what waited for it.
  @usableFromInline
  func becomeReady() {}

  /// Demand came while the subscriber was owed the current value: delivers the value the subject
  /// broadcast last, unless the subscriber has had a value since.
  @usableFromInline
  func offerCurrentValue() {}

  /// Delivers the completion (once ready) and ends the subscription.
  @usableFromInline
  func finish(_ completion: Subscribers.Completion<Failure>) {}

  /// Breaks the link with the handle once the subscription has ended.
  @usableFromInline
  func unlink() {}
}

/// One subscriber of a subject: the subscriber itself, which the subject's delivery calls
/// without retaining it for every value because it is immutable here.
///
/// It goes away when the subscription ends (the subject lets it go and the handle forgets it),
/// and the subscriber with it, even if the subscriber keeps its handle.
@usableFromInline
final class SubjectSubscription<Downstream: Subscriber>: SubjectConduit<Downstream.Input, Downstream.Failure>,
  CensusScoped, @unchecked Sendable
{
  @usableFromInline
  typealias Output = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure

  // In the object's first cache line, with the fields a delivery reads; see `SubjectMember`.
  @usableFromInline
  let downstream: Downstream
  @usableFromInline
  let core: SubjectCore<Output, Failure>
  // Owned by the subject's delivery: the handle the subscriber holds, until either side ends the
  // subscription. Each holds the other; whichever ends it breaks the cycle.
  @usableFromInline @exclusivity(unchecked)
  var handle: SubjectHandle?
  @usableFromInline
  let census: CensusToken
  // Owned by the subject's delivery: values that took demand before the subscriber was ready.
  // Boxed, because a field whose type is built from the class's parameters makes every teardown
  // look up its runtime metadata, and this one is almost always empty.
  @usableFromInline @exclusivity(unchecked)
  var pendingValues: [Any] = []
  // Owned by the subject's delivery: a completion that came before the subscriber was ready.
  @usableFromInline @exclusivity(unchecked)
  var pendingCompletion = PendingCompletion.none

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(core: SubjectCore<Output, Failure>, downstream: Downstream) {
    census = CensusToken(
      SubjectSubscription.self,
      inheritingFrom: (downstream as? any CensusScoped)?.censusScope == nil ? core : downstream)
    self.downstream = downstream
    self.core = core
    super.init(tracksCurrentValue: core.tracksCurrentValue) { conduit, value in
      unsafeDowncast(conduit, to: SubjectSubscription.self).offerValue(value.pointee)
    }
  }

  /// What the handle asks of the subject, on any thread; handed to the handle as a function
  /// specialized for this subscriber.
  @inlinable
  static func notify(_ member: SubjectMember, _ notice: Notice) {
    let subscription = unsafeDowncast(member, to: SubjectSubscription.self)
    switch notice {
    case .cancelled:
      subscription.core.perform(.leave(subscription))
    case .wantsCurrentValue:
      guard subscription.awaitingCurrentValue.exchange(false, ordering: .acquiringAndReleasing) else { return }
      if subscription.core.ownsDeliveryWhileSubscribing() {
        // A request made inside `receive(subscription:)` on the thread that owns delivery gets
        // the value inside the request, as in Combine.
        subscription.deliverCurrentValueNow()
      } else {
        // The value is read when the delivery comes to the offer, in order with the broadcasts.
        subscription.core.perform(.offer(subscription))
      }
    case .demanded:
      subscription.core.acknowledgeDownstreamDemand()
    }
  }

  @usableFromInline
  override func becomeReady() {
    deliverPending()
  }

  @usableFromInline
  override func offerCurrentValue() {
    // After the completion has gone out, nothing more does, even to a subscriber still waiting
    // to be ready.
    guard owedCurrentValue, core.delivered == nil, let value = core.lastBroadcast else { return }
    offerValue(value)
  }

  @usableFromInline
  override func finish(_ completion: Subscribers.Completion<Failure>) {
    finishDelivery(completion)
  }

  @usableFromInline
  override func unlink() {
    handle?.unlink()
    handle = nil
  }

  @usableFromInline
  override func reflected() -> (downstream: Any?, subject: Any.Type?) { (downstream, core.subjectType) }

  /// Delivers the current value at once, even before `receive(subscription:)` has returned.
  /// Called only by the owner of the subject's delivery while nothing is queued, so the value is
  /// the subject's and nothing else is on its way to the subscriber.
  @usableFromInline
  func deliverCurrentValueNow() {
    guard owedCurrentValue, core.delivered == nil, let value = core.lastBroadcast,
      !terminated.load(ordering: .relaxed)
    else { return }
    guard takeDemand() else {
      missedCurrentValue()
      return
    }
    owedCurrentValue = false
    awaitingCurrentValue.store(false, ordering: .relaxed)
    let more = downstream.receive(value)
    if more != .none { addDemand(more) }
  }

  /// Marks that the subscriber should get the current value with its next demand. Called by the
  /// owner of the subject's delivery.
  @inlinable
  func missedCurrentValue() {
    owedCurrentValue = true
    awaitingCurrentValue.store(true, ordering: .sequentiallyConsistent)
    // A request that added demand just before the mark was set did not see it.
    if demand.load(ordering: .sequentiallyConsistent) > 0,
      awaitingCurrentValue.exchange(false, ordering: .acquiringAndReleasing)
    {
      offerCurrentValue()
    }
  }

  /// Delivers a value if the subscriber has demand; a value offered without demand is dropped,
  /// as in Combine. Always inlined into the member's `offer` function, which saves a call per
  /// subscriber per value.
  @inlinable @inline(__always)
  func offerValue(_ value: Output) {
    guard !terminated.load(ordering: .relaxed) else { return }
    guard takeDemand() else {
      if tracksCurrentValue { missedCurrentValue() }
      return
    }
    if tracksCurrentValue {
      owedCurrentValue = false
      if awaitingCurrentValue.load(ordering: .relaxed) { awaitingCurrentValue.store(false, ordering: .relaxed) }
    }
    guard ready else {
      pendingValues.append(value)
      return
    }
    let more = downstream.receive(value)
    if more != .none { addDemand(more) }
  }

  /// Marks the subscriber ready, once `receive(subscription:)` has returned, and delivers what
  /// came for it meanwhile.
  @inlinable
  func deliverPending() {
    ready = true
    let values = pendingValues
    pendingValues = []
    for value in values {
      // A cancel made from inside `receive` stops the rest at once.
      if terminated.load(ordering: .relaxed) { break }
      let more = downstream.receive(value as! Output)
      if more != .none { addDemand(more) }
    }
    if let completion = pendingCompletion.completion(failing: Failure.self) {
      pendingCompletion = .none
      finishDelivery(completion)
    }
  }

  /// Delivers the completion unless the subscriber cancelled first, and ends the subscription.
  @inlinable
  func finishDelivery(_ completion: Subscribers.Completion<Failure>) {
    guard ready else {
      pendingCompletion = PendingCompletion(completion)
      return
    }
    if !terminated.exchange(true, ordering: .acquiringAndReleasing) {
      downstream.receive(completion: completion)
    }
    unlink()
  }
}

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
final class SubjectHandle: Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
  CensusScoped, @unchecked Sendable
{
  // Guards `member` and `demandLeft`.
  @usableFromInline
  let lock = Locked<Void>(())
  // Guarded by `lock`: the member, until the subscription ends.
  @usableFromInline @exclusivity(unchecked)
  var member: SubjectMember?
  // Guarded by `lock`: the demand the member had left when the subscription ended, for the
  // mirror.
  @usableFromInline @exclusivity(unchecked)
  var demandLeft: UInt = 0
  @usableFromInline
  let censusScope: CensusScope?
  // Immutable: tells the subject, specialized for its element type and the subscriber's.
  @usableFromInline
  let notify: (SubjectMember, SubjectMember.Notice) -> Void

  @usableFromInline
  var description: String { tracksCurrentValue ? "CurrentValueSubject" : "PassthroughSubject" }

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
    let children: [Mirror.Child] = [
      ("parent", subject as Any), ("downstream", downstream as Any), ("demand", demand), ("subject", subject as Any),
    ]
    return Mirror(self, children: children)
  }

  // Immutable: which kind of subject, for `description`.
  @usableFromInline
  let tracksCurrentValue: Bool

  @inlinable
  init(
    member: SubjectMember, censusScope: CensusScope?,
    notify: @escaping (SubjectMember, SubjectMember.Notice) -> Void
  ) {
    self.member = member
    self.tracksCurrentValue = member.tracksCurrentValue
    self.censusScope = censusScope
    self.notify = notify
  }

  @usableFromInline
  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    guard let member = lock.withLock({ _ in member }) else { return }
    member.addDemand(demand)
    if member.tracksCurrentValue {
      // Pairs with `SubjectSubscription.missedCurrentValue`: either the subject sees this demand
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

/// A completion kept without naming its failure type; see `SubjectSubscription.pendingCompletion`.
@usableFromInline
enum PendingCompletion {
  case none
  case finished
  case failure(any Error)

  @inlinable
  init<Failure>(_ completion: Subscribers.Completion<Failure>) {
    switch completion {
    case .finished: self = .finished
    case .failure(let error): self = .failure(error)
    }
  }

  /// The completion, with the failure type it was stored with.
  @inlinable
  func completion<Failure>(failing: Failure.Type) -> Subscribers.Completion<Failure>? {
    switch self {
    case .none: nil
    case .finished: .finished
    case .failure(let error): .failure(error as! Failure)
    }
  }
}

import Synchronization

/// What a subject's subscription handle needs of one subscriber: its demand, whether it has
/// ended, and a way to tell the subject about a cancel or a demand that wants the current value.
///
/// It is not generic, so that `SubjectHandle` is not either: a subscriber calls `request` and
/// `cancel` through `any Subscription`, and the witnesses of a generic class run unspecialized.
@usableFromInline
class SubjectMember: @unchecked Sendable {
  /// What a handle asks the subject to do for this member.
  @usableFromInline
  enum Notice {
    /// The subscriber cancelled: take the member off the subject's list and let it go.
    case cancelled
    /// Demand arrived while the member was owed the current value.
    case wantsCurrentValue
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
  // Immutable: tells the subject (specialized for its element type; see `SubjectConduit`).
  @usableFromInline
  let notify: (SubjectMember, Notice) -> Void

  @inlinable
  init(tracksCurrentValue: Bool, notify: @escaping (SubjectMember, Notice) -> Void) {
    self.tracksCurrentValue = tracksCurrentValue
    awaitingCurrentValue = Atomic(tracksCurrentValue)
    self.notify = notify
  }

  /// Called by the handle on any thread.
  @inlinable
  func request(_ more: Subscribers.Demand) {
    addDemand(more)
    // Pairs with `SubjectConduit.missedCurrentValue`: either the subject sees this demand after
    // marking the value as missed, or this load sees the mark.
    if tracksCurrentValue && awaitingCurrentValue.load(ordering: .sequentiallyConsistent) {
      notify(self, .wantsCurrentValue)
    }
  }

  /// Called by the handle on any thread.
  @inlinable
  func cancel() {
    guard !terminated.exchange(true, ordering: .acquiringAndReleasing) else { return }
    notify(self, .cancelled)
  }

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
/// `offer` and `finish` are functions stored at subscription time rather than methods: they are
/// created where the subscriber's type is known, so the whole delivery path is specialized for it
/// (a class method of a generic class would always run unspecialized).
@usableFromInline
class SubjectConduit<Output, Failure: Error>: SubjectMember {
  @usableFromInline
  let offer: (SubjectConduit<Output, Failure>, Output) -> Void
  @usableFromInline
  let becomeReady: (SubjectConduit<Output, Failure>) -> Void
  @usableFromInline
  let finish: (SubjectConduit<Output, Failure>, Subscribers.Completion<Failure>) -> Void
  @usableFromInline
  let core: SubjectCore<Output, Failure>
  // Owned by the subject's delivery: the handle the subscriber holds, until either side ends the
  // subscription. Each holds the other; whichever ends it breaks the cycle.
  @usableFromInline @exclusivity(unchecked)
  var handle: SubjectHandle?

  @inlinable
  init(
    core: SubjectCore<Output, Failure>,
    offer: @escaping (SubjectConduit<Output, Failure>, Output) -> Void,
    becomeReady: @escaping (SubjectConduit<Output, Failure>) -> Void,
    finish: @escaping (SubjectConduit<Output, Failure>, Subscribers.Completion<Failure>) -> Void
  ) {
    self.core = core
    self.offer = offer
    self.becomeReady = becomeReady
    self.finish = finish
    super.init(tracksCurrentValue: core.tracksCurrentValue) { member, notice in
      let conduit = unsafeDowncast(member, to: SubjectConduit<Output, Failure>.self)
      switch notice {
      case .cancelled:
        conduit.core.perform(.leave(conduit))
      case .wantsCurrentValue:
        // The value is read now, when the demand arrives, as in Combine.
        if let value = conduit.takeAwaitedCurrentValue() { conduit.core.perform(.offer(conduit, value)) }
      }
    }
  }

  /// Marks that the subscriber should get the current value with its next demand. Called by the
  /// owner of the subject's delivery.
  @inlinable
  final func missedCurrentValue() {
    awaitingCurrentValue.store(true, ordering: .sequentiallyConsistent)
    // A request that added demand just before the mark was set did not see it.
    if demand.load(ordering: .sequentiallyConsistent) > 0, let value = takeAwaitedCurrentValue() {
      offer(self, value)
    }
  }

  /// The current value, if the subscriber is owed it; only one caller gets it.
  @inlinable
  final func takeAwaitedCurrentValue() -> Output? {
    guard awaitingCurrentValue.load(ordering: .relaxed),
      awaitingCurrentValue.exchange(false, ordering: .acquiringAndReleasing)
    else { return nil }
    return core.valueForNewSubscriber()
  }

  /// Breaks the link with the handle once the subscription has ended.
  @inlinable
  final func unlink() {
    handle?.unlink()
    handle = nil
  }
}

/// One subscriber of a subject: the subscriber itself, which the subject's delivery calls
/// without retaining it for every value because it is immutable here.
///
/// It goes away when the subscription ends (the subject lets it go and the handle forgets it),
/// and the subscriber with it, even if the subscriber keeps its handle.
@usableFromInline
final class SubjectSubscription<Downstream: Subscriber>: SubjectConduit<Downstream.Input, Downstream.Failure>,
  CensusScoped
{
  @usableFromInline
  typealias Output = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  let downstream: Downstream
  // Owned by the subject's delivery: whether `receive(subscription:)` has returned, so that the
  // subscriber may be called. Declared next to `downstream`, so that a delivery reads both from
  // one cache line.
  @usableFromInline @exclusivity(unchecked)
  var ready = false
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
    super.init(
      core: core,
      offer: { conduit, value in
        unsafeDowncast(conduit, to: SubjectSubscription.self).offerValue(value)
      },
      becomeReady: { conduit in
        unsafeDowncast(conduit, to: SubjectSubscription.self).deliverPending()
      },
      finish: { conduit, completion in
        unsafeDowncast(conduit, to: SubjectSubscription.self).finishDelivery(completion)
      })
  }

  /// Delivers a value if the subscriber has demand; a value offered without demand is dropped,
  /// as in Combine.
  @inlinable
  func offerValue(_ value: Output) {
    guard !terminated.load(ordering: .relaxed) else { return }
    guard takeDemand() else {
      if tracksCurrentValue { missedCurrentValue() }
      return
    }
    if tracksCurrentValue && awaitingCurrentValue.load(ordering: .relaxed) {
      awaitingCurrentValue.store(false, ordering: .relaxed)
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
@usableFromInline
final class SubjectHandle: Subscription, CustomStringConvertible, CensusScoped, @unchecked Sendable {
  // Guards `member`.
  @usableFromInline
  let lock = Locked<Void>(())
  // Guarded by `lock`: the member, until the subscription ends.
  @usableFromInline @exclusivity(unchecked)
  var member: SubjectMember?
  @usableFromInline
  let censusScope: CensusScope?

  @usableFromInline
  var description: String { "Subject" }

  @inlinable
  init(member: SubjectMember, censusScope: CensusScope?) {
    self.member = member
    self.censusScope = censusScope
  }

  @usableFromInline
  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    lock.withLock { _ in member }?.request(demand)
  }

  @usableFromInline
  func cancel() {
    let member = lock.withLock { _ in
      defer { self.member = nil }
      return self.member
    }
    member?.cancel()
  }

  /// Called by the subject's delivery when the subscription has ended.
  @usableFromInline
  func unlink() {
    lock.withLock { _ in member = nil }
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

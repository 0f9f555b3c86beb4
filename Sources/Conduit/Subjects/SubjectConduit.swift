import Synchronization

/// What a subject calls on each of its subscribers.
///
/// `offer` is a function stored at subscription time rather than a method: it is created where
/// the subscriber's type is known, so the whole delivery path is specialized for it (a class
/// method of a generic class would always run unspecialized).
@usableFromInline
class SubjectConduit<Output, Failure: Error>: @unchecked Sendable {
  @usableFromInline
  let offer: (SubjectConduit<Output, Failure>, Output) -> Void

  @inlinable
  init(offer: @escaping (SubjectConduit<Output, Failure>, Output) -> Void) {
    self.offer = offer
  }

  @inlinable
  func finish(_ completion: Subscribers.Completion<Failure>) {}
}

/// One subscriber of a subject: its demand, and the serialization of calls into it.
///
/// Calls into the subscriber never overlap. Whichever thread takes `ownership` from 0 to 1
/// delivers; a thread that finds it taken (another sender, or a `send` made from inside
/// `receive`) appends its value to the backlog and bumps the count, and the owner delivers the
/// backlog before it lets go. The uncontended path is two atomic operations and no lock.
/// Demand is taken when a value is offered: a value offered without demand is dropped, as in
/// Combine.
@usableFromInline
final class SubjectSubscription<Downstream: Subscriber>: SubjectConduit<Downstream.Input, Downstream.Failure>,
  SubscriptionRequestHandler, Subscription, CustomStringConvertible, CensusScoped, @unchecked Sendable
{
  @usableFromInline
  typealias Output = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure

  // Guards the four backlog properties below. The lock holds no state of its own: a lock over a
  // generic state struct would make every teardown of this generic class look up the runtime
  // metadata of that struct, of the lock and of the lock's storage.
  @usableFromInline
  let backlogLock = Locked<Void>(())
  // Guarded by `backlogLock`: values offered while another thread owned delivery.
  @usableFromInline @exclusivity(unchecked)
  var backlogValues: [Output] = []
  // Guarded by `backlogLock`: the completion waiting for the owner of delivery. Not stored as a
  // `Subscribers.Completion<Failure>?`, whose generic metadata the teardown would look up.
  @usableFromInline @exclusivity(unchecked)
  var backlogCompletion = PendingCompletion.none
  // Guarded by `backlogLock`.
  @usableFromInline @exclusivity(unchecked)
  var cancelled = false
  // Guarded by `backlogLock`: the subject, until the subscription ends.
  @usableFromInline @exclusivity(unchecked)
  var core: SubjectCore<Output, Failure>?
  // The number of deliveries owed: 0 means nobody owns delivery. Starts at 1, owned by the
  // subscribing thread until `receive(subscription:)` has returned.
  @usableFromInline
  let ownership = Atomic<Int>(1)
  // Demand not yet used, `UInt.max` for unlimited.
  @usableFromInline
  let demand = Atomic<UInt>(0)
  // Set once by completion or cancellation; after it, offers are dropped.
  @usableFromInline
  let terminated = Atomic<Bool>(false)
  // A current-value subject's subscriber gets the value with its first demand, and again with
  // the next demand after it missed a value for want of demand, as in Combine.
  @usableFromInline
  let awaitingCurrentValue: Atomic<Bool>
  // Immutable: whether the subject is a current-value subject.
  @usableFromInline
  let tracksCurrentValue: Bool
  // Owned by the thread that holds `ownership`; released when the subscription ends.
  // Exclusive access is guaranteed by `ownership`, so the runtime check is skipped.
  @usableFromInline @exclusivity(unchecked)
  var downstream: Downstream?
  @usableFromInline
  let census: CensusToken
  // Specialized `request` and `cancel`; see `SubscriptionRequest`.
  @usableFromInline
  let handle: (SubjectSubscription, SubscriptionRequest) -> Void

  @usableFromInline
  var description: String { "Subject" }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(core: SubjectCore<Output, Failure>, downstream: Downstream) {
    census = CensusToken(
      SubjectSubscription.self,
      inheritingFrom: (downstream as? any CensusScoped)?.censusScope == nil ? core : downstream)
    self.core = core
    tracksCurrentValue = core.isCurrentValueSubject
    awaitingCurrentValue = Atomic(tracksCurrentValue)
    self.downstream = downstream
    handle = SubscriptionRequest.dispatcher()
    super.init(offer: { conduit, value in
      unsafeDowncast(conduit, to: SubjectSubscription.self).offerValue(value)
    })
  }

  // MARK: Called by the subject

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
    if ownership.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
      deliver(value)
      endDelivery()
    } else {
      backlogLock.withLock { _ in backlogValues.append(value) }
      post()
    }
  }

  @inlinable
  override func finish(_ completion: Subscribers.Completion<Failure>) {
    guard !terminated.exchange(true, ordering: .acquiringAndReleasing) else { return }
    backlogLock.withLock { _ in
      backlogCompletion = PendingCompletion(completion)
      core = nil
    }
    post()
  }

  /// Releases the delivery ownership the caller holds; delivers whatever was posted meanwhile.
  @inlinable
  func endDelivery() {
    if !ownership.compareExchange(expected: 1, desired: 0, ordering: .releasing).exchanged {
      drain(missed: 1)
    }
  }

  /// Used when the subject had completed before this conduit could join it.
  @inlinable
  func abandon() {
    terminated.store(true, ordering: .relaxed)
    downstream = nil
    backlogLock.withLock { _ in core = nil }
  }

  // MARK: Subscription

  @usableFromInline
  func request(_ demand: Subscribers.Demand) {
    handle(self, .demand(demand))
  }

  @usableFromInline
  func cancel() {
    handle(self, .cancel)
  }

  @inlinable
  func handleDemand(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    addDemand(demand)
    offerCurrentValueIfAwaited()
  }

  /// Marks that the subscriber should get the current value with its next demand.
  @inlinable
  func missedCurrentValue() {
    awaitingCurrentValue.store(true, ordering: .releasing)
    // A request that added demand just before the flag was set did not see it.
    if demand.load(ordering: .acquiring) > 0 { offerCurrentValueIfAwaited() }
  }

  @inlinable
  func offerCurrentValueIfAwaited() {
    if awaitingCurrentValue.load(ordering: .relaxed),
      awaitingCurrentValue.exchange(false, ordering: .acquiringAndReleasing),
      let value = backlogLock.withLock({ _ in core })?.valueForNewSubscriber()
    {
      offerValue(value)
    }
  }

  @inlinable
  func handleCancel() {
    guard !terminated.exchange(true, ordering: .acquiringAndReleasing) else { return }
    let core = backlogLock.withLock { _ in
      cancelled = true
      defer { self.core = nil }
      return self.core
    }
    core?.detach(self)
    post()
  }

  // MARK: Delivery

  /// Counts one more delivery owed; the thread that finds nobody owning delivery drains.
  @inlinable
  func post() {
    if ownership.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0 {
      drain(missed: 1)
    }
  }

  @inlinable
  func drain(missed: Int) {
    var missed = missed
    while true {
      let (values, completion, cancelled) = backlogLock.withLock { _ in
        defer {
          backlogValues = []
          backlogCompletion = .none
        }
        return (backlogValues, backlogCompletion.completion(failing: Failure.self), self.cancelled)
      }
      if cancelled {
        downstream = nil
      } else {
        for value in values {
          // A cancel made while this batch is delivered (from inside `receive`, or from another
          // thread) stops it at once; a completion is no cancel, and lets the batch finish.
          if terminated.load(ordering: .relaxed), backlogLock.withLock({ _ in self.cancelled }) { break }
          deliver(value)
        }
        if let completion, let downstream {
          self.downstream = nil
          downstream.receive(completion: completion)
        }
      }
      missed = ownership.wrappingSubtract(missed, ordering: .acquiringAndReleasing).newValue
      if missed == 0 { return }
    }
  }

  @inlinable @inline(__always)
  func deliver(_ value: Output) {
    guard let downstream else { return }
    let more = downstream.receive(value)
    if more != .none { addDemand(more) }
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
        expected: current, desired: updated, ordering: .relaxed)
      if exchanged { return }
      current = original
    }
  }
}

/// A completion kept without naming its failure type; see `SubjectSubscription.backlogCompletion`.
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

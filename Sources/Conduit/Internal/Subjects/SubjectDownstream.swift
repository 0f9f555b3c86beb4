import Synchronization

/// One subscriber of a subject: the subscriber itself, which the subject's delivery calls
/// without retaining it for every value because it is immutable here.
///
/// It goes away when the subscription ends (the subject lets it go and the subscription forgets it),
/// and the subscriber with it, even if the subscriber keeps its subscription.
@usableFromInline
final class SubjectDownstream<Downstream: Subscriber>: SubjectMember,
  CensusScoped
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
  // Fields with unchecked exclusivity skip the runtime check, which costs in "PassthroughSubject.send, 100 sinks, per delivery".
  // Owned by the subject's delivery: the subscription the subscriber holds, until either side ends the
  // subscription. Each holds the other; whichever ends it breaks the cycle.
  @usableFromInline @exclusivity(unchecked)
  var handle: SubjectSubscription?
  @usableFromInline
  let census: CensusToken
  // Owned by the subject's delivery: values that took demand before the subscriber was ready.
  // Boxed, because a field whose type is built from the class's parameters makes every teardown
  // look up its runtime metadata, and this one is almost always empty.
  @usableFromInline
  var pendingValues: [Any] = []
  // Owned by the subject's delivery: a completion that came before the subscriber was ready.
  @usableFromInline
  var pendingCompletion = SubjectState.Completion.none

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(core: SubjectCore<Output, Failure>, downstream: Downstream) {
    census = CensusToken(
      SubjectDownstream.self,
      inheritingFrom: (CensusToken.unwrapped(downstream) as? any CensusScoped)?.censusScope == nil ? core : downstream,
      named: String(describing: core.subjectType))
    self.downstream = downstream
    self.core = core
    super.init(tracksCurrentValue: core.tracksCurrentValue) { member, value in
      unsafeDowncast(member, to: SubjectDownstream.self).offerValue(
        value.assumingMemoryBound(to: Output.self).pointee)
    }
  }

  /// What the subscription asks of the subject, on any thread; handed to the subscription as a function
  /// specialized for this subscriber.
  @inlinable
  static func notify(_ member: SubjectMember, _ notice: Notice) {
    let subscription = unsafeDowncast(member, to: SubjectDownstream.self)
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
    guard owedCurrentValue, !core.hasDelivered else { return }
    offerValue(core.currentValueCore.lastBroadcast)
  }

  @usableFromInline
  override func finish(_ completion: SubjectState.Completion) {
    guard ready else {
      pendingCompletion = completion
      return
    }
    // The subject's completion, so of this subscriber's failure type.
    if !terminated.exchange(true, ordering: .acquiringAndReleasing),
      let completion = completion.completion(failing: Failure.self)
    {
      downstream.receive(completion: completion)
    }
    unlink()
  }

  @usableFromInline
  override func unlink() {
    handle?.unlink()
    handle = nil
  }

  @usableFromInline
  override func dropHandle() {
    handle = nil
  }

  @usableFromInline
  override func reflected() -> (downstream: Any?, subject: Any.Type?) { (downstream, core.subjectType) }

  /// Delivers the current value at once, even before `receive(subscription:)` has returned.
  /// Called only by the owner of the subject's delivery while nothing is queued, so the value is
  /// the subject's and nothing else is on its way to the subscriber.
  @usableFromInline
  func deliverCurrentValueNow() {
    guard owedCurrentValue, !core.hasDelivered, !terminated.load(ordering: .relaxed) else { return }
    let value = core.currentValueCore.lastBroadcast
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
    if !pendingCompletion.isNone {
      let completion = pendingCompletion
      pendingCompletion = .none
      finish(completion)
    }
  }

}

import Synchronization

/// The engine shared by `PassthroughSubject` and `CurrentValueSubject`: the list of subscribers,
/// the completion, the upstream subscriptions, and (for a current-value subject) the value.
///
/// Delivery is owned by one thread at a time, for all of the subject's subscribers at once.
/// Whichever thread takes `ownership` from 0 to 1 delivers; a thread that finds it taken
/// (another sender, or a `send`, `subscribe` or `cancel` made from inside `receive`) queues what
/// it has and bumps the count, and the owner delivers the queue before it lets go. So calls into
/// a subscriber never overlap, each subscriber sees the values in the order they were queued,
/// and a sender never blocks. The list of subscribers belongs to the owner, which is why joining
/// and leaving go through the queue too. An uncontended `send` to a passthrough subject is two
/// atomic operations and no lock, whatever the number of subscribers.
///
/// Its sending path is `@inlinable` so that it is specialized for the subject's element type in
/// the caller's module; generic code that is not specialized costs ten times more per value.
@usableFromInline
final class SubjectCore<Output, Failure: Error>: CensusScoped, @unchecked Sendable {
  @usableFromInline
  struct State {
    /// The completion, from the moment it was sent (the owner of delivery may not have delivered
    /// it yet).
    @usableFromInline
    var completion: Subscribers.Completion<Failure>?
    @usableFromInline
    var upstreams: [any Subscription] = []
    /// The current value; `nil` for a passthrough subject.
    @usableFromInline
    var value: Output?

    @inlinable
    init(value: Output?) {
      self.value = value
    }
  }

  /// What waits in the queue for the owner of delivery.
  @usableFromInline
  enum Event {
    case value(Output)
    case completion(Subscribers.Completion<Failure>)
    case join(SubjectConduit<Output, Failure>)
    case ready(SubjectConduit<Output, Failure>)
    case leave(SubjectConduit<Output, Failure>)
    case offer(SubjectConduit<Output, Failure>, Output)
  }

  @usableFromInline
  typealias Member = Unmanaged<SubjectConduit<Output, Failure>>

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
  // Immutable: the leak check running where the subject was created, if any. A subscriber that
  // joins later from a thread with no check of its own (a Dispatch queue) is attributed to it.
  @usableFromInline
  let censusScope: CensusScope?
  // Immutable.
  @usableFromInline
  let tracksCurrentValue: Bool
  // The number of deliveries owed: 0 means nobody owns delivery.
  @usableFromInline
  let ownership = Atomic<Int>(0)
  // Guards `queue`.
  @usableFromInline
  let queueLock = Locked<Void>(())
  // Guarded by `queueLock`: what was posted while another thread owned delivery.
  @usableFromInline @exclusivity(unchecked)
  var queue: [Event] = []
  // Owned by the thread that owns delivery: the members that have joined, each retained once.
  // A buffer of unmanaged references, so that a delivery neither retains the list nor its
  // members; only the owner changes it, and never while it is delivering a value.
  @usableFromInline @exclusivity(unchecked)
  var members: UnsafeMutablePointer<Member>?
  // Owned by the thread that owns delivery.
  @usableFromInline @exclusivity(unchecked)
  var memberCount = 0
  // Owned by the thread that owns delivery.
  @usableFromInline @exclusivity(unchecked)
  var memberCapacity = 0
  // Owned by the thread that owns delivery: the completion once it has been delivered.
  @usableFromInline @exclusivity(unchecked)
  var delivered: Subscribers.Completion<Failure>?

  @inlinable
  init(value: Output?) {
    state = Locked(State(value: value))
    censusScope = CensusScope.currentIfActive
    tracksCurrentValue = value != nil
  }

  deinit {
    // Members hold the core, so none is left by now; the buffer may be.
    members?.deallocate()
  }

  // MARK: Sending

  @inlinable
  func send(_ value: Output) {
    if tracksCurrentValue {
      let accepted = state.withLock { state -> Bool in
        guard state.completion == nil else { return false }
        state.value = value
        return true
      }
      guard accepted else { return }
    }
    if ownership.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
      broadcast(value)
      endDelivery()
    } else {
      post(.value(value))
    }
  }

  /// Sets the current value even after completion; sends it only while active.
  @inlinable
  func setValue(_ value: Output) {
    let active = state.withLock { state -> Bool in
      state.value = value
      return state.completion == nil
    }
    if active { perform(.value(value)) }
  }

  @inlinable
  func send(completion: Subscribers.Completion<Failure>) {
    let accepted = state.withLock { state -> Bool in
      guard state.completion == nil else { return false }
      state.completion = completion
      state.upstreams = []
      return true
    }
    if accepted { perform(.completion(completion)) }
  }

  @usableFromInline
  func send(subscription: any Subscription) {
    state.withLock { $0.upstreams.append(subscription) }
    subscription.request(.unlimited)
  }

  @inlinable
  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    if let completion = state.withLock({ $0.completion }) {
      subscriber.receive(subscription: Subscriptions.empty)
      subscriber.receive(completion: completion)
      return
    }
    let conduit = SubjectSubscription(core: self, downstream: subscriber)
    let handle = SubjectHandle(member: conduit, censusScope: conduit.censusScope)
    conduit.handle = handle
    // The subscriber joins first, so that it gets whatever is sent from inside
    // `receive(subscription:)`, but it is not called until that has returned: what comes
    // meanwhile waits for it, in order.
    if ownership.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
      // As the owner of delivery, this thread is the only one that could call the subscriber,
      // and it will not before it lets go.
      join(conduit)
      subscriber.receive(subscription: handle)
      conduit.deliverPending()
      endDelivery()
    } else {
      post(.join(conduit))
      subscriber.receive(subscription: handle)
      perform(.ready(conduit))
    }
  }

  /// The value a new subscriber of a current-value subject gets with its first demand.
  @inlinable
  func valueForNewSubscriber() -> Output? {
    state.withLock { $0.completion == nil ? $0.value : nil }
  }

  // MARK: Delivery

  /// Handles `event` now if no other thread owns delivery, or else leaves it to the owner.
  @inlinable
  func perform(_ event: Event) {
    if ownership.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
      process(event)
      endDelivery()
    } else {
      post(event)
    }
  }

  /// Queues `event` for the owner of delivery; the thread that finds nobody owning it delivers.
  @inlinable
  func post(_ event: Event) {
    queueLock.withLock { _ in queue.append(event) }
    if ownership.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0 {
      drain(missed: 1)
    }
  }

  /// Releases the ownership of delivery the caller holds; delivers whatever was posted meanwhile.
  @inlinable
  func endDelivery() {
    if !ownership.compareExchange(expected: 1, desired: 0, ordering: .releasing).exchanged {
      drain(missed: 1)
    }
  }

  @inlinable
  func drain(missed: Int) {
    var missed = missed
    while true {
      let events = queueLock.withLock { _ in
        defer { queue = [] }
        return queue
      }
      for event in events {
        process(event)
      }
      missed = ownership.wrappingSubtract(missed, ordering: .acquiringAndReleasing).newValue
      if missed == 0 { return }
    }
  }

  /// Called by the owner of delivery.
  @inlinable
  func process(_ event: Event) {
    switch event {
    case .value(let value): broadcast(value)
    case .completion(let completion): finishAll(completion)
    case .join(let conduit): join(conduit)
    case .ready(let conduit): conduit.becomeReady(conduit)
    case .leave(let conduit): leave(conduit)
    case .offer(let conduit, let value): conduit.offer(conduit, value)
    }
  }

  /// Called by the owner of delivery.
  @inlinable
  func broadcast(_ value: Output) {
    guard let members else { return }
    for index in 0..<memberCount {
      members[index]._withUnsafeGuaranteedRef { $0.offer($0, value) }
    }
  }

  /// Called by the owner of delivery.
  @inlinable
  func finishAll(_ completion: Subscribers.Completion<Failure>) {
    guard delivered == nil else { return }
    delivered = completion
    let finishing = members
    let count = memberCount
    members = nil
    memberCount = 0
    memberCapacity = 0
    guard let finishing else { return }
    for index in 0..<count {
      let conduit = finishing[index].takeRetainedValue()
      conduit.finish(conduit, completion)
    }
    finishing.deallocate()
  }

  /// Called by the owner of delivery.
  @inlinable
  func join(_ conduit: SubjectConduit<Output, Failure>) {
    // Cancelled from inside `receive(subscription:)` before this was handled: the leave that
    // follows ends it.
    guard !conduit.terminated.load(ordering: .acquiring) else { return }
    if let delivered {
      // The completion was sent after `receive(subscriber:)` looked; it waits for the subscriber
      // to be ready.
      conduit.finish(conduit, delivered)
      return
    }
    if memberCount == memberCapacity {
      let capacity = max(4, memberCapacity * 2)
      let grown = UnsafeMutablePointer<Member>.allocate(capacity: capacity)
      if let members {
        grown.moveInitialize(from: members, count: memberCount)
        members.deallocate()
      }
      members = grown
      memberCapacity = capacity
    }
    members![memberCount] = .passRetained(conduit)
    memberCount += 1
  }

  /// Called by the owner of delivery.
  @inlinable
  func leave(_ conduit: SubjectConduit<Output, Failure>) {
    conduit.unlink()
    guard let members else { return }
    let identity = Unmanaged.passUnretained(conduit).toOpaque()
    for index in 0..<memberCount where members[index].toOpaque() == identity {
      let member = members[index]
      (members + index).moveInitialize(from: members + index + 1, count: memberCount - index - 1)
      memberCount -= 1
      member.release()
      return
    }
  }

  /// Forgets an upstream subscription that was cancelled.
  @usableFromInline
  func forgetUpstream(_ identifier: CombineIdentifier) {
    state.withLock { state in
      state.upstreams.removeAll { $0.combineIdentifier == identifier }
    }
  }

  /// Subjects cancel their upstream subscriptions when they go away, as in Combine.
  @usableFromInline
  func cancelUpstreams() {
    let upstreams = state.withLock { state in
      defer { state.upstreams = [] }
      return state.upstreams
    }
    for upstream in upstreams {
      upstream.cancel()
    }
  }
}

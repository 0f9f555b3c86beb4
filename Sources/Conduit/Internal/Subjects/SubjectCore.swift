import Dispatch
import Synchronization

// Subjects: the engine of `PassthroughSubject`, `CurrentValueSubject` and `@Published`.
//
// - `SubjectCore.swift`: the subscriber list, the lock, and delivery to every member.
// - `SubjectMember.swift`: one subscriber as delivery sees it (its demand, whether it ended).
// - `SubjectSubscription.swift`: the subscription a subscriber holds; forwards to its member.
// - `SubjectDownstream.swift`: the subscriber itself, called by delivery.
// - `CurrentValueSubjectCore.swift`: a core that also holds the current value.
// A `send` becomes a delivery; a `request` or `cancel` goes subscription → core → member.

/// The engine shared by `PassthroughSubject` and `CurrentValueSubject`: the list of subscribers,
/// the completion, the upstream subscriptions, and (for a current-value subject) the value.
///
/// **The subject engine, type by type.**
/// - `SubjectCore` (this class) owns everything shared: `SubjectState` under its lock (the
///   completion and the upstream subscriptions), the delivery queue, and the members.
///   `CurrentValueSubjectCore`, its subclass, adds the current value.
/// - `SubjectMember` is one subscriber as the core sees it: its demand, whether it ended, and the
///   calls delivery makes into it. Its one subclass, `SubjectDownstream<Downstream>`, holds the
///   subscriber and delivers to it, specialized for its type.
/// - `SubjectSubscription` is the `Subscription` the subscriber receives. It forwards `request` and
///   `cancel` to the member and forgets it once the subscription ends, so that a subscriber that
///   keeps its subscription does not keep itself alive through the member.
///
/// A `cancel()` goes: subscription (forgets the member) → core (a `leave` event, performed at once or
/// queued for the owner of delivery) → member (taken off the list, drops the subscription, released).
/// A value goes: core (claims delivery) → each member's `offer` → subscriber. `SubjectSubscriber`,
/// which subscribes a subject to a publisher, is the other direction and not part of the engine.
///
/// Delivery is owned by one thread at a time, for all of the subject's subscribers at once, through
/// the core's `Serializer`: a thread that finds delivery taken (another sender, or a `send`,
/// `subscribe` or `cancel` made from inside `receive`) queues what it has, and the owner delivers
/// the queue before it lets go. So calls into a subscriber never overlap, each subscriber sees the
/// values in the order they were queued, and nothing is ever called while a lock is held. The list
/// of subscribers belongs to the owner, which is why joining and leaving go through the queue too.
/// An uncontended `send` to a passthrough subject is two atomic operations and no lock, whatever
/// the number of subscribers. The serializer also hands delivery over to a sender that has
/// waited long enough, and makes senders wait while more than its bound of values is queued.
///
/// Its sending path is `@inlinable` so that it is specialized for the subject's element type in
/// the caller's module; generic code that is not specialized looks up type metadata on every
/// value.
@usableFromInline
class SubjectCore<Output, Failure: Error>: CensusScoped, @unchecked Sendable {
  /// What waits in the queue for the owner of delivery.
  @usableFromInline
  enum Event {
    case value(Output)
    case completion(Subscribers.Completion<Failure>)
    case join(SubjectMember)
    case ready(SubjectMember)
    case leave(SubjectMember)
    /// A subscriber that was owed the current value has demand now.
    case offer(SubjectMember)
  }

  @usableFromInline
  typealias Member = Unmanaged<SubjectMember>
  @usableFromInline
  typealias Claim = Serializer<Event>.Claim

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<SubjectState>
  // Immutable: the leak check running where the subject was created, if any. A subscriber that
  // joins later from a thread with no check of its own (a Dispatch queue) is attributed to it.
  @usableFromInline
  let censusScope: CensusScope?
  // Immutable.
  @usableFromInline
  let kind: SubjectKind
  // Immutable: `kind.tracksCurrentValue`, stored because every value reads it.
  @usableFromInline
  let tracksCurrentValue: Bool
  // Whether a subscriber has asked for a value yet: until then a passthrough subject asks nothing
  // of its upstreams, as in Combine. Set, and read with `State.upstreams`, under `state`'s lock;
  // read without it to skip the lock once set.
  @usableFromInline
  let downstreamDemanded = Atomic<Bool>(false)
  // Who delivers, what waits for the owner of delivery, and the bound on it.
  @usableFromInline
  let serializer = Serializer<Event>()
  // Fields with unchecked exclusivity skip the runtime check, which costs in "PassthroughSubject.send, 100 sinks, per delivery".
  // Owned by the thread that owns delivery: the members that have joined, each retained once.
  // A buffer of unmanaged references, so that a delivery neither retains the list nor its
  // members; only the owner changes it, and never while it is delivering a value. `nil` until a
  // second member joins: the first is `soleMember`.
  @usableFromInline @exclusivity(unchecked)
  final var members: UnsafeMutablePointer<Member>?
  // Owned by the thread that owns delivery: the one member, retained once, while no buffer has
  // been needed, so that a subject that never has two subscribers at once allocates no list.
  @usableFromInline @exclusivity(unchecked)
  final var soleMember: Member?
  // Owned by the thread that owns delivery.
  @usableFromInline @exclusivity(unchecked)
  final var memberCount = 0
  // Owned by the thread that owns delivery.
  @usableFromInline
  final var memberCapacity = 0
  // Owned by the thread that owns delivery: the completion once it has been delivered.
  @usableFromInline @exclusivity(unchecked)
  final var delivered = SubjectState.Completion.none
  // Immutable: the subject's type, which the mirrors of its subscriptions show. Not a weak
  // reference to the subject: that would give the subject a side table, and every retain and
  // release of it would take the runtime's slow path.
  @usableFromInline
  let subjectType: Any.Type
  // For a current-value subject: the thread that owns delivery while it is inside a subscriber's
  // `receive(subscription:)`, or 0. Set and cleared only by that thread, around the call.
  @usableFromInline
  let subscribingOwner = Atomic<UInt>(0)

  @inlinable
  init(kind: SubjectKind, subjectType: Any.Type) {
    state = Locked(SubjectState())
    self.subjectType = subjectType
    censusScope = CensusScope.currentIfActive
    self.kind = kind
    tracksCurrentValue = kind.tracksCurrentValue
  }

  deinit {
    // Members hold the core, so none is left by now; the buffer may be. Freed as raw memory, so
    // that the teardown needs no metadata for the element type.
    if let members { UnsafeMutableRawPointer(members).deallocate() }
  }

  /// This core as the current-value subject's core it is; only when `tracksCurrentValue`.
  @inlinable @inline(__always)
  final var currentValueCore: CurrentValueSubjectCore<Output, Failure> {
    unsafeDowncast(self, to: CurrentValueSubjectCore<Output, Failure>.self)
  }

  /// This core as the published property's subject it is; only when `kind == .published`.
  @inlinable @inline(__always)
  final var publishedSubject: PublishedSubject<Output> {
    unsafeDowncast(self, to: PublishedSubject<Output>.self)
  }

  /// Whether the completion has been delivered; read by the owner of delivery.
  @inlinable
  final var hasDelivered: Bool { !delivered.isNone }

  // MARK: Sending

  // Always inlined, so that a relay into a subject (`subscribe(subject)`, `share()`) sends
  // without a call of its own.
  @inlinable @inline(__always)
  final func send(_ value: Output) {
    // A published subject sets its value once the value is delivered (see `broadcast`), so it
    // claims delivery as a passthrough subject does.
    if tracksCurrentValue && kind != .published {
      // The value is set and its delivery claimed or queued under one lock: values are then
      // delivered in the order they were set, and the value delivered last is `value`.
      // The value replaced leaves after the lock: its deinit may read or set this subject.
      let core = currentValueCore
      var replaced = value
      let claimed = state.withLock { state -> Claim in
        guard state.completion.isNone else { return .nothing }
        swap(&core.value, &replaced)
        return claim(.value(value))
      }
      settle(claimed, .value(value))
      return
    }
    if serializer.claim() {
      broadcast(value)
      endDelivery()
    } else {
      post(.value(value))
    }
  }

  /// Sets the current value even after completion; sends it only while active.
  ///
  /// After the completion the value is still broadcast, to nobody: it is claimed after the
  /// completion, so its broadcast follows the one that ended every subscription, and it replaces
  /// `lastBroadcast`, so that the subject keeps no value but `value` alive.
  @inlinable
  final func setValue(_ value: Output) {
    // The value replaced leaves after the lock: its deinit may read or set this subject.
    let core = currentValueCore
    var replaced = value
    let claimed = state.withLock { state -> Claim in
      swap(&core.value, &replaced)
      return claim(.value(value))
    }
    settle(claimed, .value(value))
  }

  @inlinable
  final func send(completion: Subscribers.Completion<Failure>) {
    // As in Combine, a published property outlives whatever is assigned to it.
    guard kind != .published else { return }
    // The upstream subscriptions leave after the lock: their deinits may use this subject.
    var upstreams: [any Subscription] = []
    let claimed = state.withLock { state -> Claim in
      guard state.completion.isNone else { return .nothing }
      state.completion = SubjectState.Completion(completion)
      swap(&state.upstreams, &upstreams)
      return claim(.completion(completion))
    }
    settle(claimed, .completion(completion))
    withExtendedLifetime(upstreams) {}
  }

  /// A current-value subject asks its upstream for `.unlimited` at once; a passthrough subject,
  /// as in Combine, only once one of its subscribers has asked for a value, so that a synchronous
  /// upstream connected before anyone listens (`makeConnectable()` and `connect()`, say) does not
  /// send into the void.
  @usableFromInline
  final func send(subscription: any Subscription) {
    let ask = state.withLock { state -> Bool in
      state.upstreams.append(subscription)
      return tracksCurrentValue || downstreamDemanded.load(ordering: .relaxed)
    }
    if ask { subscription.request(.unlimited) }
  }

  /// Called with every request a passthrough subject's subscriber makes, after its demand is
  /// counted: the first asks every upstream for `.unlimited`.
  @inlinable
  final func acknowledgeDownstreamDemand() {
    guard !downstreamDemanded.load(ordering: .relaxed) else { return }
    let upstreams = state.withLock { state -> [any Subscription] in
      guard !downstreamDemanded.load(ordering: .relaxed) else { return [] }
      downstreamDemanded.store(true, ordering: .relaxed)
      return state.upstreams
    }
    for upstream in upstreams { upstream.request(.unlimited) }
  }

  @inlinable
  final func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    if let completion = state.withLock({ $0.completion }).completion(failing: Failure.self) {
      subscriber.receive(subscription: Subscriptions.empty)
      subscriber.receive(completion: completion)
      return
    }
    let member = SubjectDownstream(core: self, downstream: subscriber)
    let handle = SubjectSubscription(
      member: member, kind: kind, censusScope: member.censusScope,
      notify: { SubjectDownstream<S>.notify($0, $1) })
    member.handle = handle
    // The subscriber joins first, so that it gets whatever is sent from inside
    // `receive(subscription:)`, but it is not called until that has returned: what comes
    // meanwhile waits for it, in order.
    if serializer.claim() {
      // As the owner of delivery, this thread is the only one that could call the subscriber,
      // and it will not before it lets go.
      join(member)
      if tracksCurrentValue {
        subscribingOwner.store(currentThreadIdentity(), ordering: .relaxed)
        subscriber.receive(subscription: handle)
        subscribingOwner.store(0, ordering: .relaxed)
      } else {
        subscriber.receive(subscription: handle)
      }
      member.deliverPending()
      endDelivery()
    } else if tracksCurrentValue && ownsDeliveryWhileSubscribing() {
      // Subscribed from inside another subscriber's `receive(subscription:)` with nothing
      // queued: this thread owns delivery and is not delivering, so it adds the subscriber at
      // once, as the thread that subscribed first did, and the subscriber's first request gets
      // the current value inside `request`, as in Combine.
      join(member)
      subscriber.receive(subscription: handle)
      member.deliverPending()
    } else {
      post(.join(member))
      subscriber.receive(subscription: handle)
      perform(.ready(member))
    }
  }

  /// Whether this thread owns delivery from a subscribe further up its stack, whose subscriber
  /// is inside `receive(subscription:)`, and nothing waits in the queue: the current value it
  /// would offer is then the subject's value, and it may call any subscriber at once.
  @usableFromInline
  final func ownsDeliveryWhileSubscribing() -> Bool {
    subscribingOwner.load(ordering: .relaxed) == currentThreadIdentity()
      && serializer.owedCount == 1
  }

  // MARK: Delivery

  /// Handles `event` now if no other thread owns delivery, or else leaves it to the owner.
  @inlinable
  final func perform(_ event: Event) {
    settle(claim(event), event)
  }

  /// Queues `event` for the owner of delivery; the thread that finds nobody owning it delivers.
  @inlinable
  final func post(_ event: Event) {
    settle(enqueue(event), event)
  }

  /// Takes the ownership of delivery for `event`, or queues it for the owner. It does not call
  /// out, so it may run under `state`'s lock: events claimed under that lock are delivered in the
  /// order they changed the state. `settle` then does the rest, outside the lock.
  @inlinable @inline(__always)
  final func claim(_ event: Event) -> Claim {
    serializer.claim(event)
  }

  /// Queues `event` for the owner of delivery.
  @inlinable
  final func enqueue(_ event: Event) -> Claim {
    serializer.enqueue(event)
  }

  /// What `claim` left to do with `event`.
  @inlinable @inline(__always)
  final func settle(_ claimed: Claim, _ event: Event) {
    switch claimed {
    case .deliver:
      process(event)
      endDelivery()
    case .drain:
      drain(missed: 1)
    case .queued:
      if case .value = event { serializer.afterQueued { self.process($0) } }
    case .nothing:
      break
    }
  }

  /// Releases the ownership of delivery the caller holds; delivers whatever was posted meanwhile.
  @inlinable
  final func endDelivery() {
    serializer.endDirect { self.process($0) }
  }

  @inlinable
  final func drain(missed: Int) {
    serializer.drain(missed: missed) { self.process($0) }
  }

  /// Called by the owner of delivery.
  @inlinable
  final func process(_ event: Event) {
    switch event {
    case .value(let value): broadcast(value)
    case .completion(let completion): finishAll(completion)
    case .join(let member): join(member)
    case .ready(let member): member.becomeReady()
    case .leave(let member): leave(member)
    case .offer(let member): member.offerCurrentValue()
    }
  }

  /// Called by the owner of delivery.
  @inlinable
  final func broadcast(_ value: Output) {
    if tracksCurrentValue {
      if kind == .published { publishedSubject.announceChange() }
      currentValueCore.lastBroadcast = value
    }
    withUnsafePointer(to: value) { value in
      if let members {
        for index in 0..<memberCount {
          members[index]._withUnsafeGuaranteedRef { $0.offer($0, UnsafeRawPointer(value)) }
        }
      } else if let soleMember {
        soleMember._withUnsafeGuaranteedRef { $0.offer($0, UnsafeRawPointer(value)) }
      }
    }
    if kind == .published { commitPublishedValue(value) }
  }

  /// Makes `value`, which every subscriber has now been offered, the published property's value.
  /// Delivery owns the order of these commits, so the property ends with the value delivered
  /// last, whichever thread set it.
  @inlinable
  final func commitPublishedValue(_ value: Output) {
    // The value replaced leaves after the lock: its deinit may read or set the property.
    let core = currentValueCore
    var replaced = value
    state.withLock { _ in swap(&core.value, &replaced) }
  }

  /// Called by the owner of delivery.
  @usableFromInline
  final func finishAll(_ completion: Subscribers.Completion<Failure>) {
    guard delivered.isNone else { return }
    // Nothing is offered after the completion.
    delivered = SubjectState.Completion(completion)
    let finishing = members
    let count = memberCount
    let sole = soleMember
    members = nil
    soleMember = nil
    memberCount = 0
    memberCapacity = 0
    if let sole { sole.takeRetainedValue().finish(delivered) }
    guard let finishing else { return }
    for index in 0..<count {
      finishing[index].takeRetainedValue().finish(delivered)
    }
    finishing.deallocate()
  }

  /// Called by the owner of delivery.
  @inlinable
  final func join(_ member: SubjectMember) {
    // Cancelled from inside `receive(subscription:)` before this was handled: the leave that
    // follows ends it.
    guard !member.terminated.load(ordering: .acquiring) else { return }
    if !delivered.isNone {
      // The completion was sent after `receive(subscriber:)` looked; it waits for the subscriber
      // to be ready.
      member.finish(delivered)
      return
    }
    if members == nil && soleMember == nil {
      soleMember = .passRetained(member)
      memberCount = 1
      return
    }
    // The second member joins, or the buffer is full.
    if members == nil || memberCount == memberCapacity {
      let capacity = max(4, memberCapacity * 2)
      let grown = UnsafeMutablePointer<Member>.allocate(capacity: capacity)
      if let members {
        grown.moveInitialize(from: members, count: memberCount)
        members.deallocate()
      } else if let soleMember {
        grown.initialize(to: soleMember)
        self.soleMember = nil
      }
      members = grown
      memberCapacity = capacity
    }
    members![memberCount] = .passRetained(member)
    memberCount += 1
  }

  /// Called by the owner of delivery.
  @inlinable
  final func leave(_ member: SubjectMember) {
    // Only the subscription's cancel posts a leave, and the subscription forgot the member first.
    member.dropHandle()
    let identity = Unmanaged.passUnretained(member).toOpaque()
    if let soleMember {
      if soleMember.toOpaque() == identity {
        self.soleMember = nil
        memberCount = 0
        soleMember.release()
      }
      return
    }
    guard let members else { return }
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
  final func forgetUpstream(_ identifier: CombineIdentifier) {
    // The subscription leaves after the lock: its deinit may use this subject.
    let forgotten = state.withLock { state -> [any Subscription] in
      let forgotten = state.upstreams.filter { $0.combineIdentifier == identifier }
      state.upstreams.removeAll { $0.combineIdentifier == identifier }
      return forgotten
    }
    withExtendedLifetime(forgotten) {}
  }

  /// Subjects cancel their upstream subscriptions when they go away, as in Combine.
  @usableFromInline
  final func cancelUpstreams() {
    let upstreams = state.withLock { state in
      defer { state.upstreams = [] }
      return state.upstreams
    }
    for upstream in upstreams {
      upstream.cancel()
    }
  }
}

/// What a subject's lock guards (see `SubjectCore`).
///
/// Neither it nor any other stored property of the core has a type built from `Output` or
/// `Failure` (the queue's array and the current-value subclass's `Output` aside; nesting this
/// struct in the core would make it generic too). The core's teardown and its unspecialized
/// methods then look up no runtime metadata, which would otherwise cost more than the rest of a
/// short-lived subject's life.
@usableFromInline
struct SubjectState {
  /// The completion, from the moment it was sent (the owner of delivery may not have delivered
  /// it yet).
  @usableFromInline
  var completion = Completion.none
  @usableFromInline
  var upstreams: [any Subscription] = []

  @inlinable
  init() {}

  /// A completion kept without naming its failure type, so that a generic class holding one
  /// looks up no metadata for it at teardown.
  @usableFromInline
  enum Completion {
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

    /// Whether no completion is kept.
    @inlinable
    var isNone: Bool {
      if case .none = self { true } else { false }
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
}

/// Which of Conduit's subjects a `SubjectCore` drives: what its subscribers get on joining,
/// whether demand limits them, and how their subscriptions describe themselves.
@usableFromInline
enum SubjectKind: UInt8, Sendable {
  /// `PassthroughSubject`: nothing on joining; values only while there is demand.
  case passthrough
  /// `CurrentValueSubject`: the current value with the first demand.
  case currentValue
  /// The subject behind an `@Published` property: a current-value subject whose value changes
  /// only once every subscriber has been offered the new one (so a subscriber reading the
  /// property sees the old value, as in Combine), that announces each change to the object's
  /// `objectWillChange` first, and that never completes.
  case published
  /// `ObservableObjectPublisher`: after a subscriber's first request, every signal reaches it,
  /// whatever its demand, as in Combine.
  case objectWillChange

  /// Whether a subscriber gets the current value with its first demand.
  @inlinable
  var tracksCurrentValue: Bool { self == .currentValue || self == .published }

  /// The subject's name, as its subscriptions describe themselves in Combine.
  @usableFromInline
  var subscriptionDescription: String {
    switch self {
    case .passthrough: "PassthroughSubject"
    case .currentValue: "CurrentValueSubject"
    case .published: "PublishedSubject"
    case .objectWillChange: "ObservableObjectPublisher"
    }
  }
}

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

/// An identity of the calling thread, never 0, unique among the threads running.
@usableFromInline
func currentThreadIdentity() -> UInt {
  #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
  #else
    UInt(pthread_self())
  #endif
}

import Synchronization

/// The engine shared by `PassthroughSubject` and `CurrentValueSubject`: the list of subscribers,
/// the completion, the upstream subscriptions, and (for a current-value subject) the value.
///
/// Its sending path is `@inlinable` so that it is specialized for the subject's element type in
/// the caller's module; generic code that is not specialized costs ten times more per value.
@usableFromInline
final class SubjectCore<Output, Failure: Error>: CensusScoped, @unchecked Sendable {
  @usableFromInline
  struct State {
    @usableFromInline
    var conduits: ContiguousArray<SubjectConduit<Output, Failure>> = []
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

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
  // Immutable: the leak check running where the subject was created, if any. A subscriber that
  // joins later from a thread with no check of its own (a Dispatch queue) is attributed to it.
  @usableFromInline
  let censusScope: CensusScope?

  @inlinable
  init(value: Output?) {
    state = Locked(State(value: value))
    censusScope = CensusScope.currentIfActive
  }

  @inlinable
  func send(_ value: Output) {
    let snapshot = state.withLock { state -> ContiguousArray<SubjectConduit<Output, Failure>>? in
      guard state.completion == nil else { return nil }
      if state.value != nil { state.value = value }
      return state.conduits
    }
    guard let snapshot else { return }
    SubjectCore.offer(value, to: snapshot)
  }

  /// Offers `value` to each conduit of a snapshot taken under the lock.
  @inlinable @inline(__always)
  static func offer(_ value: Output, to snapshot: ContiguousArray<SubjectConduit<Output, Failure>>) {
    for conduit in snapshot {
      conduit.offer(conduit, value)
    }
  }

  /// Sets the current value even after completion; sends it only while active.
  @inlinable
  func setValue(_ value: Output) {
    let snapshot = state.withLock { state -> ContiguousArray<SubjectConduit<Output, Failure>>? in
      state.value = value
      return state.completion == nil ? state.conduits : nil
    }
    guard let snapshot else { return }
    SubjectCore.offer(value, to: snapshot)
  }

  @inlinable
  func send(completion: Subscribers.Completion<Failure>) {
    let snapshot = state.withLock { state -> ContiguousArray<SubjectConduit<Output, Failure>>? in
      guard state.completion == nil else { return nil }
      state.completion = completion
      state.upstreams = []
      defer { state.conduits = [] }
      return state.conduits
    }
    for conduit in snapshot ?? [] {
      conduit.finish(completion)
    }
  }

  @usableFromInline
  func send(subscription: any Subscription) {
    state.withLock { $0.upstreams.append(subscription) }
    subscription.request(.unlimited)
  }

  @inlinable
  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let conduit = SubjectSubscription(core: self, downstream: subscriber)
    let completion = state.withLock { state -> Subscribers.Completion<Failure>? in
      if state.completion == nil { state.conduits.append(conduit) }
      return state.completion
    }
    if let completion {
      conduit.abandon()
      subscriber.receive(subscription: Subscriptions.empty)
      subscriber.receive(completion: completion)
      return
    }
    subscriber.receive(subscription: conduit)
    conduit.endDelivery()
  }

  @inlinable
  var isCurrentValueSubject: Bool {
    state.withLock { $0.value != nil }
  }

  /// The value a new subscriber of a current-value subject gets with its first demand.
  @inlinable
  func valueForNewSubscriber() -> Output? {
    state.withLock { $0.completion == nil ? $0.value : nil }
  }

  @inlinable
  func detach(_ conduit: SubjectConduit<Output, Failure>) {
    state.withLock { state in
      if let index = state.conduits.firstIndex(where: { $0 === conduit }) {
        state.conduits.remove(at: index)
      }
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

/// The decisions of the subscriber behind `values` (`AsyncPublisher`, `AsyncThrowingPublisher`),
/// kept apart from its calls out (DESIGN.md §3): the publisher's events and the iterating task's
/// calls update the state under the subscriber's lock and say what to do once it is released.
///
/// Without a buffer (`limit == .one`), as in Combine, each `next()` asks for one element, and
/// the element that arrives waits in `ready` for the `next()` that asked. A synchronous publisher
/// delivers it while `request` runs, so that `next()` returns without suspending. With a buffer,
/// the subscriber asks for everything at once and keeps what arrives between two `next()` calls,
/// as the policy says.
///
/// A task with nothing to take parks its continuation in `waiter`; whatever arrives next (an
/// element, the completion, a cancel) hands it back to be resumed after the lock, and the task
/// then takes again. Elements never travel through the continuation: they stay in `ready`, so
/// that the continuation carries nothing and the machine's actions stay trivial.
@usableFromInline
struct AsyncIterationStateMachine<Output, Failure: Error> {
  /// How many elements the subscriber asks for, and keeps when the task is not waiting.
  @usableFromInline
  enum Limit: Equatable {
    /// One element per `next()`, as Combine's `values`.
    case one
    /// Everything, all kept.
    case unbounded
    /// Everything; when the buffer is full, the oldest element kept is dropped.
    case newest(Int)
    /// Everything; when the buffer is full, the element that arrives is dropped.
    case oldest(Int)
  }

  @usableFromInline
  enum Phase {
    case awaitingSubscription
    case subscribed
    /// The publisher completed; its completion waits for the task after the elements kept.
    case completed
    /// The task has taken the completion, or the iteration was cancelled.
    case terminal
  }

  /// What the task found when it took.
  @usableFromInline
  enum Take {
    /// The element handed out.
    case value
    /// The sequence has ended: `next()` returns `nil`.
    case end
    /// The failure handed out: `next()` throws it.
    case failure
    /// Nothing yet: ask the subscription handed out for one element, then take again.
    case request
    /// Nothing yet: park, and take again once resumed.
    case suspend
  }

  /// What the subscriber does with a subscription that arrives.
  @usableFromInline
  enum SubscriptionAction: Equatable {
    case cancel
    case request(Subscribers.Demand)
    case none
  }

  @usableFromInline
  let limit: Limit
  @usableFromInline
  var phase = Phase.awaitingSubscription
  @usableFromInline
  var upstream: (any Subscription)?
  /// Elements that arrived and wait for the task, oldest first.
  @usableFromInline
  var ready = ValueQueue<Output>()
  @usableFromInline
  var completion: Subscribers.Completion<Failure>?
  /// Whether an element asked for (with `limit == .one`) has not arrived yet.
  @usableFromInline
  var requested = false
  /// The task parked until something arrives.
  @usableFromInline
  var waiter: UnsafeContinuation<Void, Never>?

  @inlinable
  init(limit: Limit) {
    self.limit = limit
  }

  /// The publisher's subscription: the first one is kept, and asked for everything (with a
  /// buffer) or for the element a parked task waits for; any other is cancelled.
  @inlinable
  mutating func receive(subscription: any Subscription) -> SubscriptionAction {
    guard case .awaitingSubscription = phase else { return .cancel }
    phase = .subscribed
    upstream = subscription
    if limit != .one { return .request(.unlimited) }
    guard waiter != nil else { return .none }
    requested = true
    return .request(.max(1))
  }

  /// An element: kept for the task, unless the buffer's policy drops it or an older one (into
  /// `dropped`). Returns the parked task to resume.
  @inlinable
  mutating func receive(_ input: Output, dropped: inout Output?) -> UnsafeContinuation<Void, Never>? {
    guard case .subscribed = phase else {
      dropped = input
      return nil
    }
    requested = false
    if waiter == nil {
      switch limit {
      case .one, .unbounded:
        break
      case .newest(let size):
        if size <= 0 {
          dropped = input
          return nil
        }
        if ready.count >= size { dropped = ready.popFirst() }
      case .oldest(let size):
        if ready.count >= size {
          dropped = input
          return nil
        }
      }
    }
    ready.append(input)
    return waiter.take()
  }

  /// The publisher's completion: kept for the task, after the elements kept. Returns the parked
  /// task to resume.
  @inlinable
  mutating func receive(completion: Subscribers.Completion<Failure>) -> UnsafeContinuation<Void, Never>? {
    guard case .subscribed = phase else { return nil }
    phase = .completed
    upstream = nil
    self.completion = completion
    return waiter.take()
  }

  /// The task's `next()`: the next element (into `value`), the end, the failure (into
  /// `failure`), a subscription to ask for one element (into `requesting`), or nothing yet.
  @inlinable
  mutating func take(
    value: inout Output?, failure: inout Failure?, requesting: inout (any Subscription)?
  ) -> Take {
    if let next = ready.popFirst() {
      value = next
      return .value
    }
    switch phase {
    case .awaitingSubscription:
      return .suspend
    case .subscribed:
      guard limit == .one, !requested else { return .suspend }
      requested = true
      requesting = upstream
      return .request
    case .completed:
      phase = .terminal
      let ended = completion.take()
      guard case .failure(let error) = ended else { return .end }
      failure = error
      return .failure
    case .terminal:
      return .end
    }
  }

  /// Parks the task's continuation: returns `false` when something arrived since the task took
  /// (the caller resumes it at once).
  @inlinable
  mutating func park(_ continuation: UnsafeContinuation<Void, Never>) -> Bool {
    precondition(
      waiter == nil,
      "next() was called on a values iterator while another call was waiting: iterate from one task at a time")
    switch phase {
    case .awaitingSubscription, .subscribed:
      guard ready.isEmpty else { return false }
      waiter = continuation
      return true
    case .completed, .terminal:
      return false
    }
  }

  /// What a cancel lets go of, after the lock.
  @usableFromInline
  struct Released {
    @usableFromInline
    var upstream: (any Subscription)?
    @usableFromInline
    var waiter: UnsafeContinuation<Void, Never>?
    @usableFromInline
    var ready = ValueQueue<Output>()
    @usableFromInline
    var completion: Subscribers.Completion<Failure>?

    @inlinable
    init() {}
  }

  /// The task was cancelled, or the iterator went away: the iteration ends, handing what it held
  /// to `released`. Returns whether it ended it (the first cancel, before the end).
  @inlinable
  mutating func cancel(released: inout Released) -> Bool {
    switch phase {
    case .awaitingSubscription, .subscribed, .completed:
      phase = .terminal
      swap(&released.upstream, &upstream)
      swap(&released.waiter, &waiter)
      swap(&released.ready, &ready)
      swap(&released.completion, &completion)
      return true
    case .terminal:
      return false
    }
  }
}

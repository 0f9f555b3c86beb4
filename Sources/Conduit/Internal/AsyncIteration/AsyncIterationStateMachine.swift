/// The decisions of the subscriber behind `values` (`AsyncPublisher`, `AsyncThrowingPublisher`),
/// kept apart from its calls out (DESIGN.md §3): the publisher's events and the iterating task's
/// calls update the state under the subscriber's lock and say what to do once it is released.
///
/// Without a buffer (`limit == .one`), as in Combine, each `next()` asks for one element (before
/// the subscription, the requests add up and go out with it), and the element that arrives
/// waits in `ready` for a `next()` that asked; an element nobody asked for stops the program, as
/// in Combine. A synchronous publisher delivers it while `request` runs, so that `next()`
/// returns without suspending. With a buffer, the subscriber asks for everything at once and
/// keeps what arrives between two `next()` calls, as the policy says.
///
/// As in Combine, several tasks may call `next()` at once. A call with nothing to take parks its
/// continuation in `waiters`, first come first woken. An element wakes the first to take again;
/// the completion wakes the first to take it and the others to end; a cancel, or an element that
/// comes before the subscription (as Combine does), wakes them all to end. Elements never travel
/// through a continuation: they stay in `ready`, so that the machine's actions stay trivial.
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
  /// Elements that arrived and wait for a task, oldest first.
  @usableFromInline
  var ready = ValueQueue<Output>()
  @usableFromInline
  var completion: Subscribers.Completion<Failure>?
  /// Without a buffer: elements asked for that have not arrived yet.
  @usableFromInline
  var outstanding = 0
  /// Without a buffer: elements asked for before the subscription, to ask it for.
  @usableFromInline
  var owed = 0
  /// The tasks parked until something arrives: each is resumed with whether to take again
  /// (`true`) or to end (`false`).
  @usableFromInline
  var waiters = ValueQueue<UnsafeContinuation<Bool, Never>>()

  @inlinable
  init(limit: Limit) {
    self.limit = limit
  }

  /// The publisher's subscription: the first one is kept, and asked for everything (with a
  /// buffer) or for the elements asked for so far; any other is cancelled.
  @usableFromInline
  mutating func receive(subscription: any Subscription) -> SubscriptionAction {
    guard case .awaitingSubscription = phase else { return .cancel }
    phase = .subscribed
    upstream = subscription
    if limit != .one { return .request(.unlimited) }
    guard owed > 0 else { return .none }
    defer { owed = 0 }
    outstanding += owed
    return .request(.max(owed))
  }

  /// An element: kept for a task, unless the buffer's policy drops it or an older one (into
  /// `dropped`). Returns the parked task to wake. Before the subscription, as in Combine, it is
  /// dropped and every parked task is woken to end (into `ending`).
  @inlinable
  mutating func receive(
    _ input: Output, dropped: inout Output?, ending: inout ValueQueue<UnsafeContinuation<Bool, Never>>
  ) -> UnsafeContinuation<Bool, Never>? {
    guard case .subscribed = phase else {
      dropped = input
      if case .awaitingSubscription = phase { swap(&ending, &waiters) }
      return nil
    }
    switch limit {
    case .one:
      precondition(
        outstanding > 0,
        "values received an element without requesting demand: the publisher sent more than was asked for")
      outstanding -= 1
    case .unbounded:
      break
    case .newest(let size):
      if waiters.isEmpty && ready.count >= size {
        guard size > 0 else {
          dropped = input
          return nil
        }
        dropped = ready.popFirst()
      }
    case .oldest(let size):
      if waiters.isEmpty && ready.count >= size {
        dropped = input
        return nil
      }
    }
    ready.append(input)
    return waiters.popFirst()
  }

  /// The publisher's completion: kept for a task, after the elements kept. Returns the parked
  /// task to wake to take it; the others are woken to end (into `ending`).
  @inlinable
  mutating func receive(
    completion: Subscribers.Completion<Failure>, ending: inout ValueQueue<UnsafeContinuation<Bool, Never>>
  ) -> UnsafeContinuation<Bool, Never>? {
    switch phase {
    case .awaitingSubscription, .subscribed:
      phase = .completed
      upstream = nil
      self.completion = completion
      let first = waiters.popFirst()
      swap(&ending, &waiters)
      return first
    case .completed, .terminal:
      return nil
    }
  }

  /// A task's `next()`: the next element (into `value`), the end, the failure (into `failure`),
  /// a subscription to ask for one element (into `requesting`), or nothing yet. `asked` says
  /// whether this call has asked for its element; without a buffer, a call takes an element only
  /// once it has, so that each element goes to a call that asked for one.
  @inlinable
  mutating func take(
    asked: inout Bool, value: inout Output?, failure: inout Failure?, requesting: inout (any Subscription)?
  ) -> Take {
    if asked || limit != .one, let next = ready.popFirst() {
      value = next
      return .value
    }
    switch phase {
    case .awaitingSubscription:
      if limit == .one && !asked {
        asked = true
        owed += 1
      }
      return .suspend
    case .subscribed:
      guard limit == .one, !asked else { return .suspend }
      asked = true
      outstanding += 1
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

  /// Parks a task's continuation: returns `false` when the call should take again at once
  /// (something arrived since it took).
  @inlinable
  mutating func park(_ continuation: UnsafeContinuation<Bool, Never>) -> Bool {
    switch phase {
    case .awaitingSubscription, .subscribed:
      guard ready.isEmpty else { return false }
      waiters.append(continuation)
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
    var waiters = ValueQueue<UnsafeContinuation<Bool, Never>>()
    @usableFromInline
    var ready = ValueQueue<Output>()
    @usableFromInline
    var completion: Subscribers.Completion<Failure>?

    @inlinable
    init() {}
  }

  /// A task was cancelled, or the iterator went away: the iteration ends, handing what it held
  /// (the parked tasks, to wake to end) to `released`. Returns whether it ended it.
  @usableFromInline
  mutating func cancel(released: inout Released) -> Bool {
    switch phase {
    case .awaitingSubscription, .subscribed, .completed:
      phase = .terminal
      swap(&released.upstream, &upstream)
      swap(&released.waiters, &waiters)
      swap(&released.ready, &ready)
      swap(&released.completion, &completion)
      return true
    case .terminal:
      return false
    }
  }
}

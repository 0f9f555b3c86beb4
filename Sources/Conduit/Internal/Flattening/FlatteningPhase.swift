// Flattening: the shared pieces of `flatMap` and `switchToLatest` (the operators themselves
// live in `Operators/FlatMap.swift` and `Operators/SwitchToLatest.swift`).
//
// - `FlatteningPhase.swift`: where the outer subscription stands, and what it does at its end
//   (`FlatteningPhase.Action`).
// - `ChildSubscriber.swift`: subscribes to one inner publisher for its parent.
// - `ScalarPublisher.swift`: inner publishers of at most one value (`Just`, `Empty` …), read
//   without subscribing.

/// Where a flattening operator's subscription (`flatMap`, `switchToLatest`) is in its life: its
/// upstream's subscription and finish, then its end.
///
/// What the upstream sends before its subscription is taken as it would be after it, so the
/// first three phases differ only in whether the upstream's subscription and finish have arrived.
@usableFromInline
enum FlatteningPhase<Failure: Error> {
  /// The upstream's subscription has not arrived yet.
  case awaitingSubscription
  case subscribed
  /// The upstream has finished; the stream finishes once its children have. `subscribed` says
  /// whether the upstream's subscription had arrived: one that arrives after the finish is still
  /// taken, once.
  case outerFinished(subscribed: Bool)
  /// A failure waits for the delivering thread.
  case failing(Failure)
  /// Completed or cancelled, and everything released (or being released by the owner).
  case terminal

  /// Whether the stream goes on: neither failing nor ended.
  @inlinable
  var isActive: Bool {
    switch self {
    case .awaitingSubscription, .subscribed, .outerFinished: true
    case .failing, .terminal: false
    }
  }

  /// Whether the upstream's values and finish are taken: the stream goes on and the upstream
  /// has not finished.
  @inlinable
  var takesUpstreamValues: Bool {
    switch self {
    case .awaitingSubscription, .subscribed: true
    case .outerFinished, .failing, .terminal: false
    }
  }

  @inlinable
  var outerFinished: Bool {
    if case .outerFinished = self { return true }
    return false
  }

  /// Takes the upstream's subscription: whether it is the first, on a stream that goes on.
  @usableFromInline
  mutating func takeSubscription() -> Bool {
    switch self {
    case .awaitingSubscription: self = .subscribed
    case .outerFinished(subscribed: false): self = .outerFinished(subscribed: true)
    case .subscribed, .outerFinished(subscribed: true), .failing, .terminal: return false
    }
    return true
  }

  /// Takes the upstream's finish: whether it is the first, on a stream that goes on.
  @usableFromInline
  mutating func finishOuter() -> Bool {
    switch self {
    case .awaitingSubscription: self = .outerFinished(subscribed: false)
    case .subscribed: self = .outerFinished(subscribed: true)
    case .outerFinished, .failing, .terminal: return false
    }
    return true
  }

  /// What a flattening operator (`flatMap`, `switchToLatest`) does after a completion or a cancel,
  /// once its lock is released.
  @usableFromInline
  enum Action<Held, Value> {
    case none
    /// This call owns delivery: drain.
    case drain
    /// Cancel `detached.cancelled` in order and let go of the rest, then drain if `drains`.
    case detach(Detached, drains: Bool)

    /// Performs the action; `drain` runs the owner's loop.
    @inlinable @inline(__always)
    func perform(drain: () -> Void) {
      switch self {
      case .none:
        break
      case .drain:
        drain()
      case .detach(let detached, let drains):
        for subscription in detached.cancelled { subscription.cancel() }
        if drains { drain() }
      }
    }

    /// What a flattening operator (`flatMap`, `switchToLatest`) takes out of its locked state when it
    /// fails or is cancelled: the subscriptions to cancel, and what it lets go of after the lock (a
    /// transform with what it captured, or a value held back, and the values not delivered), whose
    /// deinits may call back into the same subscription.
    @usableFromInline
    struct Detached {
      @usableFromInline
      var cancelled: [any Subscription] = []
      @usableFromInline
      var held: Held?
      @usableFromInline
      var backlog = ValueQueue<Value>()

      @inlinable
      init() {}
    }
  }
}

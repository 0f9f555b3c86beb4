/// The one timer a `debounce` or `timeout` subscription keeps pending, and the deadline it
/// waits for.
///
/// Combine schedules a new timer for every value that reaches these operators and cancels the
/// previous one. Here a value only moves the deadline: the pending timer, when it fires before
/// the deadline it now serves, is replaced by one for the new deadline. A burst of values then
/// costs one timer, however many values it holds, and the downstream sees the same times.
///
/// The timers are the scheduler's repeating ones, as in Combine, for the `Cancellable` they
/// return: cancelling it when the stream ends lets the scheduler release the action (and the
/// subscription it holds) at once instead of at its due time. Each timer is numbered; a firing
/// of any other than the pending one (a repetition a scheduler did not stop when asked) is
/// ignored. The scheduler may run the action before `schedule` returns its cancellable (the
/// immediate scheduler does), so the cancellable is handed in afterwards with `armed`, which
/// gives it back for cancelling when its timer is no longer the pending one.
///
/// Cancellables always leave through the caller, to be cancelled and released after the lock:
/// a scheduler's cancellable may release the action, and with it what the action holds.
@usableFromInline
struct DeadlineTimer<Time: Strideable> {
  /// When the pending timer's work is due; `nil` while none is pending.
  @usableFromInline
  var deadline: Time?
  /// The number of the latest timer asked for.
  @usableFromInline
  var generation: UInt64 = 0
  /// The pending timer's cancellable, once `schedule` has returned it.
  @usableFromInline
  var cancellable: (any Cancellable)?

  @inlinable
  init() {}

  /// Whether a timer is pending.
  @inlinable
  var isPending: Bool { deadline != nil }

  /// What a firing means.
  @usableFromInline
  enum Firing {
    /// Not the pending timer: ignore it.
    case stale
    /// The deadline has moved past the firing: arm timer `generation` for `deadline`.
    case early(generation: UInt64)
    /// The deadline has come: no timer is pending any more.
    case due
  }

  /// Moves the deadline to `deadline`: returns the number of the timer to arm for it when none
  /// is pending, `nil` when the pending one will serve it.
  @inlinable
  mutating func move(to deadline: Time) -> UInt64? {
    let wasPending = isPending
    self.deadline = deadline
    guard !wasPending else { return nil }
    generation &+= 1
    return generation
  }

  /// The scheduler returned `timer`'s cancellable: kept while `timer` is the pending timer,
  /// otherwise returned to be cancelled (it fired already, or the stream ended meanwhile).
  @inlinable
  mutating func armed(_ timer: UInt64, _ cancellable: any Cancellable) -> (any Cancellable)? {
    guard isPending, timer == generation, self.cancellable == nil else { return cancellable }
    self.cancellable = cancellable
    return nil
  }

  /// Timer `timer` fired at `now`. Unless it is stale, its cancellable goes to `cancelling`: a
  /// repeating timer is stopped once it has fired.
  @inlinable
  mutating func fired(_ timer: UInt64, at now: Time, cancelling: inout (any Cancellable)?) -> Firing {
    guard let deadline, timer == generation else { return .stale }
    swap(&cancelling, &cancellable)
    if now < deadline {
      generation &+= 1
      return .early(generation: generation)
    }
    self.deadline = nil
    return .due
  }

  /// Stops the pending timer, if any: returns its cancellable, to be cancelled.
  @inlinable
  mutating func stop() -> (any Cancellable)? {
    deadline = nil
    generation &+= 1
    var stopped: (any Cancellable)?
    swap(&stopped, &cancellable)
    return stopped
  }
}

import Conduit

/// A scheduler that runs every action at once, on the calling thread, and moves its clock to
/// each action's due time.
///
/// This is an extension to Combine. Combine's `ImmediateScheduler` has no clock, so time
/// operators that measure intervals (`debounce`, `throttle`, `timeout`) cannot work on it; this
/// scheduler keeps a virtual clock instead, for tests that do not care when work runs, only
/// what it does. An action scheduled after a date runs at once and the clock jumps to that
/// date; an action due earlier than ``now`` runs at once and the clock stays where it is, since
/// it never moves backwards.
///
/// ```swift
/// let scheduler = ImmediateTestScheduler<TestTime, Never>(now: TestTime(0))
/// var values: [String] = []
/// let cancellable = Just("con")
///   .debounce(for: .milliseconds(300), scheduler: scheduler)
///   .sink { values.append($0) }
/// #expect(values == ["con"])  // without advancing any clock
/// ```
///
/// A repeating action runs once, at its first date, and the returned cancellable does nothing:
/// running every firing at once would never end. Use ``TestScheduler`` to test repetition.
///
/// For `DispatchQueue`'s time types, write `ImmediateTestSchedulerOf<DispatchQueue>`.
public final class ImmediateTestScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
  // Guarded by its own lock.
  private let clock: Locked<SchedulerTimeType>

  /// Creates an immediate scheduler whose clock starts at `now`.
  ///
  /// ```swift
  /// let scheduler = ImmediateTestScheduler<TestTime, Never>(now: TestTime(0))
  /// ```
  public init(now: SchedulerTimeType) {
    clock = Locked(now)
  }

  /// The scheduler's current virtual time: the latest date an action was scheduled after.
  ///
  /// ```swift
  /// scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) {}
  /// #expect(scheduler.now == start.advanced(by: .seconds(1)))
  /// ```
  public var now: SchedulerTimeType { clock.withLock { $0 } }

  /// The minimum tolerance: zero, since virtual time is exact.
  ///
  /// ```swift
  /// #expect(scheduler.minimumTolerance == .zero)
  /// ```
  public var minimumTolerance: SchedulerTimeType.Stride { .zero }

  /// Runs `action` at once, on the calling thread.
  ///
  /// ```swift
  /// scheduler.schedule { print("runs before schedule returns") }
  /// ```
  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    action()
  }

  /// Moves the clock to `date`, unless it is already later, then runs `action` at once, on the
  /// calling thread.
  ///
  /// ```swift
  /// scheduler.schedule(after: scheduler.now.advanced(by: .seconds(5))) {
  ///   print(scheduler.now)  // five virtual seconds later
  /// }
  /// ```
  public func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) {
    moveClock(to: date)
    action()
  }

  /// Moves the clock to `date`, unless it is already later, then runs `action` once, at once;
  /// the returned cancellable does nothing. Repetition cannot happen immediately: use a
  /// ``TestScheduler`` to test it.
  ///
  /// ```swift
  /// var ticks = 0
  /// _ = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { ticks += 1 }
  /// #expect(ticks == 1)
  /// ```
  public func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?, _ action: @escaping () -> Void
  ) -> any Cancellable {
    moveClock(to: date)
    action()
    return AnyCancellable {}
  }

  private func moveClock(to date: SchedulerTimeType) {
    clock.withLock { now in
      if now < date { now = date }
    }
  }
}

// Sendable only when its times are: it keeps the clock, which any thread reads. The clock is
// guarded by its own lock; options are never kept.
extension ImmediateTestScheduler: Sendable where SchedulerTimeType: Sendable {}

/// An immediate test scheduler with the time and options types of `S`:
/// `ImmediateTestSchedulerOf<DispatchQueue>`.
///
/// This is an extension to Combine (see ``ImmediateTestScheduler``).
///
/// ```swift
/// let scheduler = ImmediateTestSchedulerOf<DispatchQueue>(now: .init(.init(uptimeNanoseconds: 1)))
/// ```
public typealias ImmediateTestSchedulerOf<S: Scheduler> = ImmediateTestScheduler<
  S.SchedulerTimeType, S.SchedulerOptions
>

import Conduit
import Dispatch

/// The virtual time of a test scheduler with `DispatchQueue`'s time types, as a `Clock` for
/// async code: a sleep on it ends when the scheduler's time reaches its deadline.
///
/// This is an extension to Combine. Get it from the scheduler's
/// ``TestScheduler/clock``, give it to the code under test in place of `ContinuousClock`, and
/// one advance of the scheduler moves the pipelines and the async code that uses the clock
/// together:
///
/// ```swift
/// let scheduler = DispatchQueue.test
/// let task = Task.immediate {
///   try await scheduler.clock.sleep(for: .seconds(1))
///   print("a virtual second later")
/// }
/// await scheduler.advance(by: .seconds(1))  // prints, and returns once the task has finished
/// ```
///
/// A sleep counts from the moment the task reaches it, so start the task under test with
/// `Task.immediate` (or await it up to its sleep) before the test advances. Each sleeper is an
/// action of the scheduler, due at its deadline, so it wakes in order with the pipelines'
/// actions, in the async advance and the synchronous one alike; only the async
/// ``TestScheduler/advance(by:settlingTimeout:fileID:filePath:line:column:)`` also waits for the
/// woken task to settle. Cancelling a sleeping task ends its sleep at once with
/// `CancellationError` and takes its action off the scheduler.
public struct TestSchedulerClock: Clock, Sendable {
  /// A moment of the scheduler's virtual time.
  ///
  /// ```swift
  /// #expect(clock.now.schedulerTime == scheduler.now)
  /// ```
  public struct Instant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
    /// The scheduler time this instant stands for.
    public var schedulerTime: DispatchQueue.SchedulerTimeType

    /// Creates the instant of a scheduler time.
    ///
    /// ```swift
    /// let deadline = TestSchedulerClock.Instant(scheduler.now.advanced(by: .seconds(1)))
    /// ```
    public init(_ schedulerTime: DispatchQueue.SchedulerTimeType) {
      self.schedulerTime = schedulerTime
    }

    /// The instant `duration` later (earlier, for a negative duration), to the nanosecond.
    ///
    /// ```swift
    /// let deadline = clock.now.advanced(by: .milliseconds(300))
    /// ```
    public func advanced(by duration: Duration) -> Instant {
      Instant(schedulerTime.advanced(by: .nanoseconds(duration.wholeNanoseconds)))
    }

    /// The duration from this instant to `other`.
    ///
    /// ```swift
    /// #expect(start.duration(to: clock.now) == .seconds(1))
    /// ```
    public func duration(to other: Instant) -> Duration {
      .nanoseconds(schedulerTime.distance(to: other.schedulerTime).magnitude)
    }

    /// Whether `lhs` comes before `rhs`.
    public static func < (lhs: Instant, rhs: Instant) -> Bool {
      lhs.schedulerTime < rhs.schedulerTime
    }

    /// The scheduler time, in nanoseconds of uptime.
    public var description: String {
      "TestSchedulerClock.Instant(\(schedulerTime.dispatchTime.uptimeNanoseconds) ns)"
    }
  }

  /// The scheduler whose time this clock tells.
  public let scheduler: TestSchedulerOf<DispatchQueue>

  /// Creates the clock of `scheduler`; ``TestScheduler/clock`` does the same.
  ///
  /// ```swift
  /// let clock = TestSchedulerClock(scheduler: scheduler)
  /// ```
  public init(scheduler: TestSchedulerOf<DispatchQueue>) {
    self.scheduler = scheduler
  }

  /// The scheduler's current time: while one of its actions runs, the time it was due.
  ///
  /// ```swift
  /// let start = clock.now
  /// scheduler.advance(by: .seconds(1))
  /// #expect(start.duration(to: clock.now) == .seconds(1))
  /// ```
  public var now: Instant { Instant(scheduler.now) }

  /// One nanosecond, the resolution of `DispatchTime`.
  public var minimumResolution: Duration { .nanoseconds(1) }

  /// Suspends the task until the scheduler's time reaches `deadline`; the tolerance is ignored.
  ///
  /// A deadline already reached returns at once. A cancelled task, or one cancelled while it
  /// sleeps, gets `CancellationError`, and its sleep leaves the scheduler.
  ///
  /// ```swift
  /// try await clock.sleep(until: clock.now.advanced(by: .seconds(5)))
  /// ```
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    guard now < deadline else { return }
    let sleeper = Sleeper(task: Task.name, deadline: deadline)
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let entry = scheduler.scheduleWithdrawable(after: deadline.schedulerTime) { sleeper.wake() }
        sleeper.suspend(continuation, entry: entry, on: scheduler)
      }
    } onCancel: {
      sleeper.cancel(on: scheduler)
    }
  }
}

extension TestScheduler
where SchedulerTimeType == DispatchQueue.SchedulerTimeType, SchedulerOptions == DispatchQueue.SchedulerOptions {
  /// This scheduler's virtual time as a `Clock`, for the async code that a test runs beside its
  /// pipelines.
  ///
  /// This is an extension to Combine (see ``TestSchedulerClock``).
  ///
  /// ```swift
  /// let scheduler = DispatchQueue.test
  /// let model = Model(clock: scheduler.clock, scheduler: scheduler.eraseToAnyScheduler())
  /// let task = Task.immediate { await model.refreshEverySecond() }
  /// await scheduler.advance(by: .seconds(3))
  /// ```
  public var clock: TestSchedulerClock { TestSchedulerClock(scheduler: self) }
}

/// One task asleep on a ``TestSchedulerClock``: its continuation and the scheduler action that
/// wakes it, with whichever of waking and cancelling comes first winning.
private final class Sleeper: Sendable {
  private enum State {
    case starting
    case asleep(CheckedContinuation<Void, any Error>, entry: UInt64)
    case woken
    case cancelled
  }

  // Guarded by its own lock.
  private let state = Locked(State.starting)
  private let task: String

  init(task name: String?, deadline: TestSchedulerClock.Instant) {
    task = "\(name.map { "\"\($0)\"" } ?? "an unnamed task"), asleep until \(deadline)"
  }

  /// Hands over the continuation once the wake-up is scheduled; a cancel or a wake-up that came
  /// first is answered at once.
  func suspend(
    _ continuation: CheckedContinuation<Void, any Error>, entry: UInt64, on scheduler: TestSchedulerOf<DispatchQueue>
  ) {
    let previous = state.withLock { state -> State in
      guard case .starting = state else { return state }
      state = .asleep(continuation, entry: entry)
      return .starting
    }
    switch previous {
    case .starting, .asleep: break
    case .woken: continuation.resume()
    case .cancelled:
      scheduler.withdraw(entry)
      continuation.resume(throwing: CancellationError())
    }
  }

  /// The scheduler's action: resumes the task, which an async advance then waits for.
  func wake() {
    let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
      switch state {
      case .starting:
        state = .woken
        return nil
      case .asleep(let continuation, _):
        state = .woken
        return continuation
      case .woken, .cancelled:
        return nil
      }
    }
    guard let continuation else { return }
    SettlingExecutor.current?.noteWoken(task)
    continuation.resume()
  }

  func cancel(on scheduler: TestSchedulerOf<DispatchQueue>) {
    let asleep = state.withLock { state -> (CheckedContinuation<Void, any Error>, UInt64)? in
      switch state {
      case .starting:
        state = .cancelled
        return nil
      case .asleep(let continuation, let entry):
        state = .cancelled
        return (continuation, entry)
      case .woken, .cancelled:
        return nil
      }
    }
    guard let (continuation, entry) = asleep else { return }
    scheduler.withdraw(entry)
    continuation.resume(throwing: CancellationError())
  }
}

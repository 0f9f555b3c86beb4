// A stand-in for combine-schedulers and CombineExt built against Conduit: it declares its own
// `AnyScheduler`, `AnySchedulerOf`, `eraseToAnyScheduler()` and `Publishers.Timer`, as those
// libraries do, and uses them in its own code. It compiles only while `import Conduit` declares
// none of these names.
import Conduit

/// The library's type-erased scheduler, with combine-schedulers' shape.
public struct AnyScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler, @unchecked Sendable
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
  // Immutable closures over a `Sendable` scheduler.
  private let nowReader: () -> SchedulerTimeType
  private let toleranceReader: () -> SchedulerTimeType.Stride
  private let scheduleNow: (SchedulerOptions?, @escaping () -> Void) -> Void
  private let scheduleAfter:
    (SchedulerTimeType, SchedulerTimeType.Stride, SchedulerOptions?, @escaping () -> Void) -> Void
  private let scheduleRepeating:
    (SchedulerTimeType, SchedulerTimeType.Stride, SchedulerTimeType.Stride, SchedulerOptions?, @escaping () -> Void)
      -> any Cancellable

  /// Wraps `scheduler`.
  public init<S: Scheduler & Sendable>(_ scheduler: S)
  where S.SchedulerTimeType == SchedulerTimeType, S.SchedulerOptions == SchedulerOptions {
    nowReader = { scheduler.now }
    toleranceReader = { scheduler.minimumTolerance }
    scheduleNow = { scheduler.schedule(options: $0, $1) }
    scheduleAfter = { scheduler.schedule(after: $0, tolerance: $1, options: $2, $3) }
    scheduleRepeating = { scheduler.schedule(after: $0, interval: $1, tolerance: $2, options: $3, $4) }
  }

  /// The wrapped scheduler's time.
  public var now: SchedulerTimeType { nowReader() }
  /// The wrapped scheduler's minimum tolerance.
  public var minimumTolerance: SchedulerTimeType.Stride { toleranceReader() }

  /// Runs `action` on the wrapped scheduler.
  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    scheduleNow(options, action)
  }

  /// Runs `action` on the wrapped scheduler after `date`.
  public func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) {
    scheduleAfter(date, tolerance, options, action)
  }

  /// Runs `action` on the wrapped scheduler after `date`, every `interval`.
  public func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?, _ action: @escaping () -> Void
  ) -> any Cancellable {
    scheduleRepeating(date, interval, tolerance, options, action)
  }
}

/// The library's eraser with the time and options types of `S`.
public typealias AnySchedulerOf<S: Scheduler> = AnyScheduler<S.SchedulerTimeType, S.SchedulerOptions>

extension Scheduler where Self: Sendable {
  /// The library's own eraser.
  public func eraseToAnyScheduler() -> AnySchedulerOf<Self> {
    AnyScheduler(self)
  }
}

extension Publishers {
  /// The library's timer publisher, with combine-schedulers' initializer: it sends the
  /// scheduler's time every `interval` once connected.
  public final class Timer<Context: Scheduler>: ConnectablePublisher, @unchecked Sendable {
    /// The scheduler's time at each tick.
    public typealias Output = Context.SchedulerTimeType
    /// A timer does not fail.
    public typealias Failure = Never

    /// The interval between ticks.
    public let interval: Context.SchedulerTimeType.Stride
    /// The scheduler the timer runs on.
    public let scheduler: Context
    // Thread-safe by itself.
    private let ticks = PassthroughSubject<Context.SchedulerTimeType, Never>()

    /// A timer on `scheduler`; it ticks once connected.
    public init(every interval: Context.SchedulerTimeType.Stride, scheduler: Context) {
      self.interval = interval
      self.scheduler = scheduler
    }

    /// Attaches `subscriber` to the ticks.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
      ticks.receive(subscriber: subscriber)
    }

    /// Starts ticking; cancelling the result stops it.
    public func connect() -> any Cancellable {
      let scheduler = scheduler
      let ticks = ticks
      return scheduler.schedule(
        after: scheduler.now.advanced(by: interval), interval: interval, tolerance: scheduler.minimumTolerance,
        options: nil
      ) { ticks.send(scheduler.now) }
    }
  }
}

/// A call site inside the library that names each of its types.
public func libraryTimer<S: Scheduler & Sendable>(
  every interval: S.SchedulerTimeType.Stride, on scheduler: S
) -> Publishers.Timer<AnySchedulerOf<S>> {
  Publishers.Timer(every: interval, scheduler: scheduler.eraseToAnyScheduler())
}

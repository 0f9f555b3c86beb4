import Conduit

/// A type-erased scheduler: wraps any scheduler with the same time and options types.
///
/// An extension to Combine, which has no scheduler eraser, in the opt-in `ConduitSchedulers`
/// module: combine-schedulers declares a type of the same name, so `import Conduit` leaves it out
/// and code that uses that library compiles unchanged. Production code takes an
/// `AnySchedulerOf<DispatchQueue>` and is given `DispatchQueue.main.eraseToAnyScheduler()`;
/// its tests give it `DispatchQueue.test.eraseToAnyScheduler()` (from `ConduitTesting`) and
/// move time by hand.
///
/// ```swift
/// final class SearchModel {
///   let scheduler: AnySchedulerOf<DispatchQueue>
///   init(scheduler: AnySchedulerOf<DispatchQueue> = DispatchQueue.main.eraseToAnyScheduler()) {
///     self.scheduler = scheduler
///   }
///   func results(for queries: some Publisher<String, Never>) -> some Publisher<String, Never> {
///     queries.debounce(for: .milliseconds(300), scheduler: scheduler)
///   }
/// }
/// ```
public struct AnyScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
  // Constants, each safe to call from any thread: they call a scheduler that is `Sendable`
  // (`eraseToAnyScheduler()` and `init(_:)` require it), or are closures passed as `@Sendable`.
  @usableFromInline
  let nowReader: () -> SchedulerTimeType
  @usableFromInline
  let minimumToleranceReader: () -> SchedulerTimeType.Stride
  @usableFromInline
  let scheduleNow: (SchedulerOptions?, @escaping () -> Void) -> Void
  @usableFromInline
  let scheduleAfter: (SchedulerTimeType, SchedulerTimeType.Stride, SchedulerOptions?, @escaping () -> Void) -> Void
  @usableFromInline
  let scheduleRepeating:
    (SchedulerTimeType, SchedulerTimeType.Stride, SchedulerTimeType.Stride, SchedulerOptions?, @escaping () -> Void)
      -> any Cancellable

  /// Wraps `scheduler`.
  public init<S: Scheduler & Sendable>(_ scheduler: S)
  where S.SchedulerTimeType == SchedulerTimeType, S.SchedulerOptions == SchedulerOptions {
    if let erased = scheduler as? AnyScheduler {
      self = erased
      return
    }
    nowReader = { scheduler.now }
    minimumToleranceReader = { scheduler.minimumTolerance }
    scheduleNow = { scheduler.schedule(options: $0, $1) }
    scheduleAfter = { scheduler.schedule(after: $0, tolerance: $1, options: $2, $3) }
    scheduleRepeating = { scheduler.schedule(after: $0, interval: $1, tolerance: $2, options: $3, $4) }
  }

  /// Creates a scheduler from closures, one per requirement: for schedulers written in place,
  /// such as a test double.
  public init(
    minimumTolerance: @escaping @Sendable () -> SchedulerTimeType.Stride,
    now: @escaping @Sendable () -> SchedulerTimeType,
    scheduleImmediately: @escaping @Sendable (SchedulerOptions?, @escaping () -> Void) -> Void,
    delayed:
      @escaping @Sendable (SchedulerTimeType, SchedulerTimeType.Stride, SchedulerOptions?, @escaping () -> Void)
      -> Void,
    interval:
      @escaping @Sendable (
        SchedulerTimeType, SchedulerTimeType.Stride, SchedulerTimeType.Stride, SchedulerOptions?, @escaping () -> Void
      ) -> any Cancellable
  ) {
    nowReader = now
    minimumToleranceReader = minimumTolerance
    scheduleNow = scheduleImmediately
    scheduleAfter = delayed
    scheduleRepeating = interval
  }

  /// The wrapped scheduler's current moment in time.
  public var now: SchedulerTimeType { nowReader() }

  /// The wrapped scheduler's minimum tolerance.
  public var minimumTolerance: SchedulerTimeType.Stride { minimumToleranceReader() }

  /// Performs the action on the wrapped scheduler at its next possible opportunity.
  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    scheduleNow(options, action)
  }

  /// Performs the action on the wrapped scheduler at some time after `date`.
  public func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) {
    scheduleAfter(date, tolerance, options, action)
  }

  /// Performs the action on the wrapped scheduler after `date`, every `interval`, until the
  /// returned `Cancellable` is cancelled.
  public func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?, _ action: @escaping () -> Void
  ) -> any Cancellable {
    scheduleRepeating(date, interval, tolerance, options, action)
  }
}

// Sendable only when its times and options are: they go between threads through the wrapped
// scheduler. `@unchecked` as the closures are stored without `@Sendable`; nothing changes after
// `init`, so there is no lock (see the stored properties).
extension AnyScheduler: @unchecked Sendable where SchedulerTimeType: Sendable, SchedulerOptions: Sendable {}

/// A type-erased scheduler with the time and options types of `S`: `AnySchedulerOf<DispatchQueue>`.
///
/// An extension to Combine (see `AnyScheduler`).
public typealias AnySchedulerOf<S: Scheduler> = AnyScheduler<S.SchedulerTimeType, S.SchedulerOptions>

extension Scheduler where Self: Sendable {
  /// Wraps this scheduler with a type eraser.
  ///
  /// An extension to Combine (see `AnyScheduler`).
  ///
  /// ```swift
  /// let scheduler: AnySchedulerOf<DispatchQueue> = DispatchQueue.main.eraseToAnyScheduler()
  /// ```
  public func eraseToAnyScheduler() -> AnyScheduler<SchedulerTimeType, SchedulerOptions> {
    AnyScheduler(self)
  }
}

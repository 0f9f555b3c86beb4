/// A protocol that defines when and how to execute a closure.
///
/// Time operators (`debounce`, `throttle`, `delay`, `timeout`, `receive(on:)` …) take a scheduler
/// and run their work through it. Conduit provides `ImmediateScheduler` and `DispatchQueue`; the
/// opt-in `ConduitSchedulers` module adds the type-erased `AnyScheduler`, and `ConduitTesting`
/// adds `TestScheduler`, which runs work in virtual time.
///
/// ```swift
/// DispatchQueue.main.schedule(after: DispatchQueue.main.now.advanced(by: .seconds(1))) {
///   print("a second later")
/// }
/// ```
///
/// As in Combine, the actions are not required to be `@Sendable`: a scheduler that runs them on
/// another thread takes responsibility for handing them over.
public protocol Scheduler<SchedulerTimeType> {
  /// Describes an instant in time for this scheduler.
  associatedtype SchedulerTimeType: Strideable
  where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible

  /// A type that defines options accepted by the scheduler.
  ///
  /// This type is freely definable by each `Scheduler`. Typically, operations that take a
  /// `Scheduler` parameter will also take `SchedulerOptions`.
  associatedtype SchedulerOptions

  /// This scheduler's definition of the current moment in time.
  var now: SchedulerTimeType { get }

  /// The minimum tolerance allowed by the scheduler.
  var minimumTolerance: SchedulerTimeType.Stride { get }

  /// Performs the action at the next possible opportunity.
  func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void)

  /// Performs the action at some time after the specified date.
  func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
    _ action: @escaping () -> Void)

  /// Performs the action at some time after the specified date, at the specified frequency,
  /// optionally taking into account tolerance if possible.
  ///
  /// Cancelling the returned `Cancellable` stops the repetition and releases `action`.
  func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?, _ action: @escaping () -> Void
  ) -> any Cancellable
}

extension Scheduler {
  /// Performs the action at some time after the specified date, using the scheduler's minimum
  /// tolerance.
  @inlinable
  public func schedule(after date: SchedulerTimeType, _ action: @escaping () -> Void) {
    schedule(after: date, tolerance: minimumTolerance, action)
  }

  /// Performs the action at the next possible opportunity, without options.
  @inlinable
  public func schedule(_ action: @escaping () -> Void) {
    schedule(options: nil, action)
  }

  /// Performs the action at some time after the specified date, using the specified tolerance.
  @inlinable
  public func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, _ action: @escaping () -> Void
  ) {
    schedule(after: date, tolerance: tolerance, options: nil, action)
  }

  /// Performs the action at some time after the specified date, at the specified frequency,
  /// taking into account tolerance if possible.
  @inlinable
  public func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
    _ action: @escaping () -> Void
  ) -> any Cancellable {
    schedule(after: date, interval: interval, tolerance: tolerance, options: nil, action)
  }

  /// Performs the action at some time after the specified date, at the specified frequency,
  /// using the scheduler's minimum tolerance.
  @inlinable
  public func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, _ action: @escaping () -> Void
  ) -> any Cancellable {
    schedule(after: date, interval: interval, tolerance: minimumTolerance, action)
  }
}

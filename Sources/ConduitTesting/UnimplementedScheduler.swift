import Conduit

/// A scheduler that fails the current test whenever anything is scheduled on it.
///
/// This is an extension to Combine. Give it to code that must not schedule work on a given
/// scheduler in the path under test: a view model's background queue when only cached values
/// should be read, say. Scheduling fails the test (through `Issue.record` under Swift Testing,
/// `XCTFail` under XCTest) at the place the scheduler was created, and the action is dropped
/// without running; a repeating action gets a cancellable that does nothing. Reading ``now`` or
/// ``minimumTolerance`` does not fail: many operators read the clock before they decide whether
/// to schedule.
///
/// ```swift
/// let model = SearchModel(
///   mainQueue: TestSchedulerOf<DispatchQueue>(now: start).eraseToAnyScheduler(),
///   backgroundQueue: UnimplementedScheduler<TestTime, Never>("background", now: TestTime(0))
///     .eraseToAnyScheduler())
/// model.showCachedResults()  // fails the test if it schedules on the background queue
/// ```
///
/// For `DispatchQueue`'s time types, write `UnimplementedSchedulerOf<DispatchQueue>`.
public final class UnimplementedScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
  // Every stored property is a constant.
  /// A name for the scheduler in the failures it reports.
  public let name: String
  private let location: SourceCodeLocation

  /// The time the scheduler was created with; it never moves.
  ///
  /// ```swift
  /// #expect(UnimplementedScheduler<TestTime, Never>(now: TestTime(3)).now == TestTime(3))
  /// ```
  public let now: SchedulerTimeType

  /// Creates a scheduler that fails the current test whenever anything is scheduled on it;
  /// `name` and the place it is created are named in the failure.
  ///
  /// ```swift
  /// let scheduler = UnimplementedScheduler<TestTime, Never>("background queue", now: TestTime(0))
  /// ```
  public init(
    _ name: String = "UnimplementedScheduler", now: SchedulerTimeType, fileID: StaticString = #fileID,
    filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) {
    self.name = name
    self.now = now
    location = SourceCodeLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// The minimum tolerance: zero.
  ///
  /// ```swift
  /// #expect(scheduler.minimumTolerance == .zero)
  /// ```
  public var minimumTolerance: SchedulerTimeType.Stride { .zero }

  /// Fails the current test; `action` does not run.
  ///
  /// ```swift
  /// scheduler.schedule { }  // fails the test
  /// ```
  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    fail("schedule(options:_:)")
  }

  /// Fails the current test; `action` does not run.
  ///
  /// ```swift
  /// scheduler.schedule(after: scheduler.now) { }  // fails the test
  /// ```
  public func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) {
    fail("schedule(after: \(date), tolerance:options:_:)")
  }

  /// Fails the current test; `action` does not run, and the returned cancellable does nothing.
  ///
  /// ```swift
  /// _ = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { }  // fails the test
  /// ```
  public func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?, _ action: @escaping () -> Void
  ) -> any Cancellable {
    fail("schedule(after: \(date), interval: \(interval), tolerance:options:_:)")
    return AnyCancellable {}
  }

  private func fail(_ requirement: String) {
    reportTestFailure(
      "\(name) (created at \(location)) was asked to \(requirement): this code was not expected to schedule work on it. If it should, give it a TestScheduler or an ImmediateTestScheduler instead.",
      at: location)
  }
}

// Sendable only when its time is: it keeps `now`, which any thread reads. Every stored property is
// a constant, and options are never kept.
extension UnimplementedScheduler: Sendable where SchedulerTimeType: Sendable {}

/// An unimplemented scheduler with the time and options types of `S`:
/// `UnimplementedSchedulerOf<DispatchQueue>`.
///
/// This is an extension to Combine (see ``UnimplementedScheduler``).
///
/// ```swift
/// let scheduler = UnimplementedSchedulerOf<DispatchQueue>(now: .init(.init(uptimeNanoseconds: 1)))
/// ```
public typealias UnimplementedSchedulerOf<S: Scheduler> = UnimplementedScheduler<
  S.SchedulerTimeType, S.SchedulerOptions
>

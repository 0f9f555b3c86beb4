import Conduit
import Dispatch

extension DispatchQueue {
  /// A new test scheduler with `DispatchQueue`'s time types, whose clock starts at
  /// `DispatchTime(uptimeNanoseconds: 1)`: give it to code that takes an
  /// `AnySchedulerOf<DispatchQueue>` and move its time by hand.
  ///
  /// This is an extension to Combine (see ``TestScheduler``). Each use makes a new scheduler.
  /// The clock starts at one nanosecond, not zero, because `DispatchTime(uptimeNanoseconds: 0)`
  /// means "now" to Dispatch, as in the Combine community's combine-schedulers.
  ///
  /// ```swift
  /// let scheduler = DispatchQueue.test
  /// let model = SearchModel(scheduler: scheduler.eraseToAnyScheduler())
  /// model.query = "con"
  /// scheduler.advance(by: .milliseconds(300))
  /// #expect(model.results == ["Conduit"])
  /// ```
  public static var test: TestSchedulerOf<DispatchQueue> {
    TestSchedulerOf<DispatchQueue>(now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
  }

  /// A new immediate test scheduler with `DispatchQueue`'s time types, whose clock starts at
  /// `DispatchTime(uptimeNanoseconds: 1)`: every action runs at once and the clock jumps to its
  /// date.
  ///
  /// This is an extension to Combine (see ``ImmediateTestScheduler``).
  ///
  /// ```swift
  /// let model = SearchModel(scheduler: DispatchQueue.immediate.eraseToAnyScheduler())
  /// model.query = "con"  // debounced, but delivered at once
  /// #expect(model.results == ["Conduit"])
  /// ```
  public static var immediate: ImmediateTestSchedulerOf<DispatchQueue> {
    ImmediateTestSchedulerOf<DispatchQueue>(now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
  }

  /// A new scheduler with `DispatchQueue`'s time types that fails the current test whenever
  /// anything is scheduled on it; its clock stays at `DispatchTime(uptimeNanoseconds: 1)`.
  /// Its failures point into `ConduitTesting`; ``unimplemented(_:fileID:filePath:line:column:)``
  /// names the place it was made instead.
  ///
  /// This is an extension to Combine (see ``UnimplementedScheduler``).
  ///
  /// ```swift
  /// let model = SearchModel(
  ///   scheduler: DispatchQueue.test.eraseToAnyScheduler(),
  ///   backgroundQueue: DispatchQueue.unimplemented.eraseToAnyScheduler())
  /// ```
  public static var unimplemented: UnimplementedSchedulerOf<DispatchQueue> {
    UnimplementedSchedulerOf<DispatchQueue>(
      "DispatchQueue.unimplemented", now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
  }

  /// A new scheduler with `DispatchQueue`'s time types that fails the current test whenever
  /// anything is scheduled on it, naming it `name` and the place it was created.
  ///
  /// This is an extension to Combine (see ``UnimplementedScheduler``).
  ///
  /// ```swift
  /// let backgroundQueue = DispatchQueue.unimplemented("background queue")
  /// ```
  public static func unimplemented(
    _ name: String = "DispatchQueue.unimplemented", fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> UnimplementedSchedulerOf<DispatchQueue> {
    UnimplementedSchedulerOf<DispatchQueue>(
      name, now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)), fileID: fileID, filePath: filePath, line: line,
      column: column)
  }
}

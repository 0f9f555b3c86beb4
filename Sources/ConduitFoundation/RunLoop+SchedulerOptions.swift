import Foundation

extension RunLoop {
  /// Options that affect the operation of the run loop scheduler: none, as in Combine.
  ///
  /// ```swift
  /// RunLoop.main.schedule(options: nil) { print("on the main run loop") }
  /// ```
  public struct SchedulerOptions: Sendable {}
}

import Foundation

extension OperationQueue {
  /// Options that affect the operation of the operation queue scheduler: none, as in Combine.
  ///
  /// ```swift
  /// OperationQueue.main.schedule(options: nil) { print("on the main operation queue") }
  /// ```
  public struct SchedulerOptions: Sendable {}
}

import Foundation

extension OperationQueue {
  /// The scheduler time type used by the operation queue: a `Date`.
  ///
  /// ```swift
  /// let later = OperationQueue.main.now.advanced(by: .milliseconds(300))
  /// OperationQueue.main.schedule(after: later) { print("300 ms later") }
  /// ```
  ///
  /// As in Combine, it encodes as `{"date": <seconds since 2001-01-01>}`. Its `distance(to:)` and
  /// `advanced(by:)` are `_DateSchedulerTimeType`'s, which it shares with the other `Date`-based
  /// scheduler's time.
  public struct SchedulerTimeType: _DateSchedulerTimeType, Strideable, Codable, Hashable, Sendable {
    /// The date represented by this type.
    public var date: Date

    /// Initializes an operation queue scheduler time with the given date.
    ///
    /// - Parameter date: The date to represent.
    public init(_ date: Date) {
      self.date = date
    }
  }
}

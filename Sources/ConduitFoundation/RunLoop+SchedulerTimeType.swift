import Foundation

extension RunLoop {
  /// The scheduler time type used by the run loop: a `Date`.
  ///
  /// ```swift
  /// let later = RunLoop.main.now.advanced(by: .milliseconds(300))
  /// RunLoop.main.schedule(after: later) { print("300 ms later") }
  /// ```
  ///
  /// As in Combine, it encodes as `{"date": <seconds since 2001-01-01>}`. Its `distance(to:)` and
  /// `advanced(by:)` are `_DateSchedulerTimeType`'s, which it shares with the other `Date`-based
  /// scheduler's time.
  public struct SchedulerTimeType: _DateSchedulerTimeType, Strideable, Codable, Hashable, Sendable {
    /// The date represented by this type.
    public var date: Date

    /// Initializes a run loop scheduler time with the given date.
    ///
    /// - Parameter date: The date to represent.
    public init(_ date: Date) {
      self.date = date
    }
  }
}

import Foundation

extension OperationQueue {
  /// The scheduler time type used by the operation queue: a `Date`.
  ///
  /// ```swift
  /// let later = OperationQueue.main.now.advanced(by: .milliseconds(300))
  /// OperationQueue.main.schedule(after: later) { print("300 ms later") }
  /// ```
  ///
  /// As in Combine, it encodes as `{"date": <seconds since 2001-01-01>}`.
  public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
    /// The date represented by this type.
    public var date: Date

    /// Initializes an operation queue scheduler time with the given date.
    ///
    /// - Parameter date: The date to represent.
    public init(_ date: Date) {
      self.date = date
    }

    /// Returns the distance to another operation queue scheduler time, in seconds.
    ///
    /// - Parameter other: Another operation queue time.
    /// - Returns: The time interval between this time and the provided time.
    public func distance(to other: SchedulerTimeType) -> Stride {
      Stride(date.timeIntervalSinceReferenceDate.distance(to: other.date.timeIntervalSinceReferenceDate))
    }

    /// Returns an operation queue scheduler time calculated by advancing this instance's time by the
    /// given interval.
    ///
    /// - Parameter n: A time interval to advance.
    /// - Returns: An operation queue time advanced by the given interval from this instance's time.
    public func advanced(by n: Stride) -> SchedulerTimeType {
      SchedulerTimeType(date + n.magnitude)
    }
  }
}

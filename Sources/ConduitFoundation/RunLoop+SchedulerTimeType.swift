import Foundation

extension RunLoop {
  /// The scheduler time type used by the run loop: a `Date`.
  ///
  /// ```swift
  /// let later = RunLoop.main.now.advanced(by: .milliseconds(300))
  /// RunLoop.main.schedule(after: later) { print("300 ms later") }
  /// ```
  ///
  /// As in Combine, it encodes as `{"date": <seconds since 2001-01-01>}`.
  public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
    /// The date represented by this type.
    public var date: Date

    /// Initializes a run loop scheduler time with the given date.
    ///
    /// - Parameter date: The date to represent.
    public init(_ date: Date) {
      self.date = date
    }

    /// Returns the distance to another run loop scheduler time, in seconds.
    ///
    /// - Parameter other: Another run loop time.
    /// - Returns: The time interval between this time and the provided time.
    public func distance(to other: SchedulerTimeType) -> Stride {
      Stride(date.timeIntervalSinceReferenceDate.distance(to: other.date.timeIntervalSinceReferenceDate))
    }

    /// Returns a run loop scheduler time calculated by advancing this instance's time by the
    /// given interval.
    ///
    /// - Parameter n: A time interval to advance.
    /// - Returns: A run loop time advanced by the given interval from this instance's time.
    public func advanced(by n: Stride) -> SchedulerTimeType {
      SchedulerTimeType(date + n.magnitude)
    }
  }
}

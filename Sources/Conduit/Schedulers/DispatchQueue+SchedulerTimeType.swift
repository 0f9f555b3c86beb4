import Dispatch

extension DispatchQueue {
  /// The scheduler time type used by the dispatch queue: a `DispatchTime`.
  ///
  /// ```swift
  /// let deadline = DispatchQueue.main.now.advanced(by: .milliseconds(300))
  /// DispatchQueue.main.schedule(after: deadline) { print("300 ms later") }
  /// ```
  ///
  /// As in Combine, the distance between two times that are more than `Int.max` nanoseconds
  /// apart (such as any time and `DispatchTime.distantFuture`) is `Int.max` nanoseconds in both
  /// directions, and advancing by `Int.max` nanoseconds reaches `DispatchTime.distantFuture`.
  /// Times are ordered by their distance, as `Strideable` orders them.
  public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
    /// The dispatch time represented by this type.
    public var dispatchTime: DispatchTime

    /// Creates a dispatch queue time type instance.
    ///
    /// - Parameter time: The dispatch time to represent.
    @inlinable
    public init(_ time: DispatchTime) {
      dispatchTime = time
    }

    /// Returns the distance to another dispatch queue time, in nanoseconds.
    ///
    /// - Parameter other: Another dispatch queue time.
    /// - Returns: The time interval between this time and the provided time; `Int.max`
    ///   nanoseconds, whatever the direction, when it does not fit in an `Int`.
    public func distance(to other: SchedulerTimeType) -> Stride {
      let start = dispatchTime.uptimeNanoseconds
      let end = other.dispatchTime.uptimeNanoseconds
      // Either way, a gap too wide for an `Int` reads as `.never`, which is `Int.max`.
      if end >= start {
        let gap = end - start
        return gap > UInt64(Int.max) ? .nanoseconds(.max) : .nanoseconds(Int(gap))
      } else {
        let gap = start - end
        return gap > UInt64(Int.max) ? .nanoseconds(.max) : .nanoseconds(-Int(gap))
      }
    }

    /// Returns a dispatch queue scheduler time calculated by advancing this instance's time by
    /// the given interval.
    ///
    /// - Parameter n: A time interval to advance; `Int.max` nanoseconds means never, and gives
    ///   `DispatchTime.distantFuture`.
    /// - Returns: A dispatch queue time advanced by the given interval from this instance's time.
    ///   Dispatch keeps it within its clock: no earlier than its first instant, no later than
    ///   `DispatchTime.distantFuture`.
    public func advanced(by n: Stride) -> SchedulerTimeType {
      if n.magnitude == .max { return SchedulerTimeType(.distantFuture) }
      return SchedulerTimeType(dispatchTime + n.timeInterval)
    }

    /// Hashes the dispatch time's raw value.
    public func hash(into hasher: inout Hasher) {
      hasher.combine(dispatchTime.rawValue)
    }

    /// Encodes this time as its uptime in nanoseconds, a single unsigned integer, as Combine does.
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encode(dispatchTime.uptimeNanoseconds)
    }

    /// Creates a time from its uptime in nanoseconds, a single unsigned integer, as Combine
    /// encodes it.
    public init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      dispatchTime = DispatchTime(uptimeNanoseconds: try container.decode(UInt64.self))
    }
  }
}

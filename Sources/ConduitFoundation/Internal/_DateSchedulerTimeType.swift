import Foundation

/// A scheduler time that is a `Date` advancing by seconds: the one implementation of the
/// `Strideable` arithmetic of `RunLoop.SchedulerTimeType` and `OperationQueue.SchedulerTimeType`.
///
/// Not for use outside ConduitFoundation; it is not part of Combine's API. It is public and
/// underscored for the reason `_SecondsStride` is: its members witness `Strideable`'s
/// requirements on two distinct public types.
public protocol _DateSchedulerTimeType: Strideable where Stride: _SecondsStride {
  /// The date represented by this time.
  var date: Date { get }

  /// Creates a scheduler time with the given date.
  init(_ date: Date)
}

extension _DateSchedulerTimeType {
  /// Returns the distance to another scheduler time, in seconds.
  ///
  /// - Parameter other: Another scheduler time.
  /// - Returns: The time interval between this time and the provided time.
  public func distance(to other: Self) -> Stride {
    Stride(date.timeIntervalSinceReferenceDate.distance(to: other.date.timeIntervalSinceReferenceDate))
  }

  /// Returns a scheduler time calculated by advancing this instance's time by the given interval.
  ///
  /// - Parameter n: A time interval to advance.
  /// - Returns: A scheduler time advanced by the given interval from this instance's time.
  public func advanced(by n: Stride) -> Self {
    Self(date + n.magnitude)
  }
}

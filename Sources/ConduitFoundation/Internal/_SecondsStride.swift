import Foundation

/// A scheduler interval counted in seconds as a `TimeInterval`: the one implementation of the
/// arithmetic, comparison, literals and unit factories of `RunLoop.SchedulerTimeType.Stride` and
/// `OperationQueue.SchedulerTimeType.Stride`.
///
/// Not for use outside ConduitFoundation; it is not part of Combine's API. Combine requires the
/// two strides to be distinct types with the same members. Those members witness requirements of
/// public protocols (`SignedNumeric`, `SchedulerTimeIntervalConvertible` …), so they have to be
/// public; an internal protocol's extension provides them only through a compatibility loophole
/// that leaves them out of the module's interface, so this protocol is public and underscored.
public protocol _SecondsStride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral
where Magnitude == TimeInterval, IntegerLiteralType == TimeInterval, FloatLiteralType == TimeInterval {
  /// The value of this time interval in seconds, with its sign.
  var magnitude: TimeInterval { get set }

  /// Creates a time interval from the given number of seconds.
  init(_ timeInterval: TimeInterval)
}

extension _SecondsStride {
  /// The value of this time interval in seconds.
  public var timeInterval: TimeInterval { magnitude }

  /// Creates a time interval from an integer literal number of seconds.
  public init(integerLiteral value: TimeInterval) {
    self.init(value)
  }

  /// Creates a time interval from a floating-point literal number of seconds.
  public init(floatLiteral value: TimeInterval) {
    self.init(value)
  }

  /// Creates a time interval from a binary integer number of seconds; `nil` when the number
  /// cannot be represented exactly as a `TimeInterval`.
  public init?<T: BinaryInteger>(exactly source: T) {
    guard let value = TimeInterval(exactly: source) else { return nil }
    self.init(value)
  }

  /// Returns whether the first interval is shorter than the second.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    lhs.magnitude < rhs.magnitude
  }

  /// Returns the product of the two intervals' seconds, as Combine does.
  public static func * (lhs: Self, rhs: Self) -> Self {
    Self(lhs.magnitude * rhs.magnitude)
  }

  /// Returns the sum of two intervals.
  public static func + (lhs: Self, rhs: Self) -> Self {
    Self(lhs.magnitude + rhs.magnitude)
  }

  /// Returns the difference of two intervals.
  public static func - (lhs: Self, rhs: Self) -> Self {
    Self(lhs.magnitude - rhs.magnitude)
  }

  /// Multiplies the first interval by the second (see `*`).
  public static func *= (lhs: inout Self, rhs: Self) {
    lhs.magnitude *= rhs.magnitude
  }

  /// Adds the second interval to the first.
  public static func += (lhs: inout Self, rhs: Self) {
    lhs.magnitude += rhs.magnitude
  }

  /// Subtracts the second interval from the first.
  public static func -= (lhs: inout Self, rhs: Self) {
    lhs.magnitude -= rhs.magnitude
  }

  /// Converts the specified number of seconds into an interval.
  public static func seconds(_ s: Int) -> Self {
    Self(TimeInterval(s))
  }

  /// Converts the specified number of seconds, as a floating-point value, into an interval.
  public static func seconds(_ s: Double) -> Self {
    Self(s)
  }

  /// Converts the specified number of milliseconds into an interval.
  public static func milliseconds(_ ms: Int) -> Self {
    Self(TimeInterval(ms) / 1_000)
  }

  /// Converts the specified number of microseconds into an interval.
  public static func microseconds(_ us: Int) -> Self {
    Self(TimeInterval(us) / 1_000_000)
  }

  /// Converts the specified number of nanoseconds into an interval.
  public static func nanoseconds(_ ns: Int) -> Self {
    Self(TimeInterval(ns) / 1_000_000_000)
  }
}

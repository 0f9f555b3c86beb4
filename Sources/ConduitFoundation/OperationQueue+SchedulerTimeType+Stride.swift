import Foundation

extension OperationQueue.SchedulerTimeType {
  /// The interval by which operation queue times advance, in seconds.
  ///
  /// Write it as a number of seconds (`0.3`, `2`) or with the `SchedulerTimeIntervalConvertible`
  /// factories:
  ///
  /// ```swift
  /// let search = queries.debounce(for: .milliseconds(300), scheduler: OperationQueue.main)
  /// let later: OperationQueue.SchedulerTimeType.Stride = 1.5
  /// ```
  ///
  /// As in Combine, the product of two intervals multiplies their seconds, and it encodes as
  /// `{"magnitude": <seconds>}`.
  public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral,
    Codable, Sendable
  {
    /// A floating-point literal is a number of seconds.
    public typealias FloatLiteralType = TimeInterval

    /// An integer literal is a number of seconds, as Combine has it: a `TimeInterval`.
    public typealias IntegerLiteralType = TimeInterval

    /// The type of ``magnitude``: seconds.
    public typealias Magnitude = TimeInterval

    /// The value of this time interval in seconds, with its sign.
    public var magnitude: TimeInterval

    /// The value of this time interval in seconds.
    public var timeInterval: TimeInterval { magnitude }

    /// Creates an operation queue time interval from an integer literal number of seconds.
    public init(integerLiteral value: TimeInterval) {
      magnitude = value
    }

    /// Creates an operation queue time interval from a floating-point literal number of seconds.
    public init(floatLiteral value: TimeInterval) {
      magnitude = value
    }

    /// Creates an operation queue time interval from the given number of seconds.
    public init(_ timeInterval: TimeInterval) {
      magnitude = timeInterval
    }

    /// Creates an operation queue time interval from a binary integer number of seconds; `nil` when the
    /// number cannot be represented exactly as a `TimeInterval`.
    public init?<T: BinaryInteger>(exactly source: T) {
      guard let value = TimeInterval(exactly: source) else { return nil }
      magnitude = value
    }

    /// Returns whether the first interval is shorter than the second.
    public static func < (lhs: Stride, rhs: Stride) -> Bool {
      lhs.magnitude < rhs.magnitude
    }

    /// Returns the product of the two intervals' seconds, as Combine does.
    public static func * (lhs: Stride, rhs: Stride) -> Stride {
      Stride(lhs.magnitude * rhs.magnitude)
    }

    /// Returns the sum of two intervals.
    public static func + (lhs: Stride, rhs: Stride) -> Stride {
      Stride(lhs.magnitude + rhs.magnitude)
    }

    /// Returns the difference of two intervals.
    public static func - (lhs: Stride, rhs: Stride) -> Stride {
      Stride(lhs.magnitude - rhs.magnitude)
    }

    /// Multiplies the first interval by the second (see `*`).
    public static func *= (lhs: inout Stride, rhs: Stride) {
      lhs.magnitude *= rhs.magnitude
    }

    /// Adds the second interval to the first.
    public static func += (lhs: inout Stride, rhs: Stride) {
      lhs.magnitude += rhs.magnitude
    }

    /// Subtracts the second interval from the first.
    public static func -= (lhs: inout Stride, rhs: Stride) {
      lhs.magnitude -= rhs.magnitude
    }

    /// Converts the specified number of seconds into an interval.
    public static func seconds(_ s: Int) -> Stride {
      Stride(TimeInterval(s))
    }

    /// Converts the specified number of seconds, as a floating-point value, into an interval.
    public static func seconds(_ s: Double) -> Stride {
      Stride(s)
    }

    /// Converts the specified number of milliseconds into an interval.
    public static func milliseconds(_ ms: Int) -> Stride {
      Stride(TimeInterval(ms) / 1_000)
    }

    /// Converts the specified number of microseconds into an interval.
    public static func microseconds(_ us: Int) -> Stride {
      Stride(TimeInterval(us) / 1_000_000)
    }

    /// Converts the specified number of nanoseconds into an interval.
    public static func nanoseconds(_ ns: Int) -> Stride {
      Stride(TimeInterval(ns) / 1_000_000_000)
    }
  }
}

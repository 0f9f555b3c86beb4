import Foundation

extension RunLoop.SchedulerTimeType {
  /// The interval by which run loop times advance, in seconds.
  ///
  /// Write it as a number of seconds (`0.3`, `2`) or with the `SchedulerTimeIntervalConvertible`
  /// factories:
  ///
  /// ```swift
  /// let search = queries.debounce(for: .milliseconds(300), scheduler: RunLoop.main)
  /// let later: RunLoop.SchedulerTimeType.Stride = 1.5
  /// ```
  ///
  /// As in Combine, the product of two intervals multiplies their seconds, and it encodes as
  /// `{"magnitude": <seconds>}`. Its arithmetic, literals and factories are `_SecondsStride`'s,
  /// which it shares with the other `Date`-based scheduler's stride.
  public struct Stride: _SecondsStride, SchedulerTimeIntervalConvertible, Comparable, SignedNumeric,
    ExpressibleByFloatLiteral, Codable, Sendable
  {
    /// A floating-point literal is a number of seconds.
    public typealias FloatLiteralType = TimeInterval

    /// An integer literal is a number of seconds, as Combine has it: a `TimeInterval`.
    public typealias IntegerLiteralType = TimeInterval

    /// The type of ``magnitude``: seconds.
    public typealias Magnitude = TimeInterval

    /// The value of this time interval in seconds, with its sign.
    public var magnitude: TimeInterval

    /// Creates a run loop time interval from the given number of seconds.
    public init(_ timeInterval: TimeInterval) {
      magnitude = timeInterval
    }
  }
}

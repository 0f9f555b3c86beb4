/// A scheduler for performing synchronous actions.
///
/// You can only use this scheduler for immediate actions. If you attempt to schedule actions
/// after a specific date, this scheduler ignores the date and performs them immediately. Its
/// clock does not move: every `now` is the same instant, and every stride is zero apart.
///
/// ```swift
/// Just(1)
///   .receive(on: ImmediateScheduler.shared)
///   .sink { print($0) }  // prints 1 before `sink` returns
/// ```
public struct ImmediateScheduler: Scheduler, Sendable {
  /// The time type used by the immediate scheduler.
  public struct SchedulerTimeType: Strideable, Hashable, Sendable {
    @usableFromInline
    init() {}

    /// Returns the distance to another immediate scheduler time; always zero.
    public func distance(to other: SchedulerTimeType) -> Stride { 0 }

    /// Advances the time by the specified amount; the immediate scheduler's time never moves.
    public func advanced(by n: Stride) -> SchedulerTimeType { SchedulerTimeType() }

    /// The increment by which the immediate scheduler counts time.
    ///
    /// As in Combine, the `seconds`, `milliseconds`, `microseconds` and `nanoseconds` factories
    /// all return zero: the immediate scheduler has no clock. (`Hashable` and `Sendable` go beyond
    /// Combine.)
    public struct Stride: ExpressibleByFloatLiteral, Comparable, SignedNumeric, Codable, Hashable, Sendable,
      SchedulerTimeIntervalConvertible
    {
      /// The type used when evaluating floating-point literals.
      public typealias FloatLiteralType = Double
      /// The type used when evaluating integer literals.
      public typealias IntegerLiteralType = Int
      /// The type used for expressing the stride's magnitude.
      public typealias Magnitude = Int

      /// The value of this time interval.
      public var magnitude: Int

      /// Creates an immediate scheduler time interval from the given value.
      public init(_ value: Int) { magnitude = value }

      /// Creates an immediate scheduler time interval from an integer literal.
      public init(integerLiteral value: Int) { self.init(value) }

      /// Creates an immediate scheduler time interval from a floating-point literal, rounded
      /// toward zero.
      public init(floatLiteral value: Double) { self.init(Int(value)) }

      /// Creates an immediate scheduler time interval from a binary integer type, if it fits
      /// in an `Int`.
      public init?<T: BinaryInteger>(exactly source: T) {
        guard let value = Int(exactly: source) else { return nil }
        self.init(value)
      }

      public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }

      public static func * (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude * rhs.magnitude) }

      public static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude + rhs.magnitude) }

      public static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude - rhs.magnitude) }

      public static func -= (lhs: inout Stride, rhs: Stride) { lhs.magnitude -= rhs.magnitude }

      public static func *= (lhs: inout Stride, rhs: Stride) { lhs.magnitude *= rhs.magnitude }

      public static func += (lhs: inout Stride, rhs: Stride) { lhs.magnitude += rhs.magnitude }

      /// Zero: the immediate scheduler has no clock.
      public static func seconds(_ s: Int) -> Stride { 0 }

      /// Zero: the immediate scheduler has no clock.
      public static func seconds(_ s: Double) -> Stride { 0 }

      /// Zero: the immediate scheduler has no clock.
      public static func milliseconds(_ ms: Int) -> Stride { 0 }

      /// Zero: the immediate scheduler has no clock.
      public static func microseconds(_ us: Int) -> Stride { 0 }

      /// Zero: the immediate scheduler has no clock.
      public static func nanoseconds(_ ns: Int) -> Stride { 0 }
    }
  }

  /// The immediate scheduler takes no options.
  public typealias SchedulerOptions = Never

  /// The shared instance of the immediate scheduler.
  public static let shared = ImmediateScheduler()

  /// The immediate scheduler's definition of the current moment in time.
  public var now: SchedulerTimeType { SchedulerTimeType() }

  /// The minimum tolerance allowed by the immediate scheduler: zero.
  public var minimumTolerance: SchedulerTimeType.Stride { 0 }

  /// Performs the action at once, on the calling thread.
  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    action()
  }

  /// Performs the action at once, on the calling thread, whatever the date.
  public func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) {
    action()
  }

  /// Performs the action once, at once, on the calling thread, and returns a cancellable that
  /// does nothing: an immediate scheduler cannot repeat.
  public func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?, _ action: @escaping () -> Void
  ) -> any Cancellable {
    action()
    return Subscriptions.empty
  }
}

/// A protocol that provides a scheduler with an expression for relative time.
///
/// A scheduler's `SchedulerTimeType.Stride` conforms to it, so that time operators take
/// intervals written the same way on every scheduler:
///
/// ```swift
/// let search = queries.debounce(for: .milliseconds(300), scheduler: DispatchQueue.main)
/// ```
public protocol SchedulerTimeIntervalConvertible {
  /// Converts the specified number of seconds into an instance of this scheduler time type.
  static func seconds(_ s: Int) -> Self

  /// Converts the specified number of seconds, as a floating-point value, into an instance of
  /// this scheduler time type.
  static func seconds(_ s: Double) -> Self

  /// Converts the specified number of milliseconds into an instance of this scheduler time type.
  static func milliseconds(_ ms: Int) -> Self

  /// Converts the specified number of microseconds into an instance of this scheduler time type.
  static func microseconds(_ us: Int) -> Self

  /// Converts the specified number of nanoseconds into an instance of this scheduler time type.
  static func nanoseconds(_ ns: Int) -> Self
}

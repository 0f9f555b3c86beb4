import Dispatch

extension DispatchQueue.SchedulerTimeType {
  /// The distance between two dispatch queue times, in nanoseconds.
  ///
  /// Write it as a number of seconds (`0.3`, `2`) or with the `SchedulerTimeIntervalConvertible`
  /// factories:
  ///
  /// ```swift
  /// let search = queries.debounce(for: .milliseconds(300), scheduler: DispatchQueue.main)
  /// let later: DispatchQueue.SchedulerTimeType.Stride = 1.5  // 1 500 000 000 nanoseconds
  /// ```
  ///
  /// Values beyond the range of `Int` nanoseconds are clamped to it, and `Int.max` nanoseconds
  /// stands for `DispatchTimeInterval.never`. As in Combine, the product of two strides is zero.
  public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral,
    Hashable, Codable, Sendable
  {
    /// A floating-point literal is a number of seconds.
    public typealias FloatLiteralType = Double

    /// An integer literal is a number of seconds.
    public typealias IntegerLiteralType = Int

    /// The type of ``magnitude``: nanoseconds.
    public typealias Magnitude = Int

    /// The value of this time interval in nanoseconds, with its sign.
    public var magnitude: Int

    /// A `DispatchTimeInterval` created with the value of this type in nanoseconds.
    @inlinable
    public var timeInterval: DispatchTimeInterval { .nanoseconds(magnitude) }

    @inlinable
    init(nanoseconds: Int) {
      magnitude = nanoseconds
    }

    /// Creates a dispatch queue time interval from the given dispatch time interval.
    ///
    /// - Parameter timeInterval: A dispatch time interval; `.never` becomes `Int.max`
    ///   nanoseconds, and intervals beyond the range of `Int` nanoseconds are clamped to it.
    public init(_ timeInterval: DispatchTimeInterval) {
      switch timeInterval {
      case .seconds(let s): self = .seconds(s)
      case .milliseconds(let ms): self = .milliseconds(ms)
      case .microseconds(let us): self = .microseconds(us)
      case .nanoseconds(let ns): self = .nanoseconds(ns)
      case .never: self = .nanoseconds(.max)
      #if canImport(Darwin)
        @unknown default: self.init(measuring: timeInterval)
      #endif
      }
    }

    #if canImport(Darwin)
      // A case Dispatch may add later: measured as the distance it adds to a time far enough
      // from both ends of the clock to hold most intervals either way.
      init(measuring timeInterval: DispatchTimeInterval) {
        let reference = DispatchTime(uptimeNanoseconds: .max / 13)
        self = DispatchQueue.SchedulerTimeType(reference).distance(
          to: DispatchQueue.SchedulerTimeType(reference + timeInterval))
      }
    #endif

    /// Creates a dispatch queue time interval from a floating-point seconds value.
    ///
    /// - Parameter value: The number of seconds, as a `Double`.
    public init(floatLiteral value: Double) {
      self = .seconds(value)
    }

    /// Creates a dispatch queue time interval from an integer seconds value.
    ///
    /// - Parameter value: The number of seconds, as an `Int`.
    public init(integerLiteral value: Int) {
      self = .seconds(value)
    }

    /// Creates a dispatch queue time interval from a binary integer number of seconds.
    ///
    /// - Parameter source: A number of seconds; when it does not fit in an `Int`, the result is
    ///   `nil`.
    public init?<T: BinaryInteger>(exactly source: T) {
      guard let seconds = Int(exactly: source) else { return nil }
      self = .seconds(seconds)
    }

    /// Returns whether the first interval is shorter than the second.
    @inlinable
    public static func < (lhs: Stride, rhs: Stride) -> Bool {
      lhs.magnitude < rhs.magnitude
    }

    /// Returns zero, as Combine does: the product of two time intervals is not a time interval.
    public static func * (lhs: Stride, rhs: Stride) -> Stride {
      Stride(nanoseconds: 0)
    }

    /// Returns the sum of two intervals.
    @inlinable
    public static func + (lhs: Stride, rhs: Stride) -> Stride {
      Stride(nanoseconds: lhs.magnitude + rhs.magnitude)
    }

    /// Returns the difference of two intervals.
    @inlinable
    public static func - (lhs: Stride, rhs: Stride) -> Stride {
      Stride(nanoseconds: lhs.magnitude - rhs.magnitude)
    }

    /// Subtracts the second interval from the first.
    public static func -= (lhs: inout Stride, rhs: Stride) {
      lhs.magnitude -= rhs.magnitude
    }

    /// Sets the first interval to zero, as Combine does (see `*`).
    public static func *= (lhs: inout Stride, rhs: Stride) {
      lhs = lhs * rhs
    }

    /// Adds the second interval to the first.
    public static func += (lhs: inout Stride, rhs: Stride) {
      lhs.magnitude += rhs.magnitude
    }

    /// Converts the specified number of seconds, as a floating-point value, into an interval,
    /// rounded toward zero to whole nanoseconds and clamped to the range of `Int`.
    ///
    /// - Precondition: `s` is not NaN.
    public static func seconds(_ s: Double) -> Stride {
      precondition(!s.isNaN, "DispatchQueue.SchedulerTimeType.Stride.seconds(_:) was given NaN; pass a number")
      let nanoseconds = s * 1_000_000_000
      if nanoseconds >= Double(Int.max) { return Stride(nanoseconds: .max) }
      if nanoseconds <= Double(Int.min) { return Stride(nanoseconds: .min) }
      return Stride(nanoseconds: Int(nanoseconds))
    }

    /// Converts the specified number of seconds into an interval, clamped to the range of `Int`
    /// nanoseconds.
    public static func seconds(_ s: Int) -> Stride {
      Stride(nanoseconds: clampedProduct(s, 1_000_000_000))
    }

    /// Converts the specified number of milliseconds into an interval, clamped to the range of
    /// `Int` nanoseconds.
    public static func milliseconds(_ ms: Int) -> Stride {
      Stride(nanoseconds: clampedProduct(ms, 1_000_000))
    }

    /// Converts the specified number of microseconds into an interval, clamped to the range of
    /// `Int` nanoseconds.
    public static func microseconds(_ us: Int) -> Stride {
      Stride(nanoseconds: clampedProduct(us, 1_000))
    }

    /// Converts the specified number of nanoseconds into an interval.
    public static func nanoseconds(_ ns: Int) -> Stride {
      Stride(nanoseconds: ns)
    }

    // `value * unit`, saturated at `Int.min` and `Int.max`, as `DispatchTimeInterval` converts;
    // `unit` is positive.
    @usableFromInline
    static func clampedProduct(_ value: Int, _ unit: Int) -> Int {
      let (product, overflow) = value.multipliedReportingOverflow(by: unit)
      guard overflow else { return product }
      return value > 0 ? .max : .min
    }

    // Combine's format: `{"_nanoseconds": n}`.
    private enum CodingKeys: String, CodingKey {
      case nanoseconds = "_nanoseconds"
    }

    /// Encodes this interval in Combine's format, `{"_nanoseconds": n}`.
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(Int64(magnitude), forKey: .nanoseconds)
    }

    /// Creates an interval from Combine's format, `{"_nanoseconds": n}`.
    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      let nanoseconds = try container.decode(Int64.self, forKey: .nanoseconds)
      guard let value = Int(exactly: nanoseconds) else {
        throw DecodingError.dataCorruptedError(
          forKey: .nanoseconds, in: container, debugDescription: "\(nanoseconds) nanoseconds do not fit in an Int")
      }
      magnitude = value
    }
  }
}

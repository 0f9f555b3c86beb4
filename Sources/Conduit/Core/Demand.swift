extension Subscribers {
  /// A requested number of items, sent to a publisher from a subscriber through the subscription.
  ///
  /// Demand is either a finite count (``max(_:)``) or ``unlimited``. Arithmetic saturates:
  /// anything plus `.unlimited` is `.unlimited`, overflow becomes `.unlimited`, and a
  /// subtraction that would go below zero gives `.none`.
  ///
  /// ```swift
  /// var demand = Subscribers.Demand.max(2)
  /// demand += 3          // .max(5)
  /// demand -= 1          // .max(4)
  /// demand > 3           // true
  /// ```
  @frozen
  public struct Demand: Equatable, Comparable, Hashable, Codable, CustomStringConvertible, Sendable {
    /// `UInt.max` means unlimited.
    @usableFromInline
    let rawValue: UInt

    @inlinable
    init(rawValue: UInt) {
      self.rawValue = rawValue
    }

    /// A request for as many values as the publisher can produce.
    @inlinable
    public static var unlimited: Demand { Demand(rawValue: .max) }

    /// A request for no elements from the publisher.
    ///
    /// This is equivalent to `Demand.max(0)`.
    @inlinable
    public static var none: Demand { Demand(rawValue: 0) }

    /// Creates a demand for the given maximum number of elements.
    ///
    /// - Precondition: `value` is not negative.
    @inlinable
    public static func max(_ value: Int) -> Demand {
      precondition(
        value >= 0,
        "Subscribers.Demand.max(\(value)): demand cannot be negative; request .none or a positive count")
      return Demand(rawValue: UInt(value))
    }

    /// The number of requested values, or `nil` if unlimited.
    @inlinable
    public var max: Int? {
      rawValue == .max ? nil : Int(rawValue)
    }

    /// A textual representation of this instance.
    public var description: String {
      rawValue == .max ? "unlimited" : "max(\(rawValue))"
    }

    // MARK: Arithmetic between demands

    /// Adds two demands; `.unlimited` absorbs everything and overflow saturates to `.unlimited`.
    @inlinable
    public static func + (lhs: Demand, rhs: Demand) -> Demand {
      if lhs.rawValue == .max || rhs.rawValue == .max { return .unlimited }
      let (sum, overflow) = lhs.rawValue.addingReportingOverflow(rhs.rawValue)
      return overflow || sum == .max || sum > UInt(Int.max) ? .unlimited : Demand(rawValue: sum)
    }

    /// Adds `rhs` to `lhs`.
    @inlinable
    public static func += (lhs: inout Demand, rhs: Demand) {
      lhs = lhs + rhs
    }

    /// Subtracts `rhs` from `lhs`. `.unlimited` minus anything is `.unlimited`; anything finite
    /// minus `.unlimited`, or minus more than it holds, is `.none`.
    @inlinable
    public static func - (lhs: Demand, rhs: Demand) -> Demand {
      if lhs.rawValue == .max { return .unlimited }
      if rhs.rawValue == .max { return .none }
      return lhs.rawValue > rhs.rawValue ? Demand(rawValue: lhs.rawValue - rhs.rawValue) : .none
    }

    /// Subtracts `rhs` from `lhs`.
    @inlinable
    public static func -= (lhs: inout Demand, rhs: Demand) {
      lhs = lhs - rhs
    }

    // MARK: Arithmetic with integers

    /// Adds an integer to a demand. A result below zero is a programming error.
    @inlinable
    public static func + (lhs: Demand, rhs: Int) -> Demand {
      if lhs.rawValue == .max { return .unlimited }
      if rhs < 0 { return lhs - Demand.max(-rhs) }
      return lhs + Demand.max(rhs)
    }

    /// Adds an integer to a demand.
    @inlinable
    public static func += (lhs: inout Demand, rhs: Int) {
      lhs = lhs + rhs
    }

    /// Subtracts an integer from a demand, stopping at `.none`.
    ///
    /// As in Combine, the difference is computed as an `Int`: a negative `rhs` adds to the
    /// demand, and a difference that overflows `Int` (`.max(Int.max) - (-1)`) is `.none`, not
    /// `.unlimited`.
    @inlinable
    public static func - (lhs: Demand, rhs: Int) -> Demand {
      if lhs.rawValue == .max { return .unlimited }
      let (difference, overflow) = Int(lhs.rawValue).subtractingReportingOverflow(rhs)
      return overflow || difference <= 0 ? .none : Demand(rawValue: UInt(difference))
    }

    /// Subtracts an integer from a demand.
    @inlinable
    public static func -= (lhs: inout Demand, rhs: Int) {
      lhs = lhs - rhs
    }

    /// Multiplies a demand by an integer; `.unlimited` stays unlimited and overflow saturates.
    ///
    /// - Precondition: `rhs` is not negative.
    @inlinable
    public static func * (lhs: Demand, rhs: Int) -> Demand {
      precondition(rhs >= 0, "Subscribers.Demand * \(rhs): cannot multiply a demand by a negative number")
      if lhs.rawValue == .max { return .unlimited }
      let (product, overflow) = lhs.rawValue.multipliedReportingOverflow(by: UInt(rhs))
      return overflow || product > UInt(Int.max) ? .unlimited : Demand(rawValue: product)
    }

    /// Multiplies a demand by an integer.
    @inlinable
    public static func *= (lhs: inout Demand, rhs: Int) {
      lhs = lhs * rhs
    }

    // MARK: Comparisons

    /// `.unlimited` is greater than every finite demand.
    @inlinable
    public static func < (lhs: Demand, rhs: Demand) -> Bool {
      lhs.rawValue < rhs.rawValue
    }

    /// Whether a demand is less than a count; `.unlimited` is greater than every integer.
    @inlinable
    public static func < (lhs: Demand, rhs: Int) -> Bool {
      guard let count = lhs.max else { return false }
      return count < rhs
    }

    /// Whether a count is less than a demand; every integer is less than `.unlimited`.
    @inlinable
    public static func < (lhs: Int, rhs: Demand) -> Bool {
      guard let count = rhs.max else { return true }
      return lhs < count
    }

    /// Whether a demand is at most a count.
    @inlinable
    public static func <= (lhs: Demand, rhs: Int) -> Bool {
      !(rhs < lhs)
    }

    /// Whether a count is at most a demand.
    @inlinable
    public static func <= (lhs: Int, rhs: Demand) -> Bool {
      !(rhs < lhs)
    }

    /// Whether a demand is greater than a count.
    @inlinable
    public static func > (lhs: Demand, rhs: Int) -> Bool {
      rhs < lhs
    }

    /// Whether a count is greater than a demand.
    @inlinable
    public static func > (lhs: Int, rhs: Demand) -> Bool {
      rhs < lhs
    }

    /// Whether a demand is at least a count.
    @inlinable
    public static func >= (lhs: Demand, rhs: Int) -> Bool {
      !(lhs < rhs)
    }

    /// Whether a count is at least a demand.
    @inlinable
    public static func >= (lhs: Int, rhs: Demand) -> Bool {
      !(lhs < rhs)
    }

    /// Whether a demand equals a count; `.unlimited` equals no integer.
    public static func == (lhs: Demand, rhs: Int) -> Bool {
      lhs.max == rhs
    }

    /// Whether a demand differs from a count.
    @inlinable
    public static func != (lhs: Demand, rhs: Int) -> Bool {
      lhs.max != rhs
    }

    /// Whether a count equals a demand.
    public static func == (lhs: Int, rhs: Demand) -> Bool {
      rhs.max == lhs
    }

    /// Whether a count differs from a demand.
    @inlinable
    public static func != (lhs: Int, rhs: Demand) -> Bool {
      rhs.max != lhs
    }

    // MARK: Codable

    /// Combine's encoding of `.unlimited`: `Int.max + 1`. Encoded demand crosses to and from
    /// Apple platforms, so it is written as Combine writes it.
    static let encodedUnlimited = UInt(Int.max) + 1

    /// Creates a new instance by decoding from the given decoder: a count, or Combine's encoding
    /// of `.unlimited` (`9223372036854775808`). A negative count is a decoding error.
    public init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      // A count beyond Int.max cannot be a finite demand: read it as unlimited, as Combine does,
      // rather than keep a value that makes `max` trap on its conversion to Int.
      let decoded = try container.decode(UInt.self)
      rawValue = decoded > UInt(Int.max) ? .max : decoded
    }

    /// Encodes this value into the given encoder as Combine does: a count, and `.unlimited` as
    /// `9223372036854775808` (`Int.max + 1`).
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encode(rawValue == .max ? Demand.encodedUnlimited : rawValue)
    }
  }
}

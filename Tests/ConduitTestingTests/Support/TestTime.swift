import Conduit
import ConduitTesting

/// A scheduler time for tests: a count of nanoseconds, with a stride that prints in seconds
/// when it can.
struct TestTime: Strideable, Hashable, Sendable, CustomStringConvertible {
  var nanoseconds: Int

  init(_ nanoseconds: Int) {
    self.nanoseconds = nanoseconds
  }

  static func seconds(_ seconds: Int) -> TestTime { TestTime(seconds * 1_000_000_000) }

  static func < (lhs: TestTime, rhs: TestTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

  func distance(to other: TestTime) -> Stride { Stride(other.nanoseconds - nanoseconds) }

  func advanced(by stride: Stride) -> TestTime { TestTime(nanoseconds + stride.nanoseconds) }

  var description: String { "\(Stride(nanoseconds))" }

  struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, Hashable, Sendable,
    CustomStringConvertible
  {
    var nanoseconds: Int

    init(_ nanoseconds: Int) {
      self.nanoseconds = nanoseconds
    }

    init(integerLiteral value: Int) { self.init(value) }

    init?<T: BinaryInteger>(exactly source: T) {
      guard let value = Int(exactly: source) else { return nil }
      self.init(value)
    }

    var magnitude: UInt { nanoseconds.magnitude }

    var description: String {
      nanoseconds % 1_000_000_000 == 0 ? "\(nanoseconds / 1_000_000_000)s" : "\(nanoseconds)ns"
    }

    static func seconds(_ s: Int) -> Stride { Stride(s * 1_000_000_000) }
    static func seconds(_ s: Double) -> Stride { Stride(Int(s * 1_000_000_000)) }
    static func milliseconds(_ ms: Int) -> Stride { Stride(ms * 1_000_000) }
    static func microseconds(_ us: Int) -> Stride { Stride(us * 1_000) }
    static func nanoseconds(_ ns: Int) -> Stride { Stride(ns) }

    static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.nanoseconds + rhs.nanoseconds) }
    static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.nanoseconds - rhs.nanoseconds) }
    static func * (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.nanoseconds * rhs.nanoseconds) }
    static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }
  }
}

/// A test scheduler on ``TestTime``, starting at zero.
typealias VirtualScheduler = TestScheduler<TestTime, Never>

/// A reference type whose release a test can watch through a weak reference.
final class Token {}

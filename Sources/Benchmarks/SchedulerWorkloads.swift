import Conduit
import ConduitTesting

/// `TestScheduler`'s queue in a steady state: `pending` actions due one tick apart, each of
/// which, when it runs, schedules the next at `pending` ticks later, as a crowd of timers does.
/// Advancing by one tick runs one action with `pending` others waiting; a million pending must
/// cost about as much per action as a thousand (the queue is O(log n)).
enum SchedulerWorkloads {
  static let thousandPendingName = "TestScheduler: cost per action with 1,000 actions pending"

  nonisolated(unsafe) static let all: [Workload] = [
    Workload(
      "TestScheduler: cost per action with 1,000,000 actions pending", baseline: thousandPendingName, target: 2,
      note: "each action schedules the next: one schedule, one run and one queue removal per action"
    ) { costPerAction(pending: 1_000_000) }
  ]

  static func costPerAction(pending: Int) -> Double {
    let ring = SchedulerRing(pending: pending)
    defer { ring.stop() }
    return measure(operations: 500_000) { count in
      ring.scheduler.advance(by: BenchmarkTime.Stride(count))
    }
  }
}

/// `pending` actions that keep rescheduling themselves `pending` ticks later.
private final class SchedulerRing {
  let scheduler = TestScheduler<BenchmarkTime, Never>(now: BenchmarkTime(0))
  let interval: BenchmarkTime.Stride
  private(set) var action: () -> Void = {}
  var stopped = false

  init(pending: Int) {
    interval = BenchmarkTime.Stride(pending)
    // One closure, made once and rescheduled, so that the figure is the scheduler's and not the
    // allocator's.
    action = { [unowned self] in
      guard !self.stopped else { return }
      self.scheduler.schedule(after: self.scheduler.now.advanced(by: self.interval), self.action)
    }
    for tick in 1...pending {
      scheduler.schedule(after: BenchmarkTime(tick), action)
    }
  }

  func stop() {
    stopped = true
    scheduler.run(maxActions: .max)
  }
}

/// A scheduler time counted in ticks, for the benchmarks.
struct BenchmarkTime: Strideable {
  var ticks: Int

  init(_ ticks: Int) {
    self.ticks = ticks
  }

  static func < (lhs: BenchmarkTime, rhs: BenchmarkTime) -> Bool { lhs.ticks < rhs.ticks }

  func distance(to other: BenchmarkTime) -> Stride { Stride(other.ticks - ticks) }

  func advanced(by stride: Stride) -> BenchmarkTime { BenchmarkTime(ticks &+ stride.ticks) }

  struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric {
    var ticks: Int

    init(_ ticks: Int) {
      self.ticks = ticks
    }

    init(integerLiteral value: Int) { self.init(value) }

    init?<T: BinaryInteger>(exactly source: T) {
      guard let value = Int(exactly: source) else { return nil }
      self.init(value)
    }

    var magnitude: UInt { ticks.magnitude }

    static func seconds(_ s: Int) -> Stride { Stride(s * 1_000_000_000) }
    static func seconds(_ s: Double) -> Stride { Stride(Int(s * 1_000_000_000)) }
    static func milliseconds(_ ms: Int) -> Stride { Stride(ms * 1_000_000) }
    static func microseconds(_ us: Int) -> Stride { Stride(us * 1_000) }
    static func nanoseconds(_ ns: Int) -> Stride { Stride(ns) }

    static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.ticks < rhs.ticks }
    static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.ticks &+ rhs.ticks) }
    static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.ticks &- rhs.ticks) }
    static func * (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.ticks &* rhs.ticks) }
    static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }
  }
}

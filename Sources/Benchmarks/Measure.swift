import Glibc

/// Keeps a value alive and opaque to the optimizer.
@inline(never)
func blackHole<T>(_ value: T) {
  withExtendedLifetime(value) {}
}

/// An identity the optimizer cannot see through.
@inline(never)
func opaque<T>(_ value: T) -> T {
  value
}

func now() -> UInt64 {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Runs `body(operations)` repeatedly and returns the median nanoseconds per operation over at
/// least `runs` timed runs, after one warm-up run.
func measure(runs: Int = 7, operations: Int, _ body: (Int) -> Void) -> Double {
  body(max(1, operations / 10))
  var samples: [Double] = []
  for _ in 0..<runs {
    let start = now()
    body(operations)
    let elapsed = now() - start
    samples.append(Double(elapsed) / Double(operations))
  }
  samples.sort()
  return samples[samples.count / 2]
}

struct Baseline {
  let name: String
  let measure: () -> Double
}

struct Workload {
  let name: String
  let baseline: String
  /// The target ratio to the baseline, from the issue that asked for the workload.
  let target: Double
  let note: String
  let measure: () -> Double

  init(_ name: String, baseline: String, target: Double, note: String = "", measure: @escaping () -> Double) {
    self.name = name
    self.baseline = baseline
    self.target = target
    self.note = note
    self.measure = measure
  }
}

struct Result {
  let name: String
  let nanoseconds: Double
  let baseline: String
  let baselineNanoseconds: Double
  let target: Double
  let note: String

  var ratio: Double { nanoseconds / baselineNanoseconds }
  var meetsTarget: Bool { ratio <= target }
}

struct Extra {
  let name: String
  let value: String
}

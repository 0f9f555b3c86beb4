// `swift run -c release Benchmarks [--json] [--filter TEXT] [--profile]`
//
// `--profile` skips the baselines and the memory figures, so that a profiler sees only the
// workloads; it prints times without ratios.
//
// Every workload is timed against a baseline measured in the same run, and reported as a ratio:
// absolute times vary from machine to machine, ratios far less.

import Conduit
import Glibc
import Synchronization

let arguments = CommandLine.arguments.dropFirst()
let emitsJSON = arguments.contains("--json")
let profiling = arguments.contains("--profile")
let filter: String? = arguments.firstIndex(of: "--filter").flatMap { index in
  arguments.index(after: index) < arguments.endIndex ? arguments[arguments.index(after: index)] : nil
}

// Memory first, while the heap has not yet been through the other workloads' allocations.
let wantsExtras = !profiling && filter.map { "memory".contains($0) || "census".contains($0) } ?? true
let memoryExtra = wantsExtras ? [Extras.memoryPerSubscription()] : []

let baselines = Baselines.all
let workloads = Workloads.all

var baselineTimes: [String: Double] = [:]
for baseline in baselines where !profiling {
  baselineTimes[baseline.name] = baseline.measure()
}

var results: [Result] = []
for workload in workloads where filter.map({ workload.name.contains($0) }) ?? true {
  let time = workload.measure()
  let baselineTime = baselineTimes[workload.baseline] ?? .nan
  results.append(
    Result(
      name: workload.name, nanoseconds: time, baseline: workload.baseline, baselineNanoseconds: baselineTime,
      target: workload.target, note: workload.note))
}
let extras = wantsExtras ? memoryExtra + [Extras.dormantCensusCost()] : []

if emitsJSON {
  print(Report.json(baselines: baselineTimes, results: results, extras: extras))
} else {
  print(Report.table(baselines: baselineTimes, results: results, extras: extras))
}

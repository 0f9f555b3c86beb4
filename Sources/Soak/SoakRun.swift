import Conduit

/// The soak: builds the loads, runs them for the given time while printing one line of figures
/// per interval, then stops them, drains what is in flight, and checks the ledgers, the census
/// and resident memory.
struct SoakRun {
  /// Resident memory may grow by this fraction of its baseline before the soak fails.
  static let memoryGrowthLimit = 0.10

  let seconds: Double

  /// How long the load runs before the memory baseline is taken: the first minute, or the first
  /// half of a run shorter than two minutes, which has no minute to spare. Threads, Dispatch's
  /// caches and malloc's arenas are still growing to their working size for the first 20 to 30
  /// seconds, so a baseline taken earlier measures the warm-up, not a leak.
  var warmUp: Double { seconds >= 120 ? 60 : seconds / 2 }

  /// How often a line of figures is printed: every minute, or every sixth of a run shorter than
  /// six minutes, so that a short run prints some.
  var interval: Double { seconds >= 360 ? 60 : seconds / 6 }

  /// Runs the soak; returns whether every check passed.
  func run() async -> Bool {
    let censusAtStart = Census.liveObjects
    say(
      "soak: \(Self.clockTime(seconds)) of load, a line of figures every \(Self.clockTime(interval)), "
        + "the memory baseline at \(Self.clockTime(warmUp)); census \(censusAtStart) at start; "
        + "malloc arenas \(ProcessStatus.mallocArenaLimit.map { "at most \($0) (MALLOC_ARENA_MAX)" } ?? "as glibc chooses")"
    )

    // The loads live only inside `runLoads()`: once it returns, every pipeline, subject and
    // producer they held is let go, and the census can count what is left.
    let outcome = await runLoads()

    let releasing = ContinuousClock.now
    let censusSettled = await waitUntil(timeout: .seconds(30)) { Census.liveObjects == censusAtStart }
    let censusAtEnd = Census.liveObjects
    if !censusSettled {
      findings.record(
        "census: \(censusAtStart) live objects at start, \(censusAtEnd) 30 s after the loads were let go: "
          + "\(counted(censusAtEnd - censusAtStart, "framework object")) leaked")
    } else {
      say(
        "soak: census back at \(censusAtEnd) \(Self.decimal(ContinuousClock.now - releasing, places: 2)) s after the release"
      )
    }

    var memoryVerdict = "resident memory not measured on this platform"
    if let baseline = outcome.memory.baseline {
      let growth = Double(outcome.memory.peak - baseline) / Double(baseline)
      memoryVerdict =
        "resident memory \(Self.mebibytes(baseline)) at \(Self.clockTime(warmUp)), at most "
        + "\(Self.mebibytes(outcome.memory.peak)) later (\(Self.percent(growth)), limit +\(Int(Self.memoryGrowthLimit * 100)) %)"
      if growth > Self.memoryGrowthLimit {
        findings.record("memory: \(memoryVerdict)")
      }
    }

    let passed = findings.count == 0
    let verdict = passed ? "PASS" : "FAIL (\(counted(findings.count, "failure")); the first are printed above)"
    say(
      "soak: \(verdict): \(Self.clockTime(seconds)), \(Self.grouped(outcome.delivered)) values delivered, "
        + "\(Self.grouped(outcome.pipelines)) pipelines built and cancelled; census \(censusAtStart) at start, \(censusAtEnd) "
        + "at the end; \(memoryVerdict)")
    return passed
  }

  /// The loads, built before any producer starts.
  private static func makeLoads() -> [any Load] {
    let fanIn = FanInLoad()
    let share = ShareLoad()
    return [fanIn, share, RequestLoad(), TimingLoad(), BufferLoad(), ChurnLoad(fanIn: fanIn, share: share)]
  }

  /// What the loads did, gathered before they are released.
  private struct LoadOutcome {
    var delivered: Int
    var pipelines: Int
    var memory: MemoryFigures
  }

  /// Builds and starts the loads, reports on them for the length of the run, then stops them,
  /// waits for what is in flight and checks their ledgers.
  private func runLoads() async -> LoadOutcome {
    let loads = Self.makeLoads()
    let run = LoadRun()
    for load in loads { load.start(on: run) }
    let memory = await report(loads: loads, run: run)

    let stopping = ContinuousClock.now
    await run.stop()
    for load in loads { await load.finish() }
    let drained = ContinuousClock.now - stopping
    let ledgers = loads.flatMap(\.ledgers)
    say("soak: load stopped; producers, drain and checks took \(Self.decimal(drained, places: 2)) s. Delivered:")
    for ledger in ledgers {
      say("  \(Self.grouped(ledger.delivered).leftPadded(to: 14))  \(ledger.name)")
      if ledger.delivered == 0 { findings.record("\(ledger.name): no value arrived in the whole run") }
    }
    return LoadOutcome(
      delivered: ledgers.map(\.delivered).reduce(0, +), pipelines: run.pipelinesBuilt, memory: memory)
  }

  /// Resident memory at the end of the warm-up, and the most it reached after.
  private struct MemoryFigures {
    var baseline: Int?
    var peak = 0
  }

  /// Waits out the run, sampling resident memory every second and printing the figures every
  /// interval.
  private func report(loads: [any Load], run: LoadRun) async -> MemoryFigures {
    let clock = ContinuousClock()
    let start = clock.now
    var memory = MemoryFigures()
    var nextFigures = interval
    var lastFigures = (at: 0.0, delivered: 0)
    var second = 1.0
    while true {
      let due = min(second, seconds)
      try? await clock.sleep(until: start + .seconds(due))
      let elapsed = Self.seconds(clock.now - start)
      let status = ProcessStatus.read()
      let resident = status?.residentBytes
      var note = ""
      if memory.baseline == nil, elapsed >= warmUp, let resident {
        memory.baseline = resident
        note = "  (memory baseline)"
      } else if memory.baseline != nil, let resident {
        memory.peak = max(memory.peak, resident)
      }
      if elapsed >= nextFigures - 0.5 || due == seconds {
        let delivered = loads.flatMap(\.ledgers).map(\.delivered).reduce(0, +)
        let rate = Double(delivered - lastFigures.delivered) / max(elapsed - lastFigures.at, 0.001)
        say(
          "[\(Self.clockTime(elapsed).leftPadded(to: 6))] delivered \(Self.grouped(delivered)) "
            + "(\(Self.grouped(Int(rate)))/s)  pipelines built \(Self.grouped(run.pipelinesBuilt))  "
            + "census \(Self.grouped(Census.liveObjects))  rss \(resident.map(Self.mebibytes) ?? "n/a")  "
            + "threads \(status.map { String($0.threads) } ?? "n/a")\(note)")
        lastFigures = (elapsed, delivered)
        nextFigures += interval
      }
      if due == seconds { break }
      second += 1
    }
    return memory
  }

  static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }

  static func clockTime(_ seconds: Double) -> String {
    let whole = Int(seconds.rounded())
    let remainder = whole % 60
    return "\(whole / 60):\(remainder < 10 ? "0" : "")\(remainder)"
  }

  static func decimal(_ duration: Duration, places: Int = 1) -> String {
    decimal(seconds(duration), places: places)
  }

  static func decimal(_ value: Double, places: Int = 1) -> String {
    var scale = 1
    for _ in 0..<places { scale *= 10 }
    let scaled = Int((value * Double(scale)).rounded())
    let fraction = String(scaled % scale)
    return "\(scaled / scale).\(String(repeating: "0", count: places - fraction.count))\(fraction)"
  }

  static func mebibytes(_ bytes: Int) -> String {
    decimal(Double(bytes) / 1_048_576) + " MiB"
  }

  static func percent(_ fraction: Double) -> String {
    let tenths = Int((fraction * 1_000).rounded())
    let sign = tenths < 0 ? "-" : "+"
    return "\(sign)\(abs(tenths) / 10).\(abs(tenths) % 10) %"
  }

  static func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var grouped = ""
    for (offset, digit) in digits.enumerated() {
      if offset > 0, (digits.count - offset) % 3 == 0 { grouped.append(",") }
      grouped.append(digit)
    }
    return value < 0 ? "-" + grouped : grouped
  }
}

extension String {
  /// The string with spaces before it, to `width` characters.
  func leftPadded(to width: Int) -> String {
    String(repeating: " ", count: max(0, width - count)) + self
  }
}

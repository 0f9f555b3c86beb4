import Conduit
import Observation
import Synchronization

/// Issue 20's workload: an `@Observable` property change through `changes(on:_:)`, against the
/// same change observed by re-registering `withObservationTracking` by hand, measured in the
/// same run.
enum ObservationWorkloads {
  static let byHandBaseline = "baseline.WithObservationTrackingByHand"

  nonisolated(unsafe) static let baselines: [Baseline] = [
    Baseline(name: byHandBaseline) {
      let model = Counter()
      let changed = Atomic<Bool>(false)
      func register() {
        withObservationTracking {
          blackHole(model.count)
        } onChange: {
          changed.store(true, ordering: .releasing)
        }
      }
      register()
      return measure(operations: 200_000) { count in
        for _ in 0..<count {
          model.count &+= 1
          if changed.exchange(false, ordering: .acquiringAndReleasing) { register() }
        }
      }
    }
  ]

  nonisolated(unsafe) static let all: [Workload] = [
    Workload(
      "observation: an @Observable property change through changes(on:_:) into a sink, per change",
      baseline: byHandBaseline, target: 3,
      note: "each change scheduled, read after it with tracking registered again, and delivered; "
        + "the scheduler a bare queue drained after each change"
    ) {
      let model = Counter()
      let scheduler = TurnScheduler()
      let cancellable = model.changes(on: scheduler) { $0.count }.sink { blackHole($0) }
      scheduler.drain()
      defer { cancellable.cancel() }
      return measure(operations: 200_000) { count in
        for _ in 0..<count {
          model.count &+= 1
          scheduler.drain()
        }
      }
    }
  ]

  @Observable final class Counter {
    var count = 0
  }

  /// A scheduler whose actions wait in a queue until `drain()` runs them: one turn of a serial
  /// queue, without the thread hop.
  final class TurnScheduler: Scheduler, Sendable {
    typealias SchedulerTimeType = BenchmarkTime
    typealias SchedulerOptions = Never

    private let queue = Mutex<[@Sendable () -> Void]>([])

    var now: BenchmarkTime { BenchmarkTime(0) }
    var minimumTolerance: BenchmarkTime.Stride { .zero }

    func schedule(options: Never?, _ action: @escaping () -> Void) {
      nonisolated(unsafe) let action = action
      queue.withLock { $0.append { action() } }
    }

    func schedule(
      after date: BenchmarkTime, tolerance: BenchmarkTime.Stride, options: Never?, _ action: @escaping () -> Void
    ) {
      schedule(options: options, action)
    }

    func schedule(
      after date: BenchmarkTime, interval: BenchmarkTime.Stride, tolerance: BenchmarkTime.Stride, options: Never?,
      _ action: @escaping () -> Void
    ) -> any Cancellable {
      preconditionFailure("TurnScheduler runs no repeating actions")
    }

    /// Runs the actions queued, and those they queue, until none is left.
    func drain() {
      while true {
        let actions = queue.withLock { queue -> [@Sendable () -> Void] in
          defer { queue.removeAll(keepingCapacity: true) }
          return queue
        }
        if actions.isEmpty { return }
        for action in actions { action() }
      }
    }
  }
}

import Conduit
import Dispatch

/// Issue 19's workloads: Conduit's bridges into Swift concurrency.
enum ConcurrencyWorkloads {
  nonisolated(unsafe) static let all: [Workload] = [
    Workload(
      "await future.value of a fulfilled Future", baseline: "baseline.LockedCall", target: 5,
      note: "each timed run is one task awaiting in a loop: one task and one semaphore per run, not per await"
    ) { fulfilledFutureValue() }
  ]

  /// The fast path of `Future.value`: a fulfilled future answers under its lock, without
  /// suspending.
  static func fulfilledFutureValue() -> Double {
    let future = opaque(Future<Int, Never> { $0(.success(1)) })
    return measure(operations: 2_000_000) { count in
      runToCompletion {
        var sum = 0
        for _ in 0..<count { sum &+= await future.value }
        blackHole(sum)
      }
    }
  }

  /// Runs `body` in a new task and blocks the calling thread until it returns.
  ///
  /// The harness is synchronous; timing the whole loop inside one async context, rather than one
  /// task per await, makes the per-iteration cost the await itself, the task's creation and the
  /// hand-back through the semaphore spread over the whole run. The calling thread is not one
  /// of the cooperative pool's, so blocking it starves no task.
  static func runToCompletion(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
      await body()
      done.signal()
    }
    done.wait()
  }
}

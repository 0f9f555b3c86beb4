import Synchronization

/// One part of the soak's load: the pipelines it builds, the producers that feed them, and the
/// checks it makes once they have stopped.
protocol Load: Sendable {
  /// The ledgers of the load's long-lived subscribers.
  var ledgers: [any Ledger] { get }

  /// Starts the load's producers on `run`'s threads and tasks.
  func start(on run: LoadRun)

  /// Once every producer has stopped: waits for what is in flight, completes the load's subjects,
  /// checks the ledgers and cancels what is left.
  func finish() async
}

/// What the loads share while they run: whether producers keep going, and the threads and
/// tasks they run on, so that the soak can wait for every one of them to stop.
final class LoadRun: Sendable {
  private let running = Atomic<Bool>(true)
  private let liveThreads = Atomic<Int>(0)
  private let tasks = Mutex<[Task<Void, Never>]>([])
  private let pipelines = Atomic<Int>(0)

  /// Whether producers keep going.
  var isRunning: Bool { running.load(ordering: .relaxed) }

  /// How many pipelines the churn has built and cancelled.
  var pipelinesBuilt: Int { pipelines.load(ordering: .relaxed) }

  /// Counts one more pipeline built and cancelled.
  func countPipeline() {
    pipelines.wrappingAdd(1, ordering: .relaxed)
  }

  /// Runs `body` on a thread of its own, which `stop()` waits for.
  func thread(_ body: @escaping @Sendable () -> Void) {
    liveThreads.wrappingAdd(1, ordering: .relaxed)
    ProducerThread.start {
      body()
      self.liveThreads.wrappingSubtract(1, ordering: .releasing)
    }
  }

  /// Runs `body` in a task, which `stop()` waits for.
  func task(_ body: @escaping @Sendable () async -> Void) {
    let task = Task { await body() }
    tasks.withLock { $0.append(task) }
  }

  /// Tells every producer to stop, and returns once every thread and task has.
  func stop() async {
    running.store(false, ordering: .relaxed)
    for task in tasks.withLock({ $0 }) {
      await task.value
    }
    while liveThreads.load(ordering: .acquiring) > 0 {
      try? await Task.sleep(for: .milliseconds(10))
    }
  }
}

/// Waits until `condition` holds, checking it every few milliseconds, for at most `timeout`;
/// returns whether it came to hold. The drains wait like this because what is in flight arrives
/// on Dispatch queues and in tasks, at times no one can name.
func waitUntil(timeout: Duration, _ condition: () -> Bool) async -> Bool {
  let deadline = ContinuousClock.now + timeout
  while !condition() {
    if ContinuousClock.now >= deadline { return false }
    try? await Task.sleep(for: .milliseconds(5))
  }
  return true
}

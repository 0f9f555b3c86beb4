import Conduit
import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The work that one async advance of a ``TestScheduler`` started, run where the advance can
/// tell when it has settled.
///
/// While the advance runs an action, its thread is marked with this executor. A job that a
/// marked thread hands to the global concurrent executor (a task resumed by a clock's sleeper,
/// a `values` iterator resumed by a send, a task that woken code creates) comes here instead,
/// through the runtime's enqueue hook, and runs on this executor's serial queue, whose thread is
/// marked while the job runs, so that what the job starts comes here too. `pending` counts the
/// jobs queued and running; when it falls to zero, every task the advance woke has finished or
/// is suspended again, and the advance moves on. Jobs from unmarked threads (other tests, other
/// advances) go to the global executor untouched.
///
/// A woken job runs on the serial executor rather than as a generic one, so a task hops back to
/// the generic executor as soon as it runs nonisolated code: that hop starts on a marked thread
/// too, and comes back here. Nothing is ever isolated to this executor, so no job can reach it
/// once the advance's work has run.
final class SettlingExecutor: SerialExecutor, @unchecked Sendable {
  private struct State {
    var pending = 0
    /// The advance waiting for `pending` to fall to zero, with the number of its wait, so that
    /// the timer of an earlier wait cannot end a later one.
    var waiter: (wait: UInt64, continuation: CheckedContinuation<Bool, Never>)?
    var waits: UInt64 = 0
    /// The tasks this advance woke from a clock's sleep, for the report of one that never settles.
    var wokenTasks: [String] = []
  }

  // Guarded by its own lock.
  private let state = Locked(State())
  private let queue = DispatchQueue(label: "ConduitTesting.TestScheduler.settling")

  /// The executor whose advance is running an action or a job on this thread, if any.
  static var current: SettlingExecutor? {
    guard let pointer = pthread_getspecific(ThreadMark.key) else { return nil }
    return Unmanaged<SettlingExecutor>.fromOpaque(pointer).takeUnretainedValue()
  }

  /// Whether jobs can be routed here: false where the runtime has no enqueue hook, and then an
  /// async advance does not wait for what it wakes.
  static var isAvailable: Bool { GlobalEnqueueRouting.isInstalled }

  /// Runs `body` with this thread marked, so that what it enqueues on the global executor comes
  /// here.
  func withThreadMarked<Result>(_ body: () throws -> Result) rethrows -> Result {
    let previous = pthread_getspecific(ThreadMark.key)
    pthread_setspecific(ThreadMark.key, Unmanaged.passUnretained(self).toOpaque())
    defer { pthread_setspecific(ThreadMark.key, previous) }
    return try body()
  }

  /// Notes a task that a clock's sleeper woke, by name, for the report of an advance that does
  /// not settle.
  func noteWoken(_ task: String) {
    state.withLock { $0.wokenTasks.append(task) }
  }

  var wokenTasks: [String] { state.withLock { $0.wokenTasks } }

  func enqueue(_ job: consuming ExecutorJob) {
    route(UnownedJob(job))
  }

  /// Counts `job` as pending and runs it on the queue, with the queue's thread marked.
  func route(_ job: UnownedJob) {
    state.withLock { $0.pending += 1 }
    queue.async { [self] in
      withThreadMarked { job.runSynchronously(on: asUnownedSerialExecutor()) }
      // The thread is unmarked again here: the advance that this may resume goes back to the
      // global executor.
      let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
        state.pending -= 1
        guard state.pending == 0, let waiter = state.waiter else { return nil }
        state.waiter = nil
        return waiter.continuation
      }
      waiter?.resume(returning: true)
    }
  }

  /// Waits until no routed job is queued or running, and returns true; or returns false once
  /// `timeout` has passed in real time with a job still running.
  func waitUntilSettled(timeout: Duration) async -> Bool {
    if state.withLock({ $0.pending == 0 }) { return true }
    return await withCheckedContinuation { continuation in
      let wait = state.withLock { state -> UInt64? in
        guard state.pending > 0 else { return nil }
        state.waits += 1
        state.waiter = (state.waits, continuation)
        return state.waits
      }
      guard let wait else { return continuation.resume(returning: true) }
      DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(timeout.wholeNanoseconds)) {
        [weak self] in
        self?.endWait(wait)
      }
    }
  }

  private func endWait(_ wait: UInt64) {
    let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
      guard let waiter = state.waiter, waiter.wait == wait else { return nil }
      state.waiter = nil
      return waiter.continuation
    }
    waiter?.resume(returning: false)
  }

}

/// The thread-local mark of a thread whose global enqueues go to a ``SettlingExecutor``: an
/// unretained pointer to it, valid while the thread runs on its behalf.
private enum ThreadMark {
  static let key: pthread_key_t = {
    var key = pthread_key_t()
    let result = pthread_key_create(&key, nil)
    precondition(result == 0, "ConduitTesting: pthread_key_create failed (\(result))")
    return key
  }()
}

/// The runtime's hook on `swift_task_enqueueGlobal`, which sends the jobs of marked threads to
/// their ``SettlingExecutor``. It is installed once, the first time an async advance runs, and
/// stays: unmarked threads pay one thread-local read per enqueue. A hook that was installed
/// before keeps receiving every other job.
private enum GlobalEnqueueRouting {
  typealias Original = @convention(thin) (UnownedJob) -> Void
  typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

  // Written once, before the hook that reads it is installed.
  nonisolated(unsafe) static var previous: Hook?

  static let isInstalled: Bool = {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook") else { return false }
    let hook = symbol.assumingMemoryBound(to: Hook?.self)
    previous = hook.pointee
    hook.pointee = { job, original in
      if let executor = SettlingExecutor.current {
        executor.route(job)
      } else if let previous = GlobalEnqueueRouting.previous {
        previous(job, original)
      } else {
        original(job)
      }
    }
    return true
  }()
}

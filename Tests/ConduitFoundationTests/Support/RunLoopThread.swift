import Dispatch
import Foundation
import Synchronization
import Testing

/// A thread that runs its own run loop until stopped, for tests to schedule on.
///
/// The loop wakes at least every `slice` seconds to look at its stop flag: `run(mode:before:)`
/// returns only at its limit date when no input source fires.
final class RunLoopThread: @unchecked Sendable {
  // Written once by the thread before `init` returns (the semaphore orders it), then read-only.
  private(set) var runLoop: RunLoop!
  // Written once by the thread before `init` returns, then read-only.
  private var thread: Thread!
  private let stopped = Atomic<Bool>(false)
  private let finished = DispatchSemaphore(value: 0)

  init(slice: TimeInterval = 0.02) {
    let ready = DispatchSemaphore(value: 0)
    let thread = Thread { [unowned self] in
      runLoop = RunLoop.current
      self.thread = Thread.current
      // A timer that never fires keeps the loop from returning at once for want of sources.
      RunLoop.current.add(Timer(fire: .distantFuture, interval: 0, repeats: false) { _ in }, forMode: .default)
      ready.signal()
      while !stopped.load(ordering: .acquiring) {
        _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: slice))
      }
      finished.signal()
    }
    thread.start()
    ready.wait()
  }

  /// Whether the caller runs on this thread.
  var isCurrent: Bool { Thread.current == thread }

  /// Stops the loop and waits for the thread to leave it.
  func stop() {
    stopped.store(true, ordering: .releasing)
    if finished.wait(timeout: .now() + patience) == .timedOut {
      Issue.record("the run loop thread did not stop within \(patience)")
    }
  }

  /// Runs `body` on this thread and waits for it.
  func sync(_ body: @escaping () -> Void) {
    let done = DispatchSemaphore(value: 0)
    // Sound: the caller waits below until `body` has run, and touches nothing it uses meanwhile.
    nonisolated(unsafe) let body = body
    runLoop.perform {
      body()
      done.signal()
    }
    runLoop.add(Timer(fire: Date(), interval: 0, repeats: false) { _ in }, forMode: .default)
    if done.wait(timeout: .now() + patience) == .timedOut {
      Issue.record("the run loop did not run the block within \(patience)")
    }
  }
}

/// How long a test waits for something that should happen within milliseconds, on a loaded
/// machine, before it records a failure.
let patience = DispatchTimeInterval.seconds(10)

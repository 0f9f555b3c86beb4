import Conduit
import Foundation

/// The timer behind `RunLoop.schedule(after:interval:tolerance:options:_:)`: a repeating
/// `Timer` whose block reaches the action through this object, so that cancelling releases the
/// action at once rather than when the run loop gets round to dropping the timer, and nothing
/// refers back to the object (the block holds it weakly).
final class RunLoopRepeatingTimer: Cancellable, @unchecked Sendable {
  // Guarded by its own lock: the action, until the first cancel takes it out.
  private let action: Locked<(() -> Void)?>
  // Immutable; `invalidate()` may be called from any thread.
  private let timer: Timer
  private let census: CensusToken

  init(runLoop: RunLoop, start: Date, interval: TimeInterval, tolerance: TimeInterval, action: @escaping () -> Void) {
    census = CensusToken(RunLoopRepeatingTimer.self)
    self.action = Locked(action)
    let box = WeakTimerTarget()
    timer = Timer(fire: start, interval: interval, repeats: true) { _ in box.target?.fire() }
    timer.tolerance = tolerance
    box.target = self
    runLoop.add(timer, forMode: .default)
  }

  deinit {
    // Only reached after `cancel()`, through `AnyCancellable`; invalidating twice is fine.
    timer.invalidate()
  }

  private func fire() {
    // The action is called after the lock, and may cancel the timer from inside.
    guard let action = action.withLock({ $0 }) else { return }
    action()
  }

  func cancel() {
    timer.invalidate()
    // Released once `exchange` has returned, after the lock: what the action captured may cancel
    // or schedule again in its deinit.
    action.exchange(nil)
  }
}

/// The weak reference from a timer's block back to its owner, set once the owner exists.
private final class WeakTimerTarget: @unchecked Sendable {
  // Written once, before the timer is added to a run loop, and read only by the timer's block.
  weak var target: RunLoopRepeatingTimer?
}

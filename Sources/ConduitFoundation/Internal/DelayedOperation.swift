import Conduit
import Dispatch
import Foundation

/// An operation that is not ready until its date, when a Dispatch timer makes it ready, and that
/// runs its action once however often `main()` is called.
///
/// Cancelled, it becomes ready at once, so that its queue lets go of it without running it.
final class DelayedOperation: Operation, Cancellable, @unchecked Sendable {
  /// What running the operation does.
  enum Work {
    /// Calls an action once.
    case action(() -> Void)
    /// Runs the next step of a repeating schedule.
    case repetition(OperationRepetition)
  }

  private struct State {
    var work: Work?
    var isDue = false
  }

  // Guarded by its own lock.
  private let state: Locked<State>
  private let census: CensusToken

  init(due date: Date, work: Work) {
    census = CensusToken(DelayedOperation.self)
    state = Locked(State(work: work))
    super.init()
    // A wall-clock deadline, as `Date` is: a change of the system clock moves it too.
    let deadline = DispatchWallTime.now() + date.timeIntervalSinceNow
    DispatchQueue.global().asyncAfter(wallDeadline: deadline) { [weak self] in self?.becomeDue() }
  }

  override var isReady: Bool {
    guard super.isReady else { return false }
    return state.withLock { $0.isDue } || isCancelled
  }

  override func main() {
    // Taken out under the lock and called after it: a second `main()` finds nothing.
    switch state.withLock({ $0.work.take() }) {
    case .action(let action): action()
    case .repetition(let repetition): repetition.runStep(of: self)
    case nil: break
    }
  }

  override func cancel() {
    super.cancel()
    // Released after the lock: what the action captured may schedule again in its deinit.
    let work = state.withLock { $0.work.take() }
    withExtendedLifetime(work) {}
    readinessChanged()
  }

  private func becomeDue() {
    let changed = state.withLock { state -> Bool in
      defer { state.isDue = true }
      return !state.isDue
    }
    if changed { readinessChanged() }
  }

  /// Tells the queue, through key-value observing, to look at `isReady` again.
  private func readinessChanged() {
    willChangeValue(for: \.isReady)
    didChangeValue(for: \.isReady)
  }
}

import Conduit
import Foundation

/// The schedule behind `OperationQueue.schedule(after:interval:tolerance:options:_:)`: one
/// `DelayedOperation` at a time, each added to the queue when the one before has run, until
/// cancelled.
final class OperationRepetition: Cancellable, @unchecked Sendable {
  private enum State {
    case active(action: () -> Void, waiting: DelayedOperation?, due: Date)
    case cancelled
  }

  // Immutable.
  private let interval: TimeInterval
  // Guarded by its own lock: the queue until cancelled.
  private let queue: Locked<OperationQueue?>
  // Guarded by its own lock.
  private let state: Locked<State>
  private let census: CensusToken

  init(queue: OperationQueue, interval: TimeInterval, action: @escaping () -> Void) {
    census = CensusToken(OperationRepetition.self)
    self.interval = interval
    self.queue = Locked(queue)
    state = Locked(.active(action: action, waiting: nil, due: .distantPast))
  }

  /// The first run, due at `date`, for the caller to add to the queue.
  func start(due date: Date) -> DelayedOperation {
    let first = DelayedOperation(due: date, work: .repetition(self))
    state.withLock { state in
      if case .active(let action, _, _) = state { state = .active(action: action, waiting: first, due: date) }
    }
    return first
  }

  /// Runs the action for `operation`, then adds the next run to the queue, due one interval
  /// after the one that just ran, unless the schedule was cancelled meanwhile.
  func runStep(of operation: DelayedOperation) {
    let current = state.withLock { state -> (action: () -> Void, due: Date)? in
      guard case .active(let action, let waiting, let due) = state, waiting === operation else { return nil }
      return (action, due)
    }
    guard let (action, due) = current else { return }
    action()
    let nextDue = due + interval
    let next = DelayedOperation(due: nextDue, work: .repetition(self))
    let stillActive = state.withLock { state -> Bool in
      guard case .active(let action, let waiting, _) = state, waiting === operation else { return false }
      state = .active(action: action, waiting: next, due: nextDue)
      return true
    }
    guard stillActive, let target = self.queue.withLock({ $0 }) else {
      next.cancel()
      return
    }
    target.addOperation(next)
  }

  func cancel() {
    // What the state held leaves after the lock: the action's captures may cancel or schedule
    // in their deinits.
    let ended = state.exchange(.cancelled)
    queue.exchange(nil)
    if case .active(_, let waiting, _) = ended { waiting?.cancel() }
  }
}

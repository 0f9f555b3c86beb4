import Conduit

/// A count that a test awaits, without sleeping, until it reaches a number: the way to wait for
/// what a publisher delivers from another task.
final class AwaitableCount: Sendable {
  private struct State {
    var count = 0
    var nextWaiter = 0
    var waiters: [(id: Int, target: Int, continuation: UnsafeContinuation<Void, Never>)] = []
  }

  // Guarded by its own lock.
  private let state = Locked(State())

  /// The count now.
  var value: Int { state.withLock { $0.count } }

  /// Adds one, and wakes the waiters whose number it reaches.
  func increment() {
    let reached = state.withLock { state -> [UnsafeContinuation<Void, Never>] in
      state.count += 1
      let count = state.count
      defer { state.waiters.removeAll { $0.target <= count } }
      return state.waiters.filter { $0.target <= count }.map(\.continuation)
    }
    for continuation in reached { continuation.resume() }
  }

  /// Returns once the count is at least `target`, or once the waiting task is cancelled (a
  /// test's `.timeLimit` cancels it), so that a count that never comes fails the test rather than
  /// hanging the run.
  func reach(_ target: Int) async {
    let id = state.withLock { state -> Int in
      defer { state.nextWaiter += 1 }
      return state.nextWaiter
    }
    await withTaskCancellationHandler {
      await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
        let reached = state.withLock { state -> Bool in
          if state.count >= target || Task.isCancelled { return true }
          state.waiters.append((id, target, continuation))
          return false
        }
        if reached { continuation.resume() }
      }
    } onCancel: {
      let waiting = state.withLock { state -> UnsafeContinuation<Void, Never>? in
        guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return state.waiters.remove(at: index).continuation
      }
      waiting?.resume()
    }
  }
}

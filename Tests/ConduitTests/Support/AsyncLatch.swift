import Synchronization

/// A one-shot gate for async tests: `wait()` suspends until `open()`, whichever comes first,
/// without any clock. Opening it from a task cancellation handler is safe from any thread.
final class AsyncLatch: Sendable {
  private enum State {
    case closed([CheckedContinuation<Void, Never>])
    case open
  }

  private let state = Mutex(State.closed([]))

  func wait() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let resumeNow = state.withLock { state -> Bool in
        guard case .closed(var waiting) = state else { return true }
        waiting.append(continuation)
        state = .closed(waiting)
        return false
      }
      if resumeNow { continuation.resume() }
    }
  }

  func open() {
    let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      defer { state = .open }
      guard case .closed(let waiting) = state else { return [] }
      return waiting
    }
    for continuation in waiting { continuation.resume() }
  }
}

import Conduit

/// An action handed to a run loop or an operation queue, run at most once: the census counts it
/// until the run loop or queue lets go of it.
final class RunLoopWorkItem: @unchecked Sendable {
  // Guarded by its own lock: the action, until `run` takes it out.
  private let action: Locked<(() -> Void)?>
  private let census: CensusToken

  init(_ action: @escaping () -> Void) {
    census = CensusToken(RunLoopWorkItem.self)
    self.action = Locked(action)
  }

  /// Runs the action, once; later calls do nothing.
  func run() {
    // Taken out under the lock and called after it.
    guard let action = action.exchange(nil) else { return }
    action()
  }
}

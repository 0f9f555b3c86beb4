import Conduit

/// An action handed to a run loop or an operation queue: the census counts it until the run loop
/// or queue lets go of it.
final class ScheduledWorkItem: @unchecked Sendable {
  // Immutable; the run loop or queue calls it on the thread it runs work on, and the caller
  // handed it over (the scheduler contract).
  private let action: () -> Void
  private let census: CensusToken

  init(_ action: @escaping () -> Void) {
    census = CensusToken(ScheduledWorkItem.self)
    self.action = action
  }

  /// Runs the action; a `BlockOperation` runs it again each time its `main()` is called, as in
  /// Combine.
  func run() {
    action()
  }
}

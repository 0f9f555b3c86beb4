import Conduit

/// An action handed to a run loop or an operation queue; the census counts it until it has run
/// (for a run-once item) or until the run loop or queue lets go of it.
///
/// A run loop may keep a fired `Timer`, and with it the timer's block, for longer than the
/// action needs to live (Foundation on Linux keeps it until the run loop goes), so a run-once
/// item lets go of its action, and leaves the census, as soon as the action has run.
final class ScheduledWorkItem: @unchecked Sendable {
  /// The action and the item's census membership, which leave together.
  private final class Payload {
    let action: () -> Void
    let census = CensusToken(Payload.self)

    init(_ action: @escaping () -> Void) { self.action = action }
  }

  // Immutable.
  private let runsOnce: Bool
  // Guarded by its own lock: the payload, until a run-once item has run.
  private let payload: Locked<Payload?>

  /// - Parameter runsOnce: Whether later runs do nothing; a `BlockOperation` runs its action
  ///   again each time its `main()` is called, as in Combine, so its item does not run once.
  init(runsOnce: Bool, _ action: @escaping () -> Void) {
    self.runsOnce = runsOnce
    payload = Locked(Payload(action))
  }

  func run() {
    // Taken under the lock, called after it; a run-once item's payload is released afterwards.
    guard let payload = runsOnce ? payload.exchange(nil) : payload.withLock({ $0 }) else { return }
    payload.action()
  }
}

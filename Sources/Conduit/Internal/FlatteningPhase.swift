@usableFromInline
enum FlatteningPhase<Failure: Error> {
  case active
  /// A failure waits for the delivering thread.
  case failing(Failure)
  case cancelled
  /// Completed or cancelled, and everything released (or being released by the owner).
  case done
}

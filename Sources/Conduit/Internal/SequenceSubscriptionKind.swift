import Synchronization

/// What a `SequenceSubscription` publishes for, which decides how it describes itself.
@usableFromInline
enum SequenceSubscriptionKind {
  /// A `Publishers.Sequence`: described by its sequence while it publishes, "Sequence" after.
  case sequence
  /// A `Record`: described by its recorded output while it publishes, "Cancelled Events" after,
  /// and reflected with its completion too.
  case record
}

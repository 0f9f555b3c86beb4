import Synchronization

/// Which of Combine's subscriptions an operator's own subscription behaves as: Combine's
/// operators differ in what they do with what reaches them before upstream's subscription, and
/// with a request for `.none`. The Combine-verified suite records each operator's.
@usableFromInline
enum CombineSubscriptionKind {
  /// `tryMap`: a value before upstream's subscription is handled like any other (a throw fails
  /// the stream, and the subscription that comes later is cancelled); a completion, a request or a
  /// cancel before it is ignored (the subscription that comes later is taken as if nothing had
  /// happened). A request for `.none` is passed upstream.
  case mapping
  /// `tryScan`, `output(in:)`: as `mapping`, except that an end the operator comes to before
  /// upstream's subscription (a throw, the range's end) is ignored with the value.
  case accumulating
  /// `encode`, `decode`: as `mapping`, except that a completion before upstream's subscription
  /// ends the stream and is passed on (the subscription that comes later is cancelled).
  case coding
  /// `drop(while:)`, `tryDrop(while:)`: a value, a completion, a request or a cancel before
  /// upstream's subscription is ignored. A request for `.none` traps.
  case dropping
  /// `tryFilter`, `tryCompactMap`, `removeDuplicates`, `tryRemoveDuplicates`, `prefix(while:)`,
  /// `tryPrefix(while:)` (one implementation in Combine): a value, a completion or a request
  /// before upstream's subscription traps; a cancel before it ends the stream (the subscription
  /// that comes later is cancelled). A request for `.none` traps.
  case filtering
}

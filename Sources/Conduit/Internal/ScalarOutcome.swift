/// What a publisher of at most one value does once subscribed, known without subscribing to it.
@usableFromInline
enum ScalarOutcome<Output, Failure: Error> {
  /// Sends the value at the first demand, then finishes (`Just`, `Optional.Publisher` with a
  /// value, `Result.Publisher` with a success).
  case value(Output)
  /// Finishes at once, whatever the demand.
  case finished
  /// Fails at once, whatever the demand.
  case failure(Failure)
  /// Sends nothing, ever (`Empty(completeImmediately: false)`).
  case silent
}

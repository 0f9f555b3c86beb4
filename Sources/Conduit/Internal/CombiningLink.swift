import Synchronization

/// The types of a `CombiningSubscription`, named by one generic parameter (see `OperatorLink`).
@usableFromInline
protocol CombiningLink {
  /// What the values make, and how.
  associatedtype Strategy: CombiningStrategy
  /// The subscriber of the combined values.
  associatedtype Downstream: Subscriber where Downstream.Input == Strategy.Output
}

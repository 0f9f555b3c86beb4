import Synchronization

/// What distinguishes `merge`, `zip` and `combineLatest`: how a value is kept, when values make
/// an output, and when no output can come any more. Everything else (the upstream
/// subscriptions, downstream demand, serialized delivery, completion, failure and cancellation)
/// is `CombiningSubscription`'s.
///
/// The instance belongs to whichever thread owns the subscription (see `CombiningSubscription`):
/// its methods run only there and must not call out.
@usableFromInline
protocol CombiningStrategy {
  associatedtype Output

  /// The name a subscription and its sides print as (Combine's names: "Merge", "Zip", "CombineLatest").
  static var description: String { get }

  /// `true` when each upstream is asked for one value at a time, and asked again once that value
  /// has gone downstream (`.unlimited` once the downstream is unlimited): Combine's `Merge`,
  /// which holds at most one undelivered value per upstream. `false` when every downstream
  /// request is passed to every upstream: Combine's `Zip` and `CombineLatest`.
  static var requestsOneAtATime: Bool { get }

  /// `true` when an output the downstream has no demand for is dropped rather than kept until
  /// it asks (Combine's `CombineLatest`).
  static var dropsOutputWithoutDemand: Bool { get }

  /// `true` when demand the downstream adds while an upstream's value is going down is returned
  /// to that upstream from its `receive(_:)` (Combine's `Zip` and `Merge`); `false` when every
  /// upstream, that one included, is asked for it with `request(_:)` (Combine's `CombineLatest`).
  static var returnsDemandToSender: Bool { get }

  /// `true` when a failure cancels the upstream that failed along with the others (Combine's
  /// `Zip` and `Merge`); `false` when only the others are cancelled (`CombineLatest`).
  static var cancelsFailedUpstream: Bool { get }

  /// `true` when taking a value can leave no output possible any more, by emptying the slot of
  /// an upstream that has finished (Combine's `Zip`). `false` when only a completion can
  /// (`Merge`, `CombineLatest`): the subscription stops being active as soon as it handles that
  /// completion, so an active one is never exhausted, and a value need not ask.
  static var exhaustsOnValues: Bool { get }

  /// Takes a value that upstream `index` delivered, of that upstream's output type, and returns
  /// the output it completes, if any.
  mutating func combine<Value>(_ value: Value, from index: Int) -> Output?

  /// Whether no output can come any more, given which upstreams have `finished` (by index) and
  /// how many have.
  func isExhausted(finished: [Bool], finishedCount: Int) -> Bool

  /// Forgets every value held.
  mutating func release()
}

import Synchronization

/// The `CombiningLink` of a subscription with `Strategy` and `Downstream`. Never instantiated.
@usableFromInline
enum CombiningTypes<Strategy: CombiningStrategy, Downstream: Subscriber>: CombiningLink
where Downstream.Input == Strategy.Output {
  /// Gives `downstream` its subscription; the caller then attaches the upstreams in order.
  @inlinable @inline(__always)
  static func subscribe(
    _ downstream: Downstream, strategy: Strategy, upstreamCount: Int
  ) -> CombiningSubscription<CombiningTypes> {
    CombiningSubscription.subscribe(downstream, strategy: strategy, upstreamCount: upstreamCount)
  }

  /// Builds a subscription for `downstream` without giving it yet; the caller attaches the
  /// upstreams in order, then calls `handDown()` (`zip`'s order).
  @inlinable @inline(__always)
  static func prepare(
    _ downstream: Downstream, strategy: Strategy, upstreamCount: Int
  ) -> CombiningSubscription<CombiningTypes> {
    CombiningSubscription.prepare(downstream, strategy: strategy, upstreamCount: upstreamCount)
  }
}

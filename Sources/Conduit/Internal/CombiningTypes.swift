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
}

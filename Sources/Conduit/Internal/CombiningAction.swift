import Synchronization

/// What a `CombiningSubscription` does once its `CombiningStateMachine` has decided. An output
/// to deliver travels beside it (see `CombiningStateMachine.Delivery`), so that this enum stays
/// trivial to copy on the path of every value.
@usableFromInline
enum CombiningAction: Equatable {
  case none
  /// No output can come: cancel the upstreams still running.
  case stopUpstreams
  /// Upstream `index` finished: it no longer runs. Then `stopUpstreams` if `stopping`.
  case forget(Int, stopping: Bool)
  /// An upstream failed: forget upstream `forgetting`, if any, cancel the upstreams still
  /// running, then send the failure downstream and let go of it.
  case fail(forgetting: Int?)
  /// Everything has gone down: cancel the upstreams still running, then send `.finished`
  /// downstream and let go of it.
  case finish
  /// Cancelled: cancel the upstreams still running and let go of the downstream.
  case release
}

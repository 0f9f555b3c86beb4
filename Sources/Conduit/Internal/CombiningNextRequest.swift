import Synchronization

/// How the upstream whose value makes an output is asked for its next value as the output goes
/// down: a merge asks one value at a time (see `CombiningStrategy.requestsOneAtATime`).
@usableFromInline
enum CombiningNextRequest: Equatable {
  case none
  /// The upstream whose `receive(_:)` is on the stack: its one value is returned from that call.
  case owed
  /// Upstream `index`, asked with `request(.max(1))`.
  case request(Int)
}

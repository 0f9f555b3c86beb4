/// What a flattening operator (`flatMap`, `switchToLatest`) does after a completion or a cancel,
/// once its lock is released.
@usableFromInline
enum FlatteningAction<Held, Value> {
  case none
  /// This call owns delivery: drain.
  case drain
  /// Cancel `detached.cancelled` in order and let go of the rest, then drain if `drains`.
  case detach(DetachedState<Held, Value>, drains: Bool)

  /// Performs the action; `drain` runs the owner's loop.
  @inlinable @inline(__always)
  func perform(drain: () -> Void) {
    switch self {
    case .none:
      break
    case .drain:
      drain()
    case .detach(let detached, let drains):
      for subscription in detached.cancelled { subscription.cancel() }
      if drains { drain() }
    }
  }
}

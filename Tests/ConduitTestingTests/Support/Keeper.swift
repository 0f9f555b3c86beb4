import Conduit

/// Holds tokens across threads, tasks and the `@Sendable` functions that traits run, until a test
/// lets them go.
final class Keeper: Sendable {
  private let slot = Locked<[AnyCancellable]>([])

  var count: Int { slot.withLock { $0.count } }

  func keep(_ cancellable: AnyCancellable) {
    slot.withLock { $0.append(cancellable) }
  }

  /// Releases the tokens outside the lock, since a token's release cancels its pipeline.
  func releaseAll() {
    let released = slot.withLock { slot in
      defer { slot = [] }
      return slot
    }
    _ = released
  }
}

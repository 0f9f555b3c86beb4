import Synchronization

/// Carries a `SingleValueSubscription.Emit` out of the lock.
@usableFromInline
struct Emitter {
  @usableFromInline
  let emit: SingleValueSubscription.Emit

  @inlinable
  init(emit: @escaping SingleValueSubscription.Emit) {
    self.emit = emit
  }
}

import Synchronization

/// Carries a value through `Mutex.withLock`; see `Locked`.
@usableFromInline
package struct UncheckedSendable<Value>: @unchecked Sendable {
  @usableFromInline
  package var value: Value

  @inlinable
  package init(value: Value) {
    self.value = value
  }
}

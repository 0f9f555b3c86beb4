import Conduit

/// Carries non-Sendable test state through `Mutex.withLock`.
struct HandDrivenBox<Value>: @unchecked Sendable {
  var value: Value
  init(_ value: Value) { self.value = value }
}

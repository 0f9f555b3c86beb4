import Conduit

/// A reference to a value that the closures of a test change and the test reads.
final class ParityBox<Value>: @unchecked Sendable {
  var value: Value
  init(_ value: Value) { self.value = value }
}

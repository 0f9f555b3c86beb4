import Conduit

/// Tuples are not Equatable: tests compare their descriptions.
func described<Value>(_ values: [Value]) -> [String] {
  values.map { "\($0)" }
}

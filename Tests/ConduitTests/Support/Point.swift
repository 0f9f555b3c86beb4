import Conduit

/// A value with three properties, for the key-path maps' tests.
struct Point: Equatable {
  var x: Int
  var y: Int
  var z: Int
}

import Conduit

/// An object a test's closures capture and call, to count the calls and to see when the closures
/// are let go of. For an object that is only captured, see `CapturedProbe`.
final class Captured {
  var touches = 0
  func touch() { touches += 1 }
}

import Conduit

/// An object whose property an `Assign` subscriber writes to.
final class Target {
  var value = 0
}

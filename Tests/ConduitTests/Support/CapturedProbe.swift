import Conduit

/// An object a test's closure captures, to see when the closure is let go of.
final class CapturedProbe {}

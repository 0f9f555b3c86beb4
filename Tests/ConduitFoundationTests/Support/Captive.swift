/// Captured by an action, to see when a scheduler lets go of it.
final class Captive: Sendable {}

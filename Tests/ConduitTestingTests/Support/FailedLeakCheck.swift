import ConduitTesting
import Testing

/// The failure of a leak check that must fail, or `nil` (and an issue) if it passes.
///
/// The check's body is a closure written outside the `#expect` macro: the debug information
/// places the code of a closure written inside a macro in the macro's expansion rather than in
/// the test's file, and a report could not name the test's own line.
func failedLeakCheck(
  _ body: (LeakTracker) -> Void, sourceLocation: SourceLocation = #_sourceLocation
) -> LeakCheckFailure? {
  #expect(throws: LeakCheckFailure.self, sourceLocation: sourceLocation) {
    try withLeakCheck(timeout: .milliseconds(20)) { tracker in body(tracker) }
  }
}

/// The failure of a growth check that must fail, or `nil` (and an issue) if it passes; see
/// ``failedLeakCheck(_:sourceLocation:)``.
func failedGrowthCheck(
  iterations: Int, _ body: (LeakTracker) -> Void, sourceLocation: SourceLocation = #_sourceLocation
) -> LeakCheckFailure? {
  #expect(throws: LeakCheckFailure.self, sourceLocation: sourceLocation) {
    try withGrowthCheck(iterations: iterations) { tracker in body(tracker) }
  }
}

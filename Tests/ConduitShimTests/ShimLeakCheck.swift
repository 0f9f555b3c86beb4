import Testing

// The suite runs leak-checked where Conduit backs the shim (`.leakChecked` comes from
// ConduitTesting). Apple's Combine has no census to check, so there the same name is a trait
// that changes nothing, and the suite compiles unchanged against either.
#if canImport(Combine)
  extension Trait where Self == ConditionTrait {
    static func leakChecked(timeout: Duration) -> Self { .enabled(if: true) }
  }
#endif

import Testing

// The suite runs leak-checked where Conduit backs the shim; Apple's Combine has no census to
// check, so there it runs unchecked.
#if canImport(Combine)
  extension Trait where Self == ConditionTrait {
    static var shimLeakCheck: Self { .enabled(if: true) }
  }
#else
  import ConduitTesting

  extension Trait where Self == LeakCheckedTrait {
    static var shimLeakCheck: Self { .leakChecked(timeout: .seconds(5)) }
  }
#endif

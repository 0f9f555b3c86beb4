#if canImport(Testing)
  import Testing

  /// A Swift Testing trait that runs each test inside ``withLeakCheck(timeout:_:)-(_,(LeakTracker)->R)``.
  ///
  /// A test fails, through `Issue.record`, if any framework object it created is still alive
  /// when it returns. On a suite, it applies to every test in the suite.
  ///
  /// This is an extension to Combine.
  ///
  /// ```swift
  /// @Suite(.leakChecked)
  /// struct ViewModelTests {
  ///     @Test func loads() { ... }
  /// }
  /// ```
  public struct LeakCheckedTrait: TestTrait, SuiteTrait, TestScoping {
    /// How long a test's objects may take to free themselves after it returns.
    public var timeout: Duration

    /// Applies to every test of a suite.
    public var isRecursive: Bool { true }

    /// Runs one test case inside a leak check and records a failed check as an issue; suites
    /// pass through unchanged.
    public func provideScope(
      for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
      guard testCase != nil else {
        try await function()
        return
      }
      do {
        try await withLeakCheck(timeout: timeout) { _ in try await function() }
      } catch let failure as LeakCheckFailure {
        Issue.record(Comment(rawValue: failure.description), sourceLocation: test.sourceLocation)
      }
    }
  }

  extension Trait where Self == LeakCheckedTrait {
    /// Runs every test leak-checked: a test fails if a framework object it created outlives it.
    ///
    /// ```swift
    /// @Test(.leakChecked) func sinkFreesItself() { ... }
    /// ```
    public static var leakChecked: Self { LeakCheckedTrait(timeout: .seconds(1)) }

    /// Runs every test leak-checked, giving asynchronous teardown up to `timeout`.
    ///
    /// ```swift
    /// @Suite(.leakChecked(timeout: .seconds(3))) struct SlowTeardownTests { ... }
    /// ```
    public static func leakChecked(timeout: Duration) -> Self { LeakCheckedTrait(timeout: timeout) }
  }
#endif

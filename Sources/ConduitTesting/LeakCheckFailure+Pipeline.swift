extension LeakCheckFailure {
  /// One leaked pipeline: the framework objects that a single `sink`, `assign`, `subscribe` or
  /// `values` call built and that are still alive, named as the operators they implement, with
  /// the place of that call.
  ///
  /// This is an extension to Combine.
  ///
  /// ```swift
  /// print(failure.pipelines.first?.description ?? "")
  /// // Sink<Int, Never> ← Map ← PassthroughSubject, subscribed at ModelTests.swift:42
  /// ```
  public struct Pipeline: Hashable, Sendable, CustomStringConvertible {
    /// The subscriber, then the operators up to the publisher, downstream first:
    /// `["Sink<Int, Never>", "Map", "PassthroughSubject"]`.
    public let operators: [String]
    /// The pipeline's objects still alive, in the order they were created.
    public let survivors: [Survivor]
    /// Where the pipeline was subscribed; `nil` when no frame of the call has debug information.
    public let origin: Origin?

    /// The operators joined by arrows, then where the pipeline was subscribed:
    /// `Sink<Int, Never> ← Map ← PassthroughSubject, subscribed at ModelTests.swift:42`.
    public var description: String {
      let chain = operators.joined(separator: " ← ")
      guard let origin else { return "\(chain), subscribed at an unknown place (no debug information)" }
      return "\(chain), subscribed at \(origin)"
    }
  }
}

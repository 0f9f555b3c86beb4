extension LeakCheckFailure {
  /// One leaked pipeline: the framework objects built for one subscriber (by `sink`, `assign`,
  /// `subscribe` or `values`, and later on its behalf) that are still alive, named as the
  /// operators they implement, with the place in the user's code that built the subscriber.
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
    /// Where the pipeline's subscriber was built (the call of `sink`, `assign`, `subscribe` or
    /// `values`, or of the subscriber's initializer); `nil` when no frame of that call has debug
    /// information.
    public let origin: Origin?

    /// The operators joined by arrows, then where the pipeline was subscribed:
    /// `Sink<Int, Never> ← Map ← PassthroughSubject, subscribed at ModelTests.swift:42`. A
    /// pipeline of one object, such as a sink never subscribed, was "built at" its origin.
    public var description: String {
      let chain = operators.joined(separator: " ← ")
      let verb = operators.count == 1 ? "built" : "subscribed"
      guard let origin else {
        return
          "\(chain), \(verb) at an unknown place (no debug information, or built after the check's first \(PipelineOrigins.limit) pipelines)"
      }
      return "\(chain), \(verb) at \(origin)"
    }
  }
}

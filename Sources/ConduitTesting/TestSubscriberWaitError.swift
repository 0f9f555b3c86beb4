import Conduit

/// Why ``TestSubscriber/next(_:timeout:)`` or ``TestSubscriber/completion(timeout:)`` returned
/// without what it waited for; its `description` says what arrived instead.
///
/// This is an extension to Combine.
///
/// ```swift
/// do {
///   _ = try await Empty<Int, Never>().record().next(1)
/// } catch let error as TestSubscriberWaitError {
///   print(error)  // next(1): the stream finished after 0 of the 1 values asked for: []
/// }
/// ```
public struct TestSubscriberWaitError: Error, CustomStringConvertible {
  /// What ended the wait.
  public enum Reason: Sendable, Equatable {
    /// The stream finished or failed before the values asked for arrived.
    case completed
    /// The timeout passed first.
    case timedOut
  }

  /// What ended the wait.
  public let reason: Reason
  /// What the call waited for, and what arrived instead.
  public let description: String
}

extension Publisher {
  /// Subscribes a ``TestSubscriber`` with unlimited demand, and returns it: its ``TestSubscriber/values``,
  /// ``TestSubscriber/events`` and ``TestSubscriber/violations`` say what arrived, and
  /// ``TestSubscriber/next(_:timeout:)`` and ``TestSubscriber/completion(timeout:)`` wait for more.
  ///
  /// This is an extension to Combine.
  ///
  /// ```swift
  /// let recorder = [1, 2, 3].publisher.record()
  /// #expect(try await recorder.next(2) == [1, 2])
  /// #expect(try await recorder.completion() == .finished)
  /// ```
  @_disfavoredOverload
  public func record() -> TestSubscriber<Output, Failure> {
    let recorder = TestSubscriber<Output, Failure>(initialDemand: .unlimited)
    subscribe(recorder)
    return recorder
  }
}

/// How `values(bufferingPolicy:)` keeps the elements that arrive while the loop body runs,
/// with the policies of `AsyncStream.Continuation.BufferingPolicy`.
///
/// An extension to Combine, whose `values` keeps nothing: it asks for one element per `next()`,
/// so a hot publisher's elements that arrive in between are dropped.
///
/// ```swift
/// for await reading in sensor.readings.values(bufferingPolicy: .bufferingNewest(10)) {
///     await store(reading)
/// }
/// ```
public enum AsyncBufferingPolicy: Sendable, Hashable {
  /// Keeps every element until the loop takes it.
  case unbounded
  /// Keeps at most this many of the newest elements: when the buffer is full, the oldest element
  /// kept is dropped to make room. With `0`, an element is kept only when the loop waits for it.
  case bufferingNewest(Int)
  /// Keeps at most this many of the oldest elements: when the buffer is full, the element that
  /// arrives is dropped. With `0`, an element is kept only when the loop waits for it.
  case bufferingOldest(Int)

  @inlinable
  func limit<Output, Failure>(
    for _: AsyncIterationStateMachine<Output, Failure>.Type
  ) -> AsyncIterationStateMachine<Output, Failure>.Limit {
    switch self {
    case .unbounded:
      return .unbounded
    case .bufferingNewest(let size):
      precondition(size >= 0, "values(bufferingPolicy: .bufferingNewest(\(size))): the size must be 0 or more")
      return .newest(size)
    case .bufferingOldest(let size):
      precondition(size >= 0, "values(bufferingPolicy: .bufferingOldest(\(size))): the size must be 0 or more")
      return .oldest(size)
    }
  }
}

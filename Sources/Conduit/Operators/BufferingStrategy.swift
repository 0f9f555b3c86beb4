extension Publishers {
  /// A strategy that handles exhaustion of a buffer's capacity.
  ///
  /// ```swift
  /// let buffered = subject.buffer(size: 3, prefetch: .byRequest, whenFull: .customError { .overflow })
  /// ```
  public enum BufferingStrategy<Failure: Error> {
    /// When the buffer is full, discard the newly received element.
    case dropNewest

    /// When the buffer is full, discard the oldest element in the buffer.
    case dropOldest

    /// When the buffer is full, execute the closure to provide a custom error: the buffer cancels
    /// its upstream and fails with that error.
    case customError(() -> Failure)
  }
}

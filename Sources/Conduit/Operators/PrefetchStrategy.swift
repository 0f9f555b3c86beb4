extension Publishers {
  /// A strategy for filling a buffer.
  ///
  /// ```swift
  /// let buffered = subject.buffer(size: 10, prefetch: .keepFull, whenFull: .dropOldest)
  /// ```
  public enum PrefetchStrategy: Equatable, Hashable, Sendable {
    /// A strategy to fill the buffer at subscription time, and keep it full thereafter.
    ///
    /// The buffer asks the upstream for as many elements as it can hold when it is subscribed,
    /// and for one more each time it hands an element to the downstream.
    case keepFull

    /// A strategy that avoids prefetching and instead performs requests on demand.
    ///
    /// As in Combine, the buffer asks the upstream for unlimited elements and holds what the
    /// downstream has not asked for yet, up to its size.
    case byRequest
  }
}

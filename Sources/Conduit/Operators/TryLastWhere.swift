extension Publishers {
  /// A publisher that waits until after the stream finishes and then publishes the last
  /// element of the stream that satisfies an error-throwing predicate closure.
  ///
  /// If no element satisfies the predicate, it just finishes, once the subscriber has asked for
  /// something. If the predicate throws, the publisher cancels upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = [1, 4, 6, 7].publisher
  ///     .tryLast { value in
  ///         guard value >= 0 else { throw Negative() }
  ///         return value.isMultiple(of: 2)
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 6, finished
  /// ```
  public struct TryLastWhere<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The error-throwing closure that determines whether to publish an element.
    public let predicate: (Upstream.Output) throws -> Bool

    /// Creates a publisher that publishes the last element of the stream that satisfies an
    /// error-throwing predicate closure, once the stream finishes.
    public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
      self.upstream = upstream
      self.predicate = predicate
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
      let predicate = self.predicate
      upstream.subscribe(
        Reduction(
          downstream: subscriber, description: "TryLastWhere", initial: Output?.none,
          step: { (last: inout Output?, value: Output) throws(any Error) -> Bool in
            if try predicate(value) { last = value }
            return false
          },
          result: { $0 },
          convertFailure: { $0 }))
    }
  }
}

extension Publisher {
  /// Publishes the last element of a stream that satisfies an error-throwing predicate
  /// closure, after the stream finishes.
  ///
  /// If the predicate throws, the publisher cancels upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = ["3", "8", "x"].publisher
  ///     .tryLast { text in
  ///         guard let number = Int(text) else { throw NotANumber() }
  ///         return number > 5
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // failure(NotANumber())
  /// ```
  ///
  /// - Parameter predicate: A closure that takes an element as its parameter and returns a
  ///   Boolean value that indicates whether to publish the element, or throws.
  public func tryLast(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryLastWhere<Self> {
    Publishers.TryLastWhere(upstream: self, predicate: predicate)
  }
}

extension Publishers {
  /// A publisher that only publishes the first element of a stream to satisfy a throwing
  /// predicate closure.
  ///
  /// On the first satisfying element it cancels upstream and publishes it; if upstream
  /// finishes without one, it just finishes; both once the subscriber has asked for something.
  /// If the predicate throws, the publisher cancels upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = [1, 4, 6].publisher
  ///     .tryFirst { value in
  ///         guard value >= 0 else { throw Negative() }
  ///         return value.isMultiple(of: 2)
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 4, finished
  /// ```
  public struct TryFirstWhere<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The error-throwing closure that determines whether to publish an element.
    public let predicate: (Upstream.Output) throws -> Bool

    /// Creates a publisher that only publishes the first element of a stream to satisfy a
    /// throwing predicate closure.
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
          downstream: subscriber, description: "TryFirstWhere", initial: Output?.none,
          step: { (found: inout Output?, value: Output) throws(any Error) -> Bool in
            guard try predicate(value) else { return false }
            found = value
            return true
          },
          result: { $0 },
          convertFailure: { $0 }))
    }
  }
}

extension Publisher {
  /// Publishes the first element of a stream to satisfy a throwing predicate closure, then
  /// finishes normally.
  ///
  /// If the predicate throws, the publisher cancels upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = ["3", "x", "8"].publisher
  ///     .tryFirst { text in
  ///         guard let number = Int(text) else { throw NotANumber() }
  ///         return number > 5
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // failure(NotANumber())
  /// ```
  ///
  /// - Parameter predicate: A closure that takes an element as a parameter and returns a
  ///   Boolean value that indicates whether to publish the element, or throws.
  public func tryFirst(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryFirstWhere<Self> {
    Publishers.TryFirstWhere(upstream: self, predicate: predicate)
  }
}

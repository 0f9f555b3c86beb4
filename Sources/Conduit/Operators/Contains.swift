extension Publishers {
  /// A publisher that emits a Boolean value when it receives a specific element from its
  /// upstream publisher.
  ///
  /// On the first matching element it cancels upstream and publishes `true` (as soon as the
  /// subscriber has asked for it); if upstream finishes without one, it publishes `false`.
  ///
  /// ```swift
  /// let cancellable = [1, 5, 7].publisher
  ///     .contains(5)
  ///     .sink { print($0) }   // true
  /// ```
  public struct Contains<Upstream: Publisher>: Publisher where Upstream.Output: Equatable {
    /// The kind of values published by this publisher.
    public typealias Output = Bool
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The element to scan for in the upstream publisher.
    public let output: Upstream.Output

    /// Creates a publisher that emits a Boolean value when it receives a specific element from
    /// its upstream publisher.
    public init(upstream: Upstream, output: Upstream.Output) {
      self.upstream = upstream
      self.output = output
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Bool, S.Failure == Failure {
      let output = self.output
      upstream.subscribe(
        Reduction(
          downstream: subscriber, description: "Contains", initial: false,
          step: { (found: inout Bool, value: Upstream.Output) throws(Failure) -> Bool in
            found = value == output
            return found
          },
          result: { $0 },
          convertFailure: { $0 }))
    }
  }
}

extension Publishers.Contains: Equatable where Upstream: Equatable {}

extension Publisher where Output: Equatable {
  /// Publishes a Boolean value upon receiving an element equal to the argument.
  ///
  /// On the first match it cancels upstream and publishes `true`; if upstream finishes without
  /// a match, it publishes `false`.
  ///
  /// ```swift
  /// let cancellable = [5, 10, 15].publisher
  ///     .contains(10)
  ///     .sink { print($0) }   // true
  /// ```
  ///
  /// - Parameter output: An element to match against.
  public func contains(_ output: Output) -> Publishers.Contains<Self> {
    Publishers.Contains(upstream: self, output: output)
  }
}

extension Publishers {
  /// A publisher that ignores all upstream elements, but passes along the upstream publisher's
  /// completion state (finished or failed).
  ///
  /// It requests unlimited values from upstream as soon as it is subscribed, and passes the
  /// completion on at once: no demand is needed, since no value is ever sent.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher
  ///     .ignoreOutput()
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { _ in })   // finished
  /// ```
  public struct IgnoreOutput<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Never
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// Creates a publisher that ignores all upstream elements, but passes along the upstream
    /// publisher's completion state.
    @inlinable
    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Never, S.Failure == Failure {
      upstream.subscribe(
        Reduction(
          downstream: subscriber, description: "IgnoreOutput", initial: (),
          step: { (_: inout Void, _: Upstream.Output) throws(Failure) -> Bool in false },
          result: { _ in nil },
          convertFailure: { $0 }))
    }
  }
}

extension Publishers.IgnoreOutput: Equatable where Upstream: Equatable {}

extension Publisher {
  /// Ignores all upstream elements, but passes along the upstream publisher's completion
  /// state (finished or failed).
  ///
  /// ```swift
  /// let cancellable = upload.publisher
  ///     .ignoreOutput()
  ///     .sink(receiveCompletion: { print("done: \($0)") }, receiveValue: { _ in })
  /// ```
  @inlinable
  public func ignoreOutput() -> Publishers.IgnoreOutput<Self> {
    Publishers.IgnoreOutput(upstream: self)
  }
}

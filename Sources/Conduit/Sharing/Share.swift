extension Publishers {
  /// A publisher that shares the output of an upstream publisher with multiple subscribers.
  ///
  /// All simultaneous subscribers share one upstream subscription, made when the first one
  /// attaches. There is no replay: a late subscriber misses what was sent before it attached,
  /// and a subscriber arriving after the upstream completed receives just the completion, as in
  /// Combine. `Share` is a class, and two shares are equal only if they are the same instance.
  ///
  /// ```swift
  /// let shared = expensiveRequest.share()
  /// let a = shared.sink(receiveCompletion: { _ in }, receiveValue: { print("a", $0) })
  /// let b = shared.sink(receiveCompletion: { _ in }, receiveValue: { print("b", $0) })
  /// ```
  public final class Share<Upstream: Publisher>: Publisher, Equatable {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public final let upstream: Upstream

    @usableFromInline
    let inner: Autoconnect<Multicast<Upstream, PassthroughSubject<Output, Failure>>>

    /// Creates a publisher that shares the output of the upstream publisher.
    @inlinable
    public init(upstream: Upstream) {
      self.upstream = upstream
      inner = upstream.multicast(subject: PassthroughSubject()).autoconnect()
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      inner.receive(subscriber: subscriber)
    }

    /// Returns whether the two values are equal.
    public static func == (lhs: Share, rhs: Share) -> Bool {
      lhs === rhs
    }
  }
}

// Sendable only when the upstream and its values are: subscribers on any thread share one upstream
// subscription, and receive each value on the thread the upstream sends it on.
extension Publishers.Share: Sendable where Upstream: Sendable, Upstream.Output: Sendable {}

extension Publisher {
  /// Shares the output of an upstream publisher with multiple subscribers.
  ///
  /// ```swift
  /// let shared = URLSession.shared.dataTaskPublisher(for: url).share()
  /// ```
  @inlinable
  public func share() -> Publishers.Share<Self> {
    Publishers.Share(upstream: self)
  }
}

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
  public final class Share<Upstream: Publisher>: Publisher, Equatable, @unchecked Sendable {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public final let upstream: Upstream

    private let inner: Autoconnect<Multicast<Upstream, PassthroughSubject<Output, Failure>>>

    /// Creates a publisher that shares the output of the upstream publisher.
    public init(upstream: Upstream) {
      self.upstream = upstream
      inner = upstream.multicast(subject: PassthroughSubject()).autoconnect()
    }

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      inner.receive(subscriber: subscriber)
    }

    public static func == (lhs: Share, rhs: Share) -> Bool {
      lhs === rhs
    }
  }
}

extension Publisher {
  /// Shares the output of an upstream publisher with multiple subscribers.
  ///
  /// ```swift
  /// let shared = URLSession.shared.dataTaskPublisher(for: url).share()
  /// ```
  public func share() -> Publishers.Share<Self> {
    Publishers.Share(upstream: self)
  }
}

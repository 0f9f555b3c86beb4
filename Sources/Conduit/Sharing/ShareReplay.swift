extension Publishers {
  /// A publisher that shares one upstream subscription with multiple subscribers and replays the
  /// last values to each new one.
  ///
  /// This is an extension to Combine, where `share()` has no replay.
  ///
  /// A subscriber that attaches late first receives, as its demand allows, up to `bufferSize` of
  /// the most recent values, then the live ones; after the upstream has completed, a new
  /// subscriber receives the replay and then the completion. The upstream subscription is made
  /// when the first subscriber attaches and cancelled when the last one leaves; the replay buffer
  /// is kept, and the next subscriber connects again. A subscriber that has no demand keeps at
  /// most `bufferSize` undelivered values, the most recent ones.
  ///
  /// ```swift
  /// let settings = loadSettings().share(replay: 1)
  /// let a = settings.sink { print("a", $0) }
  /// let b = settings.sink { print("b", $0) }   // gets the latest settings at once
  /// ```
  public final class ShareReplay<Upstream: Publisher>: Publisher, Equatable {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// How many of the most recent values a new subscriber receives.
    public let bufferSize: Int

    @usableFromInline
    let inner: Autoconnect<Multicast<Upstream, ReplaySubject<Output, Failure>>>

    /// Creates a publisher that shares and replays the output of the upstream publisher.
    ///
    /// - Precondition: `bufferSize` is positive.
    @inlinable
    public init(upstream: Upstream, bufferSize: Int) {
      precondition(
        bufferSize > 0,
        "share(replay: \(bufferSize)): the replay count must be positive; use share() for no replay")
      self.upstream = upstream
      self.bufferSize = bufferSize
      inner = upstream.multicast(subject: ReplaySubject(bufferSize: bufferSize)).autoconnect()
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      inner.receive(subscriber: subscriber)
    }

    /// Returns whether the two values are equal.
    public static func == (lhs: ShareReplay, rhs: ShareReplay) -> Bool {
      lhs === rhs
    }
  }
}

// Sendable only when the upstream and its values are: the replay keeps the last values, and a
// subscriber on any thread receives them.
extension Publishers.ShareReplay: Sendable where Upstream: Sendable, Upstream.Output: Sendable {}

extension Publisher {
  /// Shares the output of this publisher with multiple subscribers, replaying the last
  /// `count` values to each new subscriber.
  ///
  /// This is an extension to Combine. It gives way to a `share(replay:)` that your module or a
  /// library you import declares (CombineExt has one): where both are visible, theirs is called,
  /// so code written against Combine and such a library compiles unchanged.
  ///
  /// ```swift
  /// let current = userUpdates.share(replay: 1)
  /// ```
  @inlinable @_disfavoredOverload
  public func share(replay count: Int) -> Publishers.ShareReplay<Self> {
    Publishers.ShareReplay(upstream: self, bufferSize: count)
  }
}

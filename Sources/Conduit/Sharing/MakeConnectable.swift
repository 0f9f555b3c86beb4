extension Publishers {
  /// A publisher that provides explicit connectivity to another publisher.
  ///
  /// Subscribers attach without starting the upstream; ``connect()`` starts it once for all.
  ///
  /// ```swift
  /// let connectable = [1, 2].publisher.makeConnectable()
  /// let a = connectable.sink { print("a", $0) }
  /// let b = connectable.sink { print("b", $0) }
  /// let connection = connectable.connect()   // a 1, b 1, a 2, b 2
  /// ```
  public struct MakeConnectable<Upstream: Publisher>: ConnectablePublisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    private let inner: Multicast<Upstream, PassthroughSubject<Output, Failure>>

    /// Creates a connectable publisher, attached to the provide upstream publisher.
    public init(upstream: Upstream) {
      inner = upstream.multicast(subject: PassthroughSubject())
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      inner.receive(subscriber: subscriber)
    }

    /// Connects to the upstream publisher; cancel the result to disconnect.
    public func connect() -> any Cancellable {
      inner.connect()
    }
  }
}

extension Publisher where Failure == Never {
  /// Creates a connectable wrapper around the publisher.
  ///
  /// ```swift
  /// let connectable = Just(1).makeConnectable()
  /// ```
  public func makeConnectable() -> Publishers.MakeConnectable<Self> {
    Publishers.MakeConnectable(upstream: self)
  }
}

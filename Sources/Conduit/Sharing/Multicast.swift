import Synchronization

extension Publishers {
  /// A publisher that uses a subject to deliver elements to multiple subscribers.
  ///
  /// The subject is created once, lazily, on the first subscription or connection. Subscribers
  /// attach to the subject; values flow from upstream only after ``connect()``.
  ///
  /// ```swift
  /// let multicast = expensiveRequest.multicast { PassthroughSubject<Data, Error>() }
  /// let a = multicast.sink(receiveCompletion: { _ in }, receiveValue: { print("a", $0) })
  /// let b = multicast.sink(receiveCompletion: { _ in }, receiveValue: { print("b", $0) })
  /// let connection = multicast.connect()   // one upstream subscription, two subscribers
  /// ```
  public final class Multicast<Upstream: Publisher, SubjectType: Subject>: ConnectablePublisher,
    @unchecked Sendable
  where Upstream.Output == SubjectType.Output, Upstream.Failure == SubjectType.Failure {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher that this publisher receives elements from.
    public let upstream: Upstream

    /// A closure to create a new Subject each time a subscriber attaches to the multicast
    /// publisher (Combine calls it once, lazily; so does Conduit).
    public let createSubject: () -> SubjectType

    // Guarded by its own lock. The lock is held while `createSubject` runs, the one exception to
    // "never call out while holding a lock": it is what makes the subject exist exactly once.
    @usableFromInline
    let lazySubject = Locked<SubjectType?>(nil)

    /// Creates a multicast publisher that applies a closure to create a subject that delivers
    /// elements to subscribers.
    @inlinable
    public init(upstream: Upstream, createSubject: @escaping () -> SubjectType) {
      self.upstream = upstream
      self.createSubject = createSubject
    }

    @usableFromInline
    var subject: SubjectType {
      lazySubject.withLock { stored in
        if let subject = stored { return subject }
        let subject = createSubject()
        stored = subject
        return subject
      }
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      subject.receive(subscriber: subscriber)
    }

    /// Connects the subject to the upstream publisher; cancel the result to disconnect.
    @inlinable
    public func connect() -> any Cancellable {
      upstream.subscribe(subject)
    }
  }
}

extension Publisher {
  /// Applies a closure to create a subject that delivers elements to subscribers.
  ///
  /// ```swift
  /// let multicast = publisher.multicast { PassthroughSubject<Int, Never>() }
  /// ```
  @inlinable
  public func multicast<S: Subject>(_ createSubject: @escaping () -> S) -> Publishers.Multicast<Self, S>
  where Failure == S.Failure, Output == S.Output {
    Publishers.Multicast(upstream: self, createSubject: createSubject)
  }

  /// Provides a subject to deliver elements to multiple subscribers.
  ///
  /// With a `CurrentValueSubject`, late subscribers receive the latest value.
  ///
  /// ```swift
  /// let latest = publisher.multicast(subject: CurrentValueSubject<Int, Never>(0))
  /// ```
  @inlinable
  public func multicast<S: Subject>(subject: S) -> Publishers.Multicast<Self, S>
  where Failure == S.Failure, Output == S.Output {
    Publishers.Multicast(upstream: self) { subject }
  }
}

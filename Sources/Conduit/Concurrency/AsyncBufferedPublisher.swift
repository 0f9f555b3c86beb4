/// A publisher's elements as an asynchronous sequence that subscribes when it is created and
/// keeps what arrives before and between the loop's requests, as its buffering policy says: what
/// `values(bufferingPolicy:)` returns. An extension to Combine.
///
/// Because the subscription starts when `values(bufferingPolicy:)` is called, an actor can make
/// the sequence in a method and iterate it in a task it starts there: nothing sent after the
/// method returns is lost, each sender's elements keep their order, and the loop body runs on the
/// actor.
///
/// ```swift
/// actor Tally {
///     var count = 0
///     func start(_ events: PassthroughSubject<Int, Never>) {
///         let values = events.values(bufferingPolicy: .unbounded)  // subscribed here
///         Task { for await value in values { count += value } }
///     }
/// }
/// ```
///
/// The first iterator takes over the subscription made at creation; an iterator made after it
/// subscribes anew. When the last copy of the sequence goes away before any iterator was made,
/// the subscription is cancelled. The iterator throws the publisher's failure, typed; with
/// `Failure == Never`, a loop needs no `try`. The sequence is `Sendable` when its elements are.
public struct AsyncBufferedPublisher<Output, Failure: Error>: AsyncSequence {
  /// The type of element produced by this asynchronous sequence.
  public typealias Element = Output

  @usableFromInline
  let pending: AsyncPendingSubscription<Output, Failure>

  @inlinable
  init<P: Publisher>(_ publisher: P, policy: AsyncBufferingPolicy) where P.Output == Output, P.Failure == Failure {
    let limit = policy.limit(for: AsyncIterationStateMachine<Output, Failure>.self)
    pending = AsyncPendingSubscription(
      AsyncIterationInner.subscribed(to: publisher, limit: limit),
      resubscribe: { AsyncIterationInner.subscribed(to: publisher, limit: limit) })
  }

  /// Creates an iterator: the first takes over the subscription made when the sequence was
  /// created, later ones subscribe anew.
  @inlinable
  public func makeAsyncIterator() -> Iterator {
    Iterator(pending.take())
  }

  /// The iterator that produces the publisher's elements.
  ///
  /// Several tasks may wait in `next()` at once (through a shared copy kept in an actor, say):
  /// each call takes one element of its own.
  public struct Iterator: AsyncIteratorProtocol {
    /// The type of element produced by this iterator.
    public typealias Element = Output

    @usableFromInline
    let lifetime: AsyncIterationLifetime<Output, Failure>

    @inlinable
    init(_ inner: AsyncIterationInner<Output, Failure>) {
      lifetime = AsyncIterationLifetime(inner)
    }

    /// Produces the next element in the sequence: `nil` once the publisher has finished, or once
    /// the task is cancelled; throws the publisher's failure after the elements kept before it.
    ///
    /// ```swift
    /// var iterator = subject.values(bufferingPolicy: .unbounded).makeAsyncIterator()
    /// let first = await iterator.next()
    /// ```
    @inlinable
    public mutating func next() async throws(Failure) -> Output? {
      try await lifetime.inner.next(isolation: nil)
    }

    /// Produces the next element in the sequence, running in `actor`'s isolation: what a
    /// `for await` loop calls, so a loop in an actor stays on it.
    ///
    /// ```swift
    /// @MainActor func show(_ values: AsyncBufferedPublisher<Int, Never>) async {
    ///     for await value in values { label = "\(value)" }
    /// }
    /// ```
    @inlinable
    public mutating func next(isolation actor: isolated (any Actor)?) async throws(Failure) -> Output? {
      try await lifetime.inner.next(isolation: actor)
    }
  }
}

extension AsyncBufferedPublisher: Sendable where Output: Sendable {}

/// The subscription an `AsyncBufferedPublisher` makes when it is created, kept for its first
/// iterator, and cancelled if the last copy of the sequence goes away before one is made.
@usableFromInline
final class AsyncPendingSubscription<Output, Failure: Error>: @unchecked Sendable {
  // Guarded by its own lock; `nil` once an iterator took it or it was cancelled.
  @usableFromInline
  let first: Locked<AsyncIterationInner<Output, Failure>?>
  // Immutable. It holds the publisher, which may be any publisher: the sequence subscribes to it
  // again from whichever task makes a later iterator, as a publisher may be subscribed to from
  // any thread.
  @usableFromInline
  let resubscribe: () -> AsyncIterationInner<Output, Failure>

  @inlinable
  init(
    _ first: AsyncIterationInner<Output, Failure>, resubscribe: @escaping () -> AsyncIterationInner<Output, Failure>
  ) {
    self.first = Locked(first)
    self.resubscribe = resubscribe
  }

  /// The subscription made at creation, the first time; a new one after that.
  @inlinable
  func take() -> AsyncIterationInner<Output, Failure> {
    first.withLock { $0.take() } ?? resubscribe()
  }

  deinit {
    first.withLock { $0.take() }?.cancel()
  }
}

extension AsyncIterationInner {
  /// A new iteration subscriber, subscribed to `publisher`.
  @inlinable
  static func subscribed<P: Publisher>(to publisher: P, limit: Machine.Limit) -> AsyncIterationInner
  where P.Output == Output, P.Failure == Failure {
    let inner = AsyncIterationInner(limit: limit)
    publisher.subscribe(inner)
    return inner
  }
}

extension Publisher {
  /// The elements from the publisher, as an asynchronous sequence that subscribes at once and
  /// keeps those that arrive before and between the loop's requests, as `policy` says. An
  /// extension to Combine.
  ///
  /// It asks the publisher for every element at once, so a loop over a subject loses nothing it
  /// was not told to drop, including what is sent between this call and the loop's start. Plain
  /// `values` subscribes when the loop starts and buffers nothing, as in Combine.
  ///
  /// ```swift
  /// let events = subject.values(bufferingPolicy: .unbounded)   // subscribed here
  /// Task { for await event in events { await handle(event) } }  // events sent meanwhile wait
  /// ```
  @inlinable @_disfavoredOverload
  public func values(bufferingPolicy policy: AsyncBufferingPolicy) -> AsyncBufferedPublisher<Output, Failure> {
    AsyncBufferedPublisher(self, policy: policy)
  }
}

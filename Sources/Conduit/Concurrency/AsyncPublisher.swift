/// A publisher that exposes its elements as an asynchronous sequence, for a publisher that
/// cannot fail.
///
/// Each iteration subscribes to the publisher once. As in Combine, each `next()` asks the
/// publisher for one element and nothing is buffered: the elements a hot publisher (a subject)
/// sends while the loop body runs are dropped. Use `values(bufferingPolicy:)` to keep them.
/// Leaving the loop (`break`, a thrown error, the iterator going away) or cancelling the task
/// that iterates cancels the subscription, and `next()` then returns `nil`.
///
/// ```swift
/// for await value in [1, 2, 3].publisher.map({ $0 * 10 }).values {
///     print(value)  // 10, 20, 30
/// }
/// ```
///
/// Beyond Combine: a value that the publisher delivers while `next()` asks for it (any
/// synchronous publisher) is returned without suspending the task; the iterator also implements
/// `next(isolation:)`, so a loop in an actor or on the main actor runs without leaving it.
/// `values(bufferingPolicy:)` returns an ``AsyncBufferedPublisher`` instead, which subscribes at
/// once and buffers.
public struct AsyncPublisher<P: Publisher>: AsyncSequence where P.Failure == Never {
  /// The type of element produced by this asynchronous sequence.
  public typealias Element = P.Output
  /// The sequence cannot fail.
  public typealias Failure = Never

  @usableFromInline
  let publisher: P

  /// Creates a publisher that exposes elements received from an upstream publisher as an
  /// asynchronous sequence.
  ///
  /// ```swift
  /// let numbers = AsyncPublisher([1, 2, 3].publisher)
  /// ```
  ///
  /// - Parameter publisher: An upstream publisher. The asynchronous publisher converts elements
  ///   received from this publisher into an asynchronous sequence.
  @inlinable
  public init(_ publisher: P) {
    self.publisher = publisher
  }

  /// Creates an iterator, subscribing to the publisher.
  @inlinable
  public func makeAsyncIterator() -> Iterator {
    Iterator(publisher, limit: .one)
  }

  /// The iterator that produces elements of the asynchronous publisher sequence.
  ///
  /// As in Combine, several tasks may wait in `next()` at once (through a shared copy kept in an
  /// actor, say): each call asks for one element of its own.
  public struct Iterator: AsyncIteratorProtocol {
    /// The type of element produced by this iterator.
    public typealias Element = P.Output
    /// The iterator cannot fail.
    public typealias Failure = Never

    @usableFromInline
    let lifetime: AsyncIterationLifetime<P.Output, Never>

    @inlinable
    init(_ publisher: P, limit: AsyncIterationStateMachine<P.Output, Never>.Limit) {
      let inner = AsyncIterationInner<P.Output, Never>(limit: limit)
      lifetime = AsyncIterationLifetime(inner)
      publisher.subscribe(inner)
    }

    /// Produces the next element in the sequence: `nil` once the publisher has finished, or once
    /// the task is cancelled.
    ///
    /// ```swift
    /// var iterator = subject.values.makeAsyncIterator()
    /// let first = await iterator.next()
    /// ```
    @inlinable
    public mutating func next() async -> P.Output? {
      await lifetime.inner.next(isolation: nil)
    }

    /// Produces the next element in the sequence, running in `actor`'s isolation: what a
    /// `for await` loop calls. Beyond Combine.
    ///
    /// ```swift
    /// @MainActor func show(_ subject: PassthroughSubject<Int, Never>) async {
    ///     for await value in subject.values { label = "\(value)" }
    /// }
    /// ```
    @inlinable
    public mutating func next(isolation actor: isolated (any Actor)?) async -> P.Output? {
      await lifetime.inner.next(isolation: actor)
    }
  }
}

extension AsyncPublisher: Sendable where P: Sendable {}

extension Publisher where Failure == Never {
  /// The elements from the publisher, as an asynchronous sequence.
  ///
  /// As in Combine, each `next()` asks for one element and nothing is buffered: a hot
  /// publisher's elements that arrive while the loop body runs are dropped. Use
  /// `values(bufferingPolicy:)` to keep them.
  ///
  /// ```swift
  /// for await value in [1, 2, 3].publisher.values {
  ///     print(value)
  /// }
  /// ```
  @inlinable
  public var values: AsyncPublisher<Self> {
    AsyncPublisher(self)
  }
}

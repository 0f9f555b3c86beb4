/// A publisher that exposes its elements as a throwing asynchronous sequence.
///
/// Each iteration subscribes to the publisher once. As in Combine, each `next()` asks the
/// publisher for one element and nothing is buffered: the elements a hot publisher sends while
/// the loop body runs are dropped (use `values(bufferingPolicy:)` to keep them). The publisher's
/// failure is thrown by `next()`; after it, and after the publisher finishes, `next()` returns
/// `nil`. Leaving the loop or cancelling the task that iterates cancels the subscription, and
/// `next()` then returns `nil`.
///
/// ```swift
/// do {
///     for try await user in api.users().values { print(user.name) }
/// } catch {
///     print("failed: \(error)")
/// }
/// ```
///
/// As in Combine, `next()` throws untyped (`any Error`), so that code written for Combine
/// compiles unchanged. Beyond Combine: a value that the publisher delivers while `next()` asks
/// for it is returned without suspending the task, and the iterator implements
/// `next(isolation:)`. `values(bufferingPolicy:)` returns an ``AsyncBufferedPublisher`` instead,
/// which subscribes at once, buffers, and throws the failure typed.
public struct AsyncThrowingPublisher<P: Publisher>: AsyncSequence {
  /// The type of element produced by this asynchronous sequence.
  public typealias Element = P.Output
  /// The error the sequence throws: the publisher's failure, untyped as in Combine.
  public typealias Failure = any Error

  @usableFromInline
  let publisher: P

  /// Creates a publisher that exposes elements received from an upstream publisher as a
  /// throwing asynchronous sequence.
  ///
  /// ```swift
  /// let lines = AsyncThrowingPublisher(api.lines())
  /// ```
  ///
  /// - Parameter publisher: An upstream publisher. The asynchronous publisher converts elements
  ///   received from this publisher into an asynchronous sequence.
  public init(_ publisher: P) {
    self.publisher = publisher
  }

  /// Creates an iterator, subscribing to the publisher.
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
    /// The error the iterator throws: the publisher's failure, untyped as in Combine.
    public typealias Failure = any Error

    @usableFromInline
    let lifetime: AsyncIterationLifetime<P.Output, P.Failure>

    @usableFromInline
    init(_ publisher: P, limit: AsyncIterationStateMachine<P.Output, P.Failure>.Limit) {
      let inner = AsyncIterationInner<P.Output, P.Failure>(limit: limit)
      lifetime = AsyncIterationLifetime(inner)
      publisher.subscribe(inner)
    }

    /// Produces the next element in the sequence: `nil` once the publisher has finished or the
    /// task is cancelled; throws the publisher's failure.
    ///
    /// ```swift
    /// var iterator = api.lines().values.makeAsyncIterator()
    /// let first = try await iterator.next()
    /// ```
    public mutating func next() async throws -> P.Output? {
      try await lifetime.inner.next(isolation: nil)
    }

    /// Produces the next element in the sequence, running in `actor`'s isolation: what a
    /// `for try await` loop calls. Beyond Combine.
    ///
    /// ```swift
    /// @MainActor func show(_ lines: AnyPublisher<String, any Error>) async throws {
    ///     for try await line in lines.values { label = line }
    /// }
    /// ```
    public mutating func next(isolation actor: isolated (any Actor)?) async throws -> P.Output? {
      try await lifetime.inner.next(isolation: actor)
    }
  }
}

extension AsyncThrowingPublisher: Sendable where P: Sendable {}

extension Publisher {
  /// The elements from the publisher, as a throwing asynchronous sequence.
  ///
  /// As in Combine, each `next()` asks for one element and nothing is buffered: a hot
  /// publisher's elements that arrive while the loop body runs are dropped. Use
  /// `values(bufferingPolicy:)` to keep them. The publisher's failure is thrown.
  ///
  /// ```swift
  /// for try await line in api.lines().values {
  ///     print(line)
  /// }
  /// ```
  public var values: AsyncThrowingPublisher<Self> {
    AsyncThrowingPublisher(self)
  }
}

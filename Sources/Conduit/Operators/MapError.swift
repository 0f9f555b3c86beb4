extension Publishers {
  /// A publisher that converts any failure from the upstream publisher into a new error.
  ///
  /// ```swift
  /// let cancellable = subject
  ///     .mapError { AppError.network($0) }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  public struct MapError<Upstream: Publisher, Failure: Error>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The closure that converts the upstream failure into a new error.
    public let transform: (Upstream.Failure) -> Failure

    /// Creates a publisher that converts any failure from the upstream publisher into a new
    /// error.
    @inlinable
    public init(upstream: Upstream, transform: @escaping (Upstream.Failure) -> Failure) {
      self.upstream = upstream
      self.transform = transform
    }

    /// Creates a publisher that converts any failure from the upstream publisher into a new
    /// error.
    @inlinable
    public init(upstream: Upstream, _ map: @escaping (Upstream.Failure) -> Failure) {
      self.upstream = upstream
      self.transform = map
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, transform: transform))
    }
  }
}

extension Publishers.MapError {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = MapErrorInner<Link<Upstream.Output, Upstream.Failure, Downstream>>
  where Downstream.Input == Upstream.Output
}

/// Forwards the upstream subscription and every value untouched and converts the failure; no
/// state, no lock, no allocation.
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`).
@usableFromInline
struct MapErrorInner<Types: OperatorLink>: Subscriber, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
where Types.Downstream.Input == Types.Input {
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Types.Failure
  @usableFromInline
  typealias Downstream = Types.Downstream

  @usableFromInline
  let downstream: Downstream
  @usableFromInline
  let transform: (Failure) -> Downstream.Failure
  @usableFromInline
  let combineIdentifier = CombineIdentifier()

  @inlinable
  init(downstream: Downstream, transform: @escaping (Failure) -> Downstream.Failure) {
    self.downstream = downstream
    self.transform = transform
  }

  @usableFromInline
  var description: String { "MapError" }
  @usableFromInline
  var playgroundDescription: Any { description }
  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: [:]) }

  @usableFromInline
  func receive(subscription: any Subscription) {
    downstream.receive(subscription: subscription)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    downstream.receive(input)
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    downstream.receive(completion: completion.mapFailure(transform))
  }
}

extension Publisher {
  /// Converts any failure from the upstream publisher into a new error.
  ///
  /// ```swift
  /// struct WrappedError: Error { let underlying: any Error }
  /// let cancellable = Fail<Int, URLError>(error: URLError(.badURL))
  ///     .mapError { WrappedError(underlying: $0) }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  @inlinable
  public func mapError<E: Error>(_ transform: @escaping (Failure) -> E) -> Publishers.MapError<Self, E> {
    Publishers.MapError(upstream: self, transform: transform)
  }
}

extension MapErrorInner: CensusTransparent {
  /// What is created on this subscriber's behalf joins the census scope of its downstream.
  @usableFromInline
  var censusWrapped: Any? { downstream }
}

extension Publishers {
  /// A publisher that republishes all non-`nil` results of calling an error-throwing closure
  /// with each received element.
  ///
  /// A thrown error cancels the upstream publisher and fails the stream with that error.
  ///
  /// ```swift
  /// let cancellable = ["1", "", "3"].publisher
  ///     .tryCompactMap { text -> Int? in
  ///         guard !text.isEmpty else { throw EmptyText() }
  ///         return Int(text)
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 1, failure
  /// ```
  public struct TryCompactMap<Upstream: Publisher, Output>: Publisher {
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// An error-throwing closure that receives values from the upstream publisher and returns
    /// optional values.
    public let transform: (Upstream.Output) throws -> Output?

    /// Creates a publisher that republishes all non-`nil` results of calling an error-throwing
    /// closure with each received element.
    @inlinable
    public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output?) {
      self.upstream = upstream
      self.transform = transform
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
      upstream.subscribe(Inner(downstream: subscriber, transform: transform))
    }
  }
}

extension Publishers.TryCompactMap {
  /// Fuses a second, error-throwing `compactMap` into this one: one `Publishers.TryCompactMap`
  /// applying both closures.
  ///
  /// ```swift
  /// let fused: Publishers.TryCompactMap<PassthroughSubject<String, Never>, Int> =
  ///     subject.tryCompactMap { try parse($0) }.compactMap { $0 > 0 ? $0 : nil }
  /// ```
  @inlinable
  public func compactMap<Result>(
    _ transform: @escaping (Output) throws -> Result?
  ) -> Publishers.TryCompactMap<Upstream, Result> {
    let first = self.transform
    return Publishers.TryCompactMap(upstream: upstream) { try first($0).flatMap(transform) }
  }
}

extension Publishers.TryCompactMap {
  /// Forwards the upstream subscription to downstream and keeps it only to cancel it when the
  /// closure throws; a dropped value is replaced by asking upstream for one more.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CensusScoped
  where Downstream.Input == Output, Downstream.Failure == any Error {
    @usableFromInline
    typealias Input = Upstream.Output
    @usableFromInline
    typealias Failure = Upstream.Failure

    // Touched only from upstream's calls, which never overlap (contract 3); `nil` once ended.
    @usableFromInline @exclusivity(unchecked)
    var downstream: Downstream?
    // Owned like `downstream`.
    @usableFromInline @exclusivity(unchecked)
    var upstream: (any Subscription)?
    @usableFromInline
    let transform: (Upstream.Output) throws -> Output?
    @usableFromInline
    let census: CensusToken

    @usableFromInline
    var censusScope: CensusScope? { census.scope }

    @inlinable
    init(downstream: Downstream, transform: @escaping (Upstream.Output) throws -> Output?) {
      census = CensusToken(Inner.self, inheritingFrom: downstream)
      self.downstream = downstream
      self.transform = transform
    }

    @usableFromInline
    var description: String { "TryCompactMap" }

    @inlinable
    func receive(subscription: any Subscription) {
      guard upstream == nil, let downstream else {
        subscription.cancel()
        return
      }
      upstream = subscription
      downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
      guard let downstream else { return .none }
      let output: Output?
      do {
        output = try transform(input)
      } catch {
        fail(error)
        return .none
      }
      guard let output else { return .max(1) }
      return downstream.receive(output)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
      guard let downstream else { return }
      self.downstream = nil
      upstream = nil
      downstream.receive(completion: completion.mapFailure { $0 as any Error })
    }

    @inlinable
    func fail(_ error: any Error) {
      let downstream = self.downstream
      let upstream = self.upstream
      self.downstream = nil
      self.upstream = nil
      upstream?.cancel()
      downstream?.receive(completion: .failure(error))
    }
  }
}

extension Publisher {
  /// Calls an error-throwing closure with each received element and publishes any returned
  /// optional that has a value.
  ///
  /// If the closure throws, the publisher cancels its upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = [6, 5, 0].publisher
  ///     .tryCompactMap { try romanNumeral(for: $0) }   // throws for 0
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  @inlinable
  public func tryCompactMap<T>(_ transform: @escaping (Output) throws -> T?) -> Publishers.TryCompactMap<Self, T> {
    Publishers.TryCompactMap(upstream: self, transform: transform)
  }
}

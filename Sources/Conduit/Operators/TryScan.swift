extension Publishers {
  /// A publisher that transforms elements from the upstream publisher by providing the current
  /// element to an error-throwing closure along with the last value returned by the closure.
  ///
  /// A thrown error cancels the upstream publisher and fails the stream with that error.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 0, 3].publisher
  ///     .tryScan(10) { total, divisor in
  ///         guard divisor != 0 else { throw DivisionByZero() }
  ///         return total / divisor
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 10, 5, failure
  /// ```
  public struct TryScan<Upstream: Publisher, Output>: Publisher {
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The previous result returned by the `nextPartialResult` closure.
    public let initialResult: Output

    /// An error-throwing closure that takes as its arguments the previous value returned by the
    /// closure and the next element emitted from the upstream publisher.
    public let nextPartialResult: (Output, Upstream.Output) throws -> Output

    /// Creates a publisher that accumulates the upstream elements with an error-throwing
    /// closure, publishing each intermediate result.
    @inlinable
    public init(
      upstream: Upstream, initialResult: Output,
      nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output
    ) {
      self.upstream = upstream
      self.initialResult = initialResult
      self.nextPartialResult = nextPartialResult
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
      upstream.subscribe(
        Inner(downstream: subscriber, initialResult: initialResult, nextPartialResult: nextPartialResult))
    }
  }
}

extension Publishers.TryScan {
  /// Forwards the upstream subscription to downstream, keeps the running result, and keeps the
  /// subscription only to cancel it when the closure throws.
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
    // Owned like `downstream`.
    @usableFromInline @exclusivity(unchecked)
    var result: Output
    @usableFromInline
    let nextPartialResult: (Output, Upstream.Output) throws -> Output
    @usableFromInline
    let census: CensusToken

    @usableFromInline
    var censusScope: CensusScope? { census.scope }

    @inlinable
    init(
      downstream: Downstream, initialResult: Output,
      nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output
    ) {
      census = CensusToken(Inner.self, inheritingFrom: downstream)
      self.downstream = downstream
      self.result = initialResult
      self.nextPartialResult = nextPartialResult
    }

    @usableFromInline
    var description: String { "TryScan" }

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
      do {
        result = try nextPartialResult(result, input)
      } catch {
        fail(error)
        return .none
      }
      return downstream.receive(result)
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
  /// Transforms elements from the upstream publisher by providing the current element to an
  /// error-throwing closure along with the last value returned by the closure.
  ///
  /// If the closure throws, the publisher cancels its upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher
  ///     .tryScan(0) { try checkedSum($0, $1) }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  @inlinable
  public func tryScan<T>(
    _ initialResult: T, _ nextPartialResult: @escaping (T, Output) throws -> T
  ) -> Publishers.TryScan<Self, T> {
    Publishers.TryScan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
  }
}

extension Publishers {
  /// A publisher that transforms elements from the upstream publisher by providing the current
  /// element to a closure along with the last value returned by the closure.
  ///
  /// ```swift
  /// let cancellable = (1...4).publisher.eraseToAnyPublisher()
  ///     .scan(0, +)
  ///     .sink { print($0) }   // 1, 3, 6, 10
  /// ```
  public struct Scan<Upstream: Publisher, Output>: Publisher {
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The previous result returned by the `nextPartialResult` closure.
    public let initialResult: Output

    /// A closure that takes as its arguments the previous value returned by the closure and the
    /// next element emitted from the upstream publisher.
    public let nextPartialResult: (Output, Upstream.Output) -> Output

    /// Creates a publisher that accumulates the upstream elements with a closure, publishing each
    /// intermediate result.
    @inlinable
    public init(
      upstream: Upstream, initialResult: Output, nextPartialResult: @escaping (Output, Upstream.Output) -> Output
    ) {
      self.upstream = upstream
      self.initialResult = initialResult
      self.nextPartialResult = nextPartialResult
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        Inner(downstream: subscriber, initialResult: initialResult, nextPartialResult: nextPartialResult))
    }
  }
}

extension Publishers.Scan {
  /// Forwards the upstream subscription untouched (one result per upstream value, so demand
  /// passes straight through) and keeps the running result.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CensusScoped
  where Downstream.Input == Output, Downstream.Failure == Upstream.Failure {
    @usableFromInline
    typealias Input = Upstream.Output
    @usableFromInline
    typealias Failure = Upstream.Failure

    @usableFromInline
    let downstream: Downstream
    // Touched only from upstream's calls, which never overlap (contract 3).
    @usableFromInline @exclusivity(unchecked)
    var result: Output
    @usableFromInline
    let nextPartialResult: (Output, Upstream.Output) -> Output
    @usableFromInline
    let census: CensusToken

    @usableFromInline
    var censusScope: CensusScope? { census.scope }

    @inlinable
    init(
      downstream: Downstream, initialResult: Output, nextPartialResult: @escaping (Output, Upstream.Output) -> Output
    ) {
      census = CensusToken(Inner.self, inheritingFrom: downstream)
      self.downstream = downstream
      self.result = initialResult
      self.nextPartialResult = nextPartialResult
    }

    @usableFromInline
    var description: String { "Scan" }

    @inlinable
    func receive(subscription: any Subscription) {
      downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
      result = nextPartialResult(result, input)
      return downstream.receive(result)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
      downstream.receive(completion: completion)
    }
  }
}

extension Publisher {
  /// Transforms elements from the upstream publisher by providing the current element to a
  /// closure along with the last value returned by the closure.
  ///
  /// ```swift
  /// let cancellable = (0...5).publisher.eraseToAnyPublisher()
  ///     .scan(0) { $0 + $1 }
  ///     .sink { print($0) }   // 0, 1, 3, 6, 10, 15
  /// ```
  @inlinable
  public func scan<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Output) -> T) -> Publishers.Scan<Self, T> {
    Publishers.Scan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
  }
}

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
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = ScanInner<Link<Upstream.Output, Upstream.Failure, Downstream>>
  where Downstream.Input == Output, Downstream.Failure == Upstream.Failure
}

/// Forwards the upstream subscription untouched (one result per upstream value, so demand
/// passes straight through) and keeps the running result.
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`).
@usableFromInline
final class ScanInner<Types: OperatorLink>: Subscriber, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible, CensusScoped
where Types.Downstream.Failure == Types.Failure {
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Types.Failure
  @usableFromInline
  typealias Downstream = Types.Downstream
  /// The running result, which is also what the subscriber publishes.
  @usableFromInline
  typealias Output = Downstream.Input

  @usableFromInline
  let downstream: Downstream
  // Fields with unchecked exclusivity skip the runtime check, which costs in "map, filter, removeDuplicates, handleEvents, scan, compactMap, 3 x each".
  // Touched only from upstream's calls, which never overlap (contract 3).
  @usableFromInline @exclusivity(unchecked)
  var result: Output
  @usableFromInline
  let nextPartialResult: (Output, Input) -> Output
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(downstream: Downstream, initialResult: Output, nextPartialResult: @escaping (Output, Input) -> Output) {
    census = CensusToken(ScanInner.self, inheritingFrom: downstream)
    self.downstream = downstream
    self.result = initialResult
    self.nextPartialResult = nextPartialResult
  }

  @usableFromInline
  var description: String { "Scan" }
  @usableFromInline
  var playgroundDescription: Any { description }
  /// A debugging aid, as in Combine: it reads the running result without synchronization, so it
  /// is meant for a stream that is not delivering at the time.
  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: ["downstream": downstream, "result": result]) }

  @usableFromInline
  func receive(subscription: any Subscription) {
    downstream.receive(subscription: subscription)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    result = nextPartialResult(result, input)
    return downstream.receive(result)
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    downstream.receive(completion: completion)
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

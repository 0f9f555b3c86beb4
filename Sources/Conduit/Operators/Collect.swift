extension Publishers {
  /// A publisher that buffers items.
  ///
  /// It requests unlimited values from upstream as soon as it is subscribed, and publishes one
  /// array of everything received once upstream has finished and the subscriber has asked for
  /// it. If upstream fails, the failure goes downstream and the buffer is dropped.
  ///
  /// ```swift
  /// let cancellable = (0...3).publisher
  ///     .collect()
  ///     .sink { print($0) }   // [0, 1, 2, 3]
  /// ```
  public struct Collect<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = [Upstream.Output]
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// Creates a publisher that buffers every element and publishes them as one array.
    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == [Upstream.Output], S.Failure == Failure {
      upstream.subscribe(
        Reduction(
          downstream: subscriber, description: "Collect", initial: [Upstream.Output](),
          step: { (buffer: inout [Upstream.Output], value: Upstream.Output) throws(Failure) -> Bool in
            buffer.append(value)
            return false
          },
          result: { $0 },
          convertFailure: { $0 }, reflection: .collection))
    }
  }
}

extension Publishers.Collect: Equatable where Upstream: Equatable {}

extension Publisher {
  /// Collects all received elements, and emits a single array of the collection when the
  /// upstream publisher finishes.
  ///
  /// If upstream fails, the failure goes downstream and the collected elements are dropped.
  /// The array grows without bound: prefer `collect(_:)` for unbounded streams.
  ///
  /// ```swift
  /// let cancellable = ["a", "b", "c"].publisher
  ///     .collect()
  ///     .sink { print($0) }   // ["a", "b", "c"]
  /// ```
  public func collect() -> Publishers.Collect<Self> {
    Publishers.Collect(upstream: self)
  }
}

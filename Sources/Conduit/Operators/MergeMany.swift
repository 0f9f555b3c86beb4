extension Publishers {
  /// A publisher created by applying the merge function to an arbitrary number of upstream
  /// publishers of one type.
  ///
  /// It behaves as ``Publishers/Merge``: elements are interleaved as they arrive, the merge
  /// finishes once every upstream has finished (at once when there are none) and fails with the
  /// first failure.
  ///
  /// ```swift
  /// let cancellable = Publishers.MergeMany([Just(1), Just(2), Just(3)])
  ///     .sink { print($0) }   // 1, 2, 3
  /// ```
  public struct MergeMany<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publishers this publisher merges.
    public let publishers: [Upstream]

    /// Creates a publisher that merges the given publishers.
    @inlinable
    public init(_ upstream: Upstream...) {
      publishers = upstream
    }

    /// Creates a publisher that merges the publishers of a sequence.
    @inlinable
    public init<S: Swift.Sequence>(_ upstream: S) where Upstream == S.Element {
      publishers = Array(upstream)
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let merge = MergeStrategy.subscribe(subscriber, upstreamCount: publishers.count)
      for publisher in publishers {
        merge.attachMerged(publisher)
      }
    }

    /// Returns a merge of these publishers and one more.
    ///
    /// ```swift
    /// let merged = Publishers.MergeMany(first, second).merge(with: third)
    /// ```
    @inlinable
    public func merge(with other: Upstream) -> Publishers.MergeMany<Upstream> {
      Publishers.MergeMany(publishers + [other])
    }
  }
}

extension Publishers.MergeMany: Equatable where Upstream: Equatable {}

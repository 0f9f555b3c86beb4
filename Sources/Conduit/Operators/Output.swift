extension Publishers {
  /// A publisher that publishes elements specified by a range in the sequence of published
  /// elements.
  ///
  /// Elements before the range are dropped (each one is asked for again from upstream, so the
  /// subscriber's demand is kept); elements in the range pass through. As in Combine, the
  /// publisher learns that the range is over from the next element: on it, it cancels upstream
  /// and finishes. If upstream completes first, the completion passes through.
  ///
  /// ```swift
  /// let cancellable = ["a", "b", "c", "d"].publisher
  ///     .output(in: 1...2)
  ///     .sink { print($0) }   // b, c
  /// ```
  public struct Output<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher that this publisher receives elements from.
    public let upstream: Upstream

    /// The range of elements to publish.
    public let range: CountableRange<Int>

    /// Creates a publisher that publishes elements specified by a range.
    ///
    /// - Precondition: The range's bounds are not negative.
    @inlinable
    public init(upstream: Upstream, range: CountableRange<Int>) {
      precondition(
        range.lowerBound >= 0,
        "Publishers.Output(range: \(range)): the range must not start below 0; element indices start at 0")
      self.upstream = upstream
      self.range = range
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, range: range))
    }
  }
}

extension Publishers.Output: Equatable where Upstream: Equatable {}

extension Publishers.Output {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = OutputInner<Downstream>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
}

/// Counts upstream's elements and passes on those in the range. Downstream's requests and
/// cancellation go straight to upstream (it is handed upstream's subscription), so the
/// counting needs no lock: it only ever runs in upstream's serialized calls.
///
/// Generic over its downstream alone, as an operator that passes on the values and errors it
/// receives can be: one level of nesting per use rather than two (see `OperatorLink`).
@usableFromInline
final class OutputInner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CensusScoped {
  @usableFromInline
  typealias Input = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure

  // All the stored state below is owned by upstream's serialized calls, so the runtime
  // exclusivity check is skipped. `downstream` is released when the output ends.
  @usableFromInline @exclusivity(unchecked)
  var downstream: Downstream?
  @usableFromInline @exclusivity(unchecked)
  var upstream: (any Subscription)?
  @usableFromInline @exclusivity(unchecked)
  var remainingUntilStart: Int
  @usableFromInline @exclusivity(unchecked)
  var remainingCount: Int
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var description: String { "Output" }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(downstream: Downstream, range: CountableRange<Int>) {
    census = CensusToken(OutputInner.self, inheritingFrom: downstream)
    self.downstream = downstream
    remainingUntilStart = range.lowerBound
    remainingCount = range.count
  }

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
  func receive(_ input: Input) -> Subscribers.Demand {
    guard let downstream else { return .none }
    if remainingUntilStart > 0 {
      remainingUntilStart -= 1
      return .max(1)
    }
    if remainingCount > 0 {
      remainingCount -= 1
      return downstream.receive(input)
    }
    let upstream = self.upstream
    release()
    upstream?.cancel()
    downstream.receive(completion: .finished)
    return .none
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>) {
    guard let downstream else { return }
    release()
    downstream.receive(completion: completion)
  }

  @inlinable
  func release() {
    downstream = nil
    upstream = nil
  }
}

extension Publisher {
  /// Publishes a specific element, indicated by its index in the sequence of published
  /// elements.
  ///
  /// If the publisher completes normally or with an error before publishing the specified
  /// element, then the publisher doesn't produce any elements.
  ///
  /// ```swift
  /// let cancellable = ["a", "b", "c"].publisher
  ///     .output(at: 1)
  ///     .sink { print($0) }   // b
  /// ```
  ///
  /// - Parameter index: The index that indicates the element to publish; not negative.
  @inlinable
  public func output(at index: Int) -> Publishers.Output<Self> {
    precondition(
      index >= 0 && index < Int.max,
      "output(at: \(index)): the index must be between 0 and Int.max - 1; element indices start at 0")
    return Publishers.Output(upstream: self, range: index..<(index + 1))
  }

  /// Publishes elements specified by their range in the sequence of published elements.
  ///
  /// After all elements are published, the publisher finishes normally. If the publisher
  /// completes normally or with an error before producing all the elements in the range, it
  /// doesn't publish the remaining elements.
  ///
  /// ```swift
  /// let cancellable = (10...20).publisher
  ///     .output(in: 3...5)
  ///     .sink { print($0) }   // 13, 14, 15
  /// ```
  ///
  /// - Parameter range: A range that indicates which elements to publish, by index from 0.
  @inlinable
  public func output<R: RangeExpression>(in range: R) -> Publishers.Output<Self> where R.Bound == Int {
    Publishers.Output(upstream: self, range: range.relative(to: 0..<Int.max))
  }
}

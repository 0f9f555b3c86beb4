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
      upstream.subscribe(Inner(downstream: subscriber, step: OutputStep(range: range)))
    }
  }
}

extension Publishers.Output: Equatable where Upstream: Equatable {}

extension Publishers.Output {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = PassingStepInner<OutputStep<Output, Failure>, Downstream>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
}

/// The step of `output(in:)`, as Combine's subscription does it: it counts upstream's elements
/// and passes on those in the range; at the first element after the range it cancels upstream
/// and finishes. Its state says where the stream stands against the range, and each element's
/// step says what to do with it. As in Combine, an element before upstream's subscription is
/// counted like any other (but the range's end does not end the stream until the subscription
/// has come), and a completion, request or cancel before it is ignored. Not nested in the
/// publisher, so that its type does not contain the upstream's (see `FallibleInner`).
@usableFromInline
struct OutputStep<Value, Failure: Error>: FallibleStep {
  @usableFromInline
  typealias Input = Value
  @usableFromInline
  typealias Emitted = Value
  @usableFromInline
  typealias UpstreamFailure = Failure

  /// Where the stream stands against the range.
  @usableFromInline
  enum Position: Equatable {
    /// Before the range: `untilStart` more elements (at least one) are dropped, then `count` are
    /// passed on.
    case before(untilStart: Int, count: Int)
    /// In the range: `remaining` more elements are passed on; the element after them ends the
    /// stream.
    case within(remaining: Int)
  }

  @usableFromInline
  var position: Position

  @inlinable
  init(range: CountableRange<Int>) {
    position =
      range.lowerBound > 0
      ? .before(untilStart: range.lowerBound, count: range.count) : .within(remaining: range.count)
  }

  @usableFromInline
  static var name: String { "Output" }

  @inlinable
  static var kind: CombineSubscriptionKind { .accumulating }

  @usableFromInline
  static func mirrorChildren(of step: Self?, _ inner: FallibleReflection) -> [Mirror.Child] { [] }

  @inlinable
  mutating func step(_ input: Value) throws(Failure) -> FallibleStepResult<Value> {
    switch position {
    case .before(let untilStart, let count):
      position = untilStart > 1 ? .before(untilStart: untilStart - 1, count: count) : .within(remaining: count)
      return .drop
    case .within(let remaining):
      guard remaining > 0 else { return .finish }
      position = .within(remaining: remaining - 1)
      return .emit(input)
    }
  }

  @usableFromInline
  static func failure(_ failure: Failure) -> Failure { failure }
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

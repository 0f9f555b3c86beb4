extension Publishers {
  /// A publisher that publishes a given sequence of elements.
  ///
  /// Elements go out as the subscriber demands them; the publisher finishes right after the
  /// last one.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher.sink { print($0) }
  /// ```
  public struct Sequence<Elements: Swift.Sequence, Failure: Error>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Elements.Element

    /// The sequence of elements to publish.
    public let sequence: Elements

    /// Creates a publisher for a sequence of elements.
    public init(sequence: Elements) {
      self.sequence = sequence
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Elements.Element, S.Failure == Failure {
      SequenceSubscription.start(
        sequence, then: .finished, downstream: subscriber, kind: .sequence)
    }
  }
}

extension Publishers.Sequence: Equatable where Elements: Equatable {}

extension Publishers.Sequence: Sendable where Elements: Sendable {}

extension Sequence {
  /// A publisher of this sequence's elements.
  ///
  /// ```swift
  /// let cancellable = (1...3).publisher.sink { print($0) }
  /// ```
  public var publisher: Publishers.Sequence<Self, Never> {
    Publishers.Sequence(sequence: self)
  }
}

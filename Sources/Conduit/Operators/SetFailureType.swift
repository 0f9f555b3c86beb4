extension Publishers {
  /// A publisher that appears to send a specified failure type.
  ///
  /// The publisher cannot actually fail with the specified type and finishes normally. Use it
  /// to match the failure types of two publishers.
  ///
  /// ```swift
  /// let merged = Just(1).setFailureType(to: URLError.self)   // Result<Int, URLError>.Publisher
  /// let erased = subject.setFailureType(to: MyError.self).eraseToAnyPublisher()
  /// ```
  public struct SetFailureType<Upstream: Publisher, Failure: Error>: Publisher where Upstream.Failure == Never {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// Creates a publisher that appears to send a specified failure type.
    @inlinable
    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber))
    }

    /// Changes the failure type again; the result wraps the same upstream.
    ///
    /// ```swift
    /// let p: Publishers.SetFailureType<PassthroughSubject<Int, Never>, MyError> =
    ///     subject.setFailureType(to: OtherError.self).setFailureType(to: MyError.self)
    /// ```
    @inlinable
    public func setFailureType<E: Error>(to failure: E.Type) -> Publishers.SetFailureType<Upstream, E> {
      Publishers.SetFailureType(upstream: upstream)
    }
  }
}

extension Publishers.SetFailureType: Equatable where Upstream: Equatable {}

extension Publishers.SetFailureType: Sendable where Upstream: Sendable {}

extension Publishers.SetFailureType {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = SetFailureTypeInner<Link<Upstream.Output, Never, Downstream>>
  where Downstream.Input == Upstream.Output
}

/// Forwards the upstream subscription and every value untouched; no state, no lock, no
/// allocation.
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`).
@usableFromInline
struct SetFailureTypeInner<Types: OperatorLink>: Subscriber, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
where Types.Downstream.Input == Types.Input, Types.Failure == Never {
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Never
  @usableFromInline
  typealias Downstream = Types.Downstream

  @usableFromInline
  let downstream: Downstream
  @usableFromInline
  let combineIdentifier = CombineIdentifier()

  @inlinable
  init(downstream: Downstream) {
    self.downstream = downstream
  }

  @usableFromInline
  var description: String { "SetFailureType" }
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
  func receive(completion: Subscribers.Completion<Never>) {
    downstream.receive(completion: .finished)
  }
}

extension Publisher where Failure == Never {
  /// Changes the failure type declared by a publisher that cannot fail.
  ///
  /// ```swift
  /// let pub1 = [0, 1, 2].publisher.eraseToAnyPublisher().setFailureType(to: MyError.self)
  /// let pub2 = CurrentValueSubject<Int, MyError>(0)
  /// let merged = pub1.combineLatest(pub2)
  /// ```
  @inlinable
  public func setFailureType<E: Error>(to failureType: E.Type) -> Publishers.SetFailureType<Self, E> {
    Publishers.SetFailureType(upstream: self)
  }
}

extension SetFailureTypeInner: CensusTransparent {
  /// What is created on this subscriber's behalf joins the census scope of its downstream.
  @usableFromInline
  var censusWrapped: Any? { downstream }
}

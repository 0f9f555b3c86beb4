extension Publishers {
  /// A publisher that publishes only elements that don't match the previous element, as
  /// evaluated by a provided error-throwing closure.
  ///
  /// A thrown error cancels the upstream publisher and fails the stream with that error.
  ///
  /// ```swift
  /// let cancellable = [1, 1, 2].publisher
  ///     .tryRemoveDuplicates { try areSame($0, $1) }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  public struct TryRemoveDuplicates<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// An error-throwing closure to evaluate whether two elements are equivalent, for purposes
    /// of filtering.
    public let predicate: (Output, Output) throws -> Bool

    /// Creates a publisher that publishes only elements that don't match the previous element,
    /// as evaluated by a provided error-throwing closure.
    @inlinable
    public init(upstream: Upstream, predicate: @escaping (Output, Output) throws -> Bool) {
      self.upstream = upstream
      self.predicate = predicate
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
      upstream.subscribe(Inner(downstream: subscriber, predicate: predicate))
    }
  }
}

extension Publishers.TryRemoveDuplicates {
  /// Forwards the upstream subscription to downstream, remembers the previous element, and
  /// keeps the subscription only to cancel it when the closure throws.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CensusScoped
  where Downstream.Input == Upstream.Output, Downstream.Failure == any Error {
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
    // The element received last; owned like `downstream`.
    @usableFromInline @exclusivity(unchecked)
    var previous: Upstream.Output?
    @usableFromInline
    let predicate: (Upstream.Output, Upstream.Output) throws -> Bool
    @usableFromInline
    let census: CensusToken

    @usableFromInline
    var censusScope: CensusScope? { census.scope }

    @inlinable
    init(downstream: Downstream, predicate: @escaping (Upstream.Output, Upstream.Output) throws -> Bool) {
      census = CensusToken(Inner.self, inheritingFrom: downstream)
      self.downstream = downstream
      self.predicate = predicate
    }

    @usableFromInline
    var description: String { "TryRemoveDuplicates" }

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
      let last = previous
      previous = input
      if let last {
        let duplicate: Bool
        do {
          duplicate = try predicate(last, input)
        } catch {
          fail(error)
          return .none
        }
        if duplicate { return .max(1) }
      }
      return downstream.receive(input)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
      guard let downstream else { return }
      release()
      downstream.receive(completion: completion.mapFailure { $0 as any Error })
    }

    @inlinable
    func fail(_ error: any Error) {
      let downstream = self.downstream
      let upstream = self.upstream
      release()
      upstream?.cancel()
      downstream?.receive(completion: .failure(error))
    }

    @inlinable
    func release() {
      downstream = nil
      upstream = nil
      previous = nil
    }
  }
}

extension Publisher {
  /// Publishes only elements that don't match the previous element, as evaluated by a provided
  /// error-throwing closure.
  ///
  /// If the closure throws, the publisher cancels its upstream and fails with the error.
  ///
  /// ```swift
  /// let cancellable = ["a", "A", "b"].publisher
  ///     .tryRemoveDuplicates { try sameIgnoringCase($0, $1) }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // a, b, finished
  /// ```
  @inlinable
  public func tryRemoveDuplicates(
    by predicate: @escaping (Output, Output) throws -> Bool
  ) -> Publishers.TryRemoveDuplicates<Self> {
    Publishers.TryRemoveDuplicates(upstream: self, predicate: predicate)
  }
}

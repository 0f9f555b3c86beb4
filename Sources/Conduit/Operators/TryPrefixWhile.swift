extension Publishers {
  /// A publisher that republishes elements while an error-throwing predicate closure indicates
  /// publishing should continue.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 5, 1].publisher
  ///     .tryPrefix(while: { $0 < 3 })
  ///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })   // 1, 2
  /// ```
  public struct TryPrefixWhile<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The error-throwing closure that determines whether publishing should continue.
    public let predicate: (Upstream.Output) throws -> Bool

    /// Creates a publisher that republishes elements of `upstream` while `predicate` returns
    /// true, and fails if it throws.
    @inlinable
    public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
      self.upstream = upstream
      self.predicate = predicate
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, predicate: predicate))
    }
  }
}

extension Publishers.TryPrefixWhile {
  /// Forwards the upstream subscription to downstream and keeps it, to cancel it when the
  /// predicate rejects a value (the stream finishes) or throws (the stream fails); anything more
  /// from upstream is then ignored.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CensusScoped
  where Downstream.Input == Upstream.Output, Downstream.Failure == any Error {
    @usableFromInline
    typealias Input = Upstream.Output
    @usableFromInline
    typealias Failure = Upstream.Failure

    // The three below are touched only from the upstream's serialized calls, so the runtime
    // check is skipped. All are `nil` once the stream has ended.
    @usableFromInline @exclusivity(unchecked)
    var downstream: Downstream?
    @usableFromInline @exclusivity(unchecked)
    var predicate: ((Upstream.Output) throws -> Bool)?
    @usableFromInline @exclusivity(unchecked)
    var upstream: (any Subscription)?
    @usableFromInline
    let census: CensusToken

    @usableFromInline
    var description: String { "TryPrefixWhile" }
    @usableFromInline
    var censusScope: CensusScope? { census.scope }

    @inlinable
    init(downstream: Downstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
      census = CensusToken(Inner.self, inheritingFrom: downstream)
      self.downstream = downstream
      self.predicate = predicate
    }

    @inlinable
    func receive(subscription: any Subscription) {
      guard let downstream, upstream == nil else {
        subscription.cancel()
        return
      }
      upstream = subscription
      downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
      guard let downstream, let predicate else { return .none }
      let completion: Subscribers.Completion<any Error>
      do {
        if try predicate(input) {
          return downstream.receive(input)
        }
        completion = .finished
      } catch {
        completion = .failure(error)
      }
      let upstream = self.upstream
      end()
      upstream?.cancel()
      downstream.receive(completion: completion)
      return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
      guard let downstream else { return }
      end()
      downstream.receive(completion: completion.mapFailure { $0 })
    }

    @inlinable
    func end() {
      downstream = nil
      predicate = nil
      upstream = nil
    }
  }
}

extension Publisher {
  /// Republishes elements while an error-throwing predicate closure indicates publishing should
  /// continue.
  ///
  /// At the first element for which the predicate returns false, the publisher cancels
  /// upstream and finishes; if the predicate throws, it cancels upstream and fails with the
  /// error.
  ///
  /// ```swift
  /// struct Negative: Error {}
  /// let cancellable = [0, 1, -1, 2].publisher
  ///     .tryPrefix(while: { value in
  ///         if value < 0 { throw Negative() }
  ///         return value < 10
  ///     })
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 0, 1, failure
  /// ```
  ///
  /// - Parameter predicate: A closure that takes an element and returns whether to republish it
  ///   and continue, or throws to fail the stream.
  @inlinable
  public func tryPrefix(while predicate: @escaping (Output) throws -> Bool) -> Publishers.TryPrefixWhile<Self> {
    Publishers.TryPrefixWhile(upstream: self, predicate: predicate)
  }
}

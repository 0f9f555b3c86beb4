extension Publishers {
  /// A publisher that republishes elements while a predicate closure indicates publishing
  /// should continue.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 5, 1].publisher
  ///     .prefix(while: { $0 < 3 })
  ///     .sink { print($0) }   // 1, 2
  /// ```
  public struct PrefixWhile<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The closure that determines whether publishing should continue.
    public let predicate: (Upstream.Output) -> Bool

    /// Creates a publisher that republishes elements of `upstream` while `predicate` returns
    /// true.
    @inlinable
    public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
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

extension Publishers.PrefixWhile {
  /// Forwards the upstream subscription to downstream and keeps it, to cancel it at the first
  /// value the predicate rejects; the stream then finishes and anything more from upstream is
  /// ignored.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CensusScoped
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    @usableFromInline
    typealias Input = Upstream.Output
    @usableFromInline
    typealias Failure = Upstream.Failure

    // The three below are touched only from the upstream's serialized calls, so the runtime
    // check is skipped. All are `nil` once the stream has ended.
    @usableFromInline @exclusivity(unchecked)
    var downstream: Downstream?
    @usableFromInline @exclusivity(unchecked)
    var predicate: ((Upstream.Output) -> Bool)?
    @usableFromInline @exclusivity(unchecked)
    var upstream: (any Subscription)?
    @usableFromInline
    let census: CensusToken

    @usableFromInline
    var description: String { "PrefixWhile" }
    @usableFromInline
    var censusScope: CensusScope? { census.scope }

    @inlinable
    init(downstream: Downstream, predicate: @escaping (Upstream.Output) -> Bool) {
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
      if predicate(input) {
        return downstream.receive(input)
      }
      let upstream = self.upstream
      end()
      upstream?.cancel()
      downstream.receive(completion: .finished)
      return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
      guard let downstream else { return }
      end()
      downstream.receive(completion: completion)
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
  /// Republishes elements while a predicate closure indicates publishing should continue.
  ///
  /// At the first element for which the predicate returns false, the publisher cancels
  /// upstream and finishes; that element is not republished.
  ///
  /// ```swift
  /// let cancellable = [0, 1, 2, 3, 40, 4].publisher
  ///     .prefix(while: { $0 < 10 })
  ///     .sink { print($0) }   // 0, 1, 2, 3
  /// ```
  ///
  /// - Parameter predicate: A closure that takes an element and returns whether to republish it
  ///   and continue.
  @inlinable
  public func prefix(while predicate: @escaping (Output) -> Bool) -> Publishers.PrefixWhile<Self> {
    Publishers.PrefixWhile(upstream: self, predicate: predicate)
  }
}

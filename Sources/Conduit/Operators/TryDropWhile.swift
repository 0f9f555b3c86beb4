extension Publishers {
  /// A publisher that omits elements from an upstream publisher until a given error-throwing
  /// closure returns false.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 5, 1].publisher
  ///     .tryDrop(while: { $0 < 3 })
  ///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })   // 5, 1
  /// ```
  public struct TryDropWhile<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The error-throwing closure that indicates whether to drop the element.
    public let predicate: (Upstream.Output) throws -> Bool

    /// Creates a publisher that omits elements from `upstream` until `predicate` returns false
    /// or throws.
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

extension Publishers.TryDropWhile {
  /// Forwards the upstream subscription to downstream and keeps it, to cancel it if the
  /// predicate throws. Swallows values while the predicate holds, asking upstream for one more
  /// in place of each; once a value passes, the predicate and the subscription are released.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CensusScoped
  where Downstream.Input == Upstream.Output, Downstream.Failure == any Error {
    @usableFromInline
    typealias Input = Upstream.Output
    @usableFromInline
    typealias Failure = Upstream.Failure

    // The three below are touched only from the upstream's serialized calls, so the runtime
    // check is skipped. `downstream` is `nil` once the stream has ended.
    @usableFromInline @exclusivity(unchecked)
    var downstream: Downstream?
    // `nil` once a value has passed.
    @usableFromInline @exclusivity(unchecked)
    var predicate: ((Upstream.Output) throws -> Bool)?
    // Kept while the predicate may still throw.
    @usableFromInline @exclusivity(unchecked)
    var upstream: (any Subscription)?
    @usableFromInline
    let census: CensusToken

    @usableFromInline
    var description: String { "TryDropWhile" }
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
      guard let downstream else { return .none }
      if let predicate {
        do {
          if try predicate(input) { return .max(1) }
        } catch {
          let upstream = self.upstream
          end()
          upstream?.cancel()
          downstream.receive(completion: .failure(error))
          return .none
        }
        self.predicate = nil
        self.upstream = nil
      }
      return downstream.receive(input)
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
  /// Omits elements from the upstream publisher until an error-throwing closure returns false,
  /// then republishes all remaining elements.
  ///
  /// If the closure throws, the publisher cancels upstream and fails with the error. Each
  /// dropped element is replaced by a request for one more from upstream.
  ///
  /// ```swift
  /// struct Negative: Error {}
  /// let cancellable = [1, 2, 3, -1, 4].publisher
  ///     .tryDrop(while: { value in
  ///         if value < 0 { throw Negative() }
  ///         return value < 3
  ///     })
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 3, -1, 4, finished
  /// ```
  ///
  /// - Parameter predicate: A closure that takes an element and returns whether to drop it, or
  ///   throws to fail the stream.
  @inlinable
  public func tryDrop(while predicate: @escaping (Output) throws -> Bool) -> Publishers.TryDropWhile<Self> {
    Publishers.TryDropWhile(upstream: self, predicate: predicate)
  }
}

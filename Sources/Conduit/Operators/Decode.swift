extension Publishers {
  /// A publisher that decodes elements received from an upstream publisher, using a given
  /// decoder.
  ///
  /// ```swift
  /// let cancellable = responses
  ///     .decode(type: Point.self, decoder: jsonDecoder)
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  public struct Decode<Upstream: Publisher, Output: Decodable, Coder: TopLevelDecoder>: Publisher
  where Upstream.Output == Coder.Input {
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    @usableFromInline
    let decoder: Coder

    /// Creates a publisher that decodes elements received from `upstream` with `decoder`.
    @inlinable
    public init(upstream: Upstream, decoder: Coder) {
      self.upstream = upstream
      self.decoder = decoder
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, decoder: decoder))
    }
  }
}

extension Publishers.Decode {
  /// Forwards the upstream subscription to downstream and keeps it, to cancel it if decoding
  /// throws; the stream then fails with the error and anything more from upstream is ignored.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CensusScoped
  where Downstream.Input == Output, Downstream.Failure == any Error {
    @usableFromInline
    typealias Input = Upstream.Output
    @usableFromInline
    typealias Failure = Upstream.Failure

    // The three below are touched only from the upstream's serialized calls, so the runtime
    // check is skipped. All are `nil` once the stream has ended.
    @usableFromInline @exclusivity(unchecked)
    var downstream: Downstream?
    @usableFromInline @exclusivity(unchecked)
    var decoder: Coder?
    @usableFromInline @exclusivity(unchecked)
    var upstream: (any Subscription)?
    @usableFromInline
    let census: CensusToken

    @usableFromInline
    var description: String { "Decode" }
    @usableFromInline
    var censusScope: CensusScope? { census.scope }

    @inlinable
    init(downstream: Downstream, decoder: Coder) {
      census = CensusToken(Inner.self, inheritingFrom: downstream)
      self.downstream = downstream
      self.decoder = decoder
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
      guard let downstream, let decoder else { return .none }
      let output: Output
      do {
        output = try decoder.decode(Output.self, from: input)
      } catch {
        let upstream = self.upstream
        end()
        upstream?.cancel()
        downstream.receive(completion: .failure(error))
        return .none
      }
      return downstream.receive(output)
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
      decoder = nil
      upstream = nil
    }
  }
}

extension Publisher {
  /// Decodes the output from the upstream using a specified decoder.
  ///
  /// If the decoder throws, the publisher cancels upstream and fails with the error.
  ///
  /// ```swift
  /// struct IntDecoder: TopLevelDecoder {
  ///     struct NotANumber: Error {}
  ///     func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
  ///         guard let value = Int(text) as? T else { throw NotANumber() }
  ///         return value
  ///     }
  /// }
  /// let cancellable = ["1", "x"].publisher
  ///     .decode(type: Int.self, decoder: IntDecoder())
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 1, failure
  /// ```
  ///
  /// - Parameters:
  ///   - type: The type to decode each element into.
  ///   - decoder: A decoder that implements the ``TopLevelDecoder`` protocol.
  @inlinable
  public func decode<Item: Decodable, Coder: TopLevelDecoder>(
    type: Item.Type, decoder: Coder
  ) -> Publishers.Decode<Self, Item, Coder> where Output == Coder.Input {
    Publishers.Decode(upstream: self, decoder: decoder)
  }
}

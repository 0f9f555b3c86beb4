extension Publishers {
  /// A publisher that encodes elements received from an upstream publisher, using a given
  /// encoder.
  ///
  /// ```swift
  /// let cancellable = Just(Point(x: 1, y: 2))
  ///     .encode(encoder: jsonEncoder)
  ///     .sink(receiveCompletion: { _ in }, receiveValue: { data in store(data) })
  /// ```
  public struct Encode<Upstream: Publisher, Coder: TopLevelEncoder>: Publisher
  where Upstream.Output: Encodable {
    /// The kind of values published by this publisher.
    public typealias Output = Coder.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    @usableFromInline
    let encoder: Coder

    /// Creates a publisher that encodes elements received from `upstream` with `encoder`.
    @inlinable
    public init(upstream: Upstream, encoder: Coder) {
      self.upstream = upstream
      self.encoder = encoder
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, encoder: encoder))
    }
  }
}

extension Publishers.Encode {
  /// Forwards the upstream subscription to downstream and keeps it, to cancel it if encoding
  /// throws; the stream then fails with the error and anything more from upstream is ignored.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CensusScoped
  where Downstream.Input == Coder.Output, Downstream.Failure == any Error {
    @usableFromInline
    typealias Input = Upstream.Output
    @usableFromInline
    typealias Failure = Upstream.Failure

    // The three below are touched only from the upstream's serialized calls, so the runtime
    // check is skipped. All are `nil` once the stream has ended.
    @usableFromInline @exclusivity(unchecked)
    var downstream: Downstream?
    @usableFromInline @exclusivity(unchecked)
    var encoder: Coder?
    @usableFromInline @exclusivity(unchecked)
    var upstream: (any Subscription)?
    @usableFromInline
    let census: CensusToken

    @usableFromInline
    var description: String { "Encode" }
    @usableFromInline
    var censusScope: CensusScope? { census.scope }

    @inlinable
    init(downstream: Downstream, encoder: Coder) {
      census = CensusToken(Inner.self, inheritingFrom: downstream)
      self.downstream = downstream
      self.encoder = encoder
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
      guard let downstream, let encoder else { return .none }
      let output: Coder.Output
      do {
        output = try encoder.encode(input)
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
      encoder = nil
      upstream = nil
    }
  }
}

extension Publisher where Output: Encodable {
  /// Encodes the output from upstream using a specified encoder.
  ///
  /// If the encoder throws, the publisher cancels upstream and fails with the error.
  ///
  /// ```swift
  /// struct DescriptionEncoder: TopLevelEncoder {
  ///     func encode<T: Encodable>(_ value: T) throws -> String { String(describing: value) }
  /// }
  /// let cancellable = [1, 2].publisher
  ///     .encode(encoder: DescriptionEncoder())
  ///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })   // "1", "2"
  /// ```
  ///
  /// - Parameter encoder: An encoder that implements the ``TopLevelEncoder`` protocol.
  @inlinable
  public func encode<Coder: TopLevelEncoder>(encoder: Coder) -> Publishers.Encode<Self, Coder> {
    Publishers.Encode(upstream: self, encoder: encoder)
  }
}

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
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, step: Step(decoder: decoder)))
    }
  }
}

extension Publishers.Decode {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = FallibleInner<FallibleTypes<Step, Downstream>>
  where Downstream.Input == Step.Emitted, Downstream.Failure == Step.Failure
}

extension Publishers.Decode {
  /// Decodes each value; a decoding error fails the stream.
  @usableFromInline
  struct Step: FallibleStep {
    @usableFromInline
    typealias UpstreamFailure = Upstream.Failure
    @usableFromInline
    typealias Failure = any Error

    @usableFromInline
    let decoder: Coder

    @inlinable
    init(decoder: Coder) { self.decoder = decoder }

    @usableFromInline
    static var name: String { "Decode" }

    @inlinable
    static var kind: CombineSubscriptionKind { .coding }

    @usableFromInline
    static func mirrorChildren(of step: Self?, _ inner: FallibleReflection) -> [Mirror.Child] {
      [("downstream", inner.downstream), ("finished", inner.finished), ("upstreamSubscription", inner.upstream)]
    }

    @inlinable
    func step(_ input: Upstream.Output) throws -> FallibleStepResult<Output> {
      .emit(try decoder.decode(Output.self, from: input))
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

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

    let encoder: Coder

    /// Creates a publisher that encodes elements received from `upstream` with `encoder`.
    public init(upstream: Upstream, encoder: Coder) {
      self.upstream = upstream
      self.encoder = encoder
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, step: Step(encoder: encoder)))
    }
  }
}

extension Publishers.Encode {
  typealias Inner<Downstream: Subscriber> = FallibleInner<FallibleTypes<Step, Downstream>>
  where Downstream.Input == Step.Emitted, Downstream.Failure == Step.Failure
}

extension Publishers.Encode {
  /// Encodes each value; an encoding error fails the stream.
  struct Step: FallibleStep {
    typealias UpstreamFailure = Upstream.Failure
    typealias Failure = any Error

    let encoder: Coder

    init(encoder: Coder) { self.encoder = encoder }

    static var name: String { "Encode" }

    static var kind: CombineSubscriptionKind { .coding }

    static func mirrorChildren(of step: Self?, _ inner: FallibleReflection) -> [Mirror.Child] {
      [("downstream", inner.downstream), ("finished", inner.finished), ("upstreamSubscription", inner.upstream)]
    }

    func step(_ input: Upstream.Output) throws -> FallibleStepResult<Coder.Output> {
      .emit(try encoder.encode(input))
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
  public func encode<Coder: TopLevelEncoder>(encoder: Coder) -> Publishers.Encode<Self, Coder> {
    Publishers.Encode(upstream: self, encoder: encoder)
  }
}

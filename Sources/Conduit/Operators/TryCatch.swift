extension Publishers {
  /// A publisher that handles errors from an upstream publisher by replacing the failed
  /// publisher with another publisher or producing a new error.
  ///
  /// When the handler throws, the publisher fails with the thrown error. Otherwise the handler's
  /// publisher is subscribed to and asked for the demand the downstream had left, and its
  /// failure, if any, is sent downstream as `any Error`.
  ///
  /// ```swift
  /// let cancellable = api.fetchUser()
  ///     .tryCatch { error -> Just<User> in
  ///         guard error == .notFound else { throw error }
  ///         return Just(User.guest)
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  public struct TryCatch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
  where Upstream.Output == NewPublisher.Output {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = any Error

    /// The publisher that this publisher receives elements from.
    public let upstream: Upstream

    /// A closure that accepts the upstream failure as input and either returns a publisher to
    /// replace the upstream publisher or throws an error.
    public let handler: (Upstream.Failure) throws -> NewPublisher

    /// Creates a publisher that handles errors from an upstream publisher by replacing the
    /// failed publisher with another publisher or by throwing an error.
    public init(upstream: Upstream, handler: @escaping (Upstream.Failure) throws -> NewPublisher) {
      self.upstream = upstream
      self.handler = handler
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let handler = self.handler
      upstream.subscribe(
        Inner<S>(
          downstream: subscriber,
          handler: { error in Result { try handler(error) } },
          replacementFailure: { $0 },
          description: "TryCatch"))
    }
  }
}

extension Publishers.TryCatch {
  typealias Inner<Downstream: Subscriber> = CatchSubscription<
    CatchTypes<Upstream.Output, Upstream.Failure, NewPublisher, Downstream>
  >
  where Downstream.Input == Output
}

extension Publisher {
  /// Handles errors from an upstream publisher by either replacing it with another publisher
  /// or throwing a new error.
  ///
  /// ```swift
  /// let cancellable = primary
  ///     .tryCatch { error -> AnyPublisher<Data, any Error> in
  ///         guard isRecoverable(error) else { throw error }
  ///         return fallback.eraseToAnyPublisher()
  ///     }
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  ///
  /// - Parameter handler: A throwing closure that accepts the upstream failure as input. It
  ///   returns a publisher to replace the upstream publisher, or throws to fail with a new error.
  public func tryCatch<P: Publisher>(_ handler: @escaping (Failure) throws -> P) -> Publishers.TryCatch<Self, P>
  where Output == P.Output {
    Publishers.TryCatch(upstream: self, handler: handler)
  }
}

import Synchronization

extension Subscribers {
  /// A simple subscriber that requests an unlimited number of values upon subscription.
  ///
  /// The sink lives as long as the `AnyCancellable` returned by ``Publisher/sink(receiveValue:)``:
  /// a token that is not stored cancels the subscription at once, and the sink receives nothing
  /// more. On completion the sink releases its closures and whatever they captured; on
  /// cancellation it releases its subscription, and the closures go when the token does.
  ///
  /// ```swift
  /// let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { print($0) })
  /// [1, 2].publisher.subscribe(sink)
  /// ```
  public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped
  {
    /// The closure to execute on receipt of a value.
    public var receiveValue: (Input) -> Void {
      handlers._withUnsafeGuaranteedRef { $0.receiveValue }
    }

    /// The closure to execute on completion.
    public var receiveCompletion: (Subscribers.Completion<Failure>) -> Void {
      handlers._withUnsafeGuaranteedRef { $0.receiveCompletion }
    }

    /// The two closures, kept together in an object that the sink holds without counting
    /// references on every value: a closure read from a mutable property is retained and released
    /// around each call, which costs more than the rest of a subject's delivery to a sink.
    @usableFromInline
    final class Handlers {
      @usableFromInline
      let receiveValue: (Input) -> Void
      @usableFromInline
      let receiveCompletion: (Subscribers.Completion<Failure>) -> Void

      @inlinable
      init(
        receiveValue: @escaping (Input) -> Void,
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void
      ) {
        self.receiveValue = receiveValue
        self.receiveCompletion = receiveCompletion
      }
    }

    // Fields with unchecked exclusivity skip the runtime check, which costs in "PassthroughSubject.send, 1 sink".
    // One reference to the closures, retained by hand, and replaced by closures that do nothing
    // after the completion, or given up in `deinit`. Read and replaced only on the upstream's
    // serialized calls (values, then the completion), so the runtime exclusivity check is skipped.
    @usableFromInline @exclusivity(unchecked)
    var handlers: Unmanaged<Handlers>
    // Whether `receive(_:)` is running. A completion that arrives from inside it (from an
    // upstream that breaks the contract) leaves the closures to be given up when the outermost
    // call returns, rather than free the closure that is running.
    @usableFromInline @exclusivity(unchecked)
    var receivingValue = false
    // Set by such a completion.
    @usableFromInline @exclusivity(unchecked)
    var releaseAfterValue = false

    // Guarded by its own lock: `cancel` may come from any thread.
    @usableFromInline
    let status = Locked<SinkStatus>(.awaitingSubscription)
    @usableFromInline
    let census: CensusToken

    @usableFromInline
    package var censusScope: CensusScope? { census.scope }

    /// A textual representation of this instance.
    public var description: String { "Sink" }

    /// A mirror without children, as Combine's sink reflects.
    public var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }

    /// The description, as playgrounds show it.
    public var playgroundDescription: Any { description }

    /// Initializes a sink with the provided closures.
    @inlinable
    public init(
      receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
      receiveValue: @escaping (Input) -> Void
    ) {
      census = CensusToken(Sink.self)
      handlers = .passRetained(Handlers(receiveValue: receiveValue, receiveCompletion: receiveCompletion))
    }

    deinit {
      handlers.release()
    }

    /// Receives the subscription from the upstream publisher.
    public func receive(subscription: any Subscription) {
      let accepted = status.withLock { status -> Bool in
        guard case .awaitingSubscription = status else { return false }
        status = .subscribed(subscription)
        return true
      }
      if accepted {
        subscription.request(.unlimited)
      } else {
        subscription.cancel()
      }
    }

    /// Receives a value from the upstream publisher and returns the additional demand.
    @inlinable
    public func receive(_ value: Input) -> Subscribers.Demand {
      // Nested only if an upstream breaks the contract and re-enters.
      let nested = receivingValue
      receivingValue = true
      handlers._withUnsafeGuaranteedRef { $0.receiveValue(value) }
      receivingValue = nested
      if releaseAfterValue && !nested { releaseHandlers() }
      return .none
    }

    /// Receives the completion from the upstream publisher.
    public func receive(completion: Subscribers.Completion<Failure>) {
      // The upstream subscription leaves after the lock, before the closure is called: its
      // deinit may cancel this sink.
      if case .terminal = end() { return }
      handlers._withUnsafeGuaranteedRef { $0.receiveCompletion(completion) }
      if receivingValue {
        releaseAfterValue = true
      } else {
        releaseHandlers()
      }
    }

    /// Moves to `.terminal` and returns what the status held, for the caller to let go of after
    /// the lock.
    private func end() -> SinkStatus {
      status.exchange(.terminal)
    }

    /// Gives up the closures, and whatever they captured.
    @usableFromInline
    func releaseHandlers() {
      let released = handlers
      handlers = .passRetained(Handlers(receiveValue: { _ in }, receiveCompletion: { _ in }))
      releaseAfterValue = false
      released.release()
    }

    /// Cancels the subscription. Calling it again, or after completion, does nothing.
    public func cancel() {
      let subscription = status.withLock { status -> (any Subscription)? in
        defer { status = .terminal }
        if case .subscribed(let subscription) = status { return subscription }
        return nil
      }
      subscription?.cancel()
    }
  }
}

extension Publisher {
  /// Attaches a subscriber with closure-based behavior.
  ///
  /// The subscriber requests unlimited demand. Keep the returned token: when it is released,
  /// the subscription is cancelled.
  ///
  /// ```swift
  /// let cancellable = publisher.sink(
  ///     receiveCompletion: { print("done:", $0) },
  ///     receiveValue: { print("value:", $0) })
  /// ```
  @inlinable
  public func sink(
    receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
    receiveValue: @escaping (Output) -> Void
  ) -> AnyCancellable {
    let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
    subscribe(sink)
    return AnyCancellable(cancelling: sink)
  }
}

extension Publisher where Failure == Never {
  /// Attaches a subscriber with closure-based behavior to a publisher that never fails.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher.sink { print($0) }
  /// ```
  @inlinable
  public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
    sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
  }
}

/// Where a sink stands. Declared outside the generic `Sink` so that its type, and the lock's,
/// are concrete: a sink's deinit then finds their metadata in a static cache instead of looking
/// it up in the runtime's generic-metadata table on every teardown.
@usableFromInline
enum SinkStatus {
  case awaitingSubscription
  case subscribed(any Subscription)
  case terminal
}

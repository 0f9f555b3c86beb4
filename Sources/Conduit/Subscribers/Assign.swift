import Synchronization

extension Subscribers {
  /// A simple subscriber that assigns received elements to a property indicated by a key path.
  ///
  /// The subscriber holds the object strongly until it completes or is cancelled: an object that
  /// stores the token of an assignment to itself keeps itself alive. Assign through a sink that
  /// captures the object weakly (`sink { [weak model] in model?.count = $0 }`) to avoid that
  /// cycle.
  ///
  /// ```swift
  /// let cancellable = [1, 2].publisher.assign(to: \.count, on: model)
  /// ```
  public final class Assign<Root, Input>: Subscriber, Cancellable, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped
  {
    /// The kind of errors this publisher might publish.
    public typealias Failure = Never

    private enum Status {
      case awaitingSubscription(Root)
      case subscribed(Root, any Subscription)
      case terminal
    }

    /// The object that contains the property to assign, `nil` once the subscriber completed or
    /// was cancelled.
    public var object: Root? {
      status.withLock { status in
        switch status {
        case .awaitingSubscription(let object), .subscribed(let object, _): return object
        case .terminal: return nil
        }
      }
    }

    /// The key path that indicates the property to assign.
    public let keyPath: ReferenceWritableKeyPath<Root, Input>

    // Guarded by its own lock.
    private let status: Locked<Status>
    private let census: CensusToken

    @usableFromInline
    package var censusScope: CensusScope? { census.scope }

    /// A textual representation of this instance.
    public var description: String { "Assign \(Root.self)." }

    /// The object, the key path and the status, as Combine's assign reflects them.
    public var customMirror: Mirror {
      Mirror(self, children: ["object": object as Any, "keyPath": keyPath, "status": status.withLock { $0 }])
    }

    /// The description, as playgrounds show it.
    public var playgroundDescription: Any { description }

    /// Creates a subscriber to assign the value of a property indicated by a key path.
    public init(object: Root, keyPath: ReferenceWritableKeyPath<Root, Input>) {
      census = CensusToken(Assign.self)
      status = Locked(.awaitingSubscription(object))
      self.keyPath = keyPath
    }

    /// Receives the subscription from the upstream publisher.
    public func receive(subscription: any Subscription) {
      let accepted = status.withLock { status -> Bool in
        guard case .awaitingSubscription(let object) = status else { return false }
        status = .subscribed(object, subscription)
        return true
      }
      if accepted {
        subscription.request(.unlimited)
      } else {
        subscription.cancel()
      }
    }

    /// Receives a value from the upstream publisher and returns the additional demand.
    ///
    /// As in Combine, a value is written only while subscribed: not before the subscription,
    /// nor after the completion or a cancel.
    public func receive(_ value: Input) -> Subscribers.Demand {
      let subscribed = status.withLock { status -> Root? in
        if case .subscribed(let object, _) = status { return object }
        return nil
      }
      subscribed?[keyPath: keyPath] = value
      return .none
    }

    /// Receives the completion from the upstream publisher.
    public func receive(completion: Subscribers.Completion<Never>) {
      // What it held leaves after the lock: the object's deinit is not ours to run under it.
      _ = end()
    }

    /// Cancels the subscription and releases the object.
    public func cancel() {
      if case .subscribed(_, let subscription) = end() { subscription.cancel() }
    }

    /// Moves to `.terminal` and returns what the status held, for the caller to let go of after
    /// the lock.
    private func end() -> Status {
      status.exchange(.terminal)
    }
  }
}

extension Publisher where Failure == Never {
  /// Assigns each element from a publisher to a property on an object.
  ///
  /// The object is held strongly until the publisher completes or the token is cancelled.
  ///
  /// ```swift
  /// let cancellable = slider.values.assign(to: \.volume, on: player)
  /// ```
  public func assign<Root>(to keyPath: ReferenceWritableKeyPath<Root, Output>, on object: Root) -> AnyCancellable {
    let subscriber = Subscribers.Assign(object: object, keyPath: keyPath)
    subscribe(subscriber)
    return AnyCancellable(cancelling: subscriber)
  }
}

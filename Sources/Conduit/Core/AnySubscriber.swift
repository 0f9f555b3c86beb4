/// A type-erasing subscriber.
///
/// Wraps a subscriber, a subject, or a set of closures, and forwards every call to them.
///
/// ```swift
/// let subscriber = AnySubscriber<Int, Never>(
///     receiveSubscription: { $0.request(.unlimited) },
///     receiveValue: { print($0); return .none },
///     receiveCompletion: { print($0) })
/// [1, 2].publisher.subscribe(subscriber)
/// ```
@frozen
public struct AnySubscriber<Input, Failure: Error>: Subscriber, CustomStringConvertible {
  @usableFromInline
  let receiveSubscriptionThunk: ((any Subscription) -> Void)?
  @usableFromInline
  let receiveValueThunk: ((Input) -> Subscribers.Demand)?
  @usableFromInline
  let receiveCompletionThunk: ((Subscribers.Completion<Failure>) -> Void)?
  /// Returns the wrapped subscriber or subject, for its description and its census scope;
  /// `nil` for closures.
  @usableFromInline
  let wrappedThunk: (() -> Any)?

  /// The identifier of the wrapped subscriber, or a fresh one for closures.
  public let combineIdentifier: CombineIdentifier

  /// Creates a type-erasing subscriber to wrap an existing subscriber.
  @inlinable
  public init<S: Subscriber>(_ s: S) where S.Input == Input, S.Failure == Failure {
    if let erased = s as? AnySubscriber<Input, Failure> {
      self = erased
      return
    }
    combineIdentifier = s.combineIdentifier
    receiveSubscriptionThunk = s.receive(subscription:)
    receiveValueThunk = s.receive(_:)
    receiveCompletionThunk = s.receive(completion:)
    wrappedThunk = { s }
  }

  /// Creates a type-erasing subscriber that forwards values and completion to a subject.
  ///
  /// The subject receives the subscription through `send(subscription:)`.
  public init<S: Subject>(_ s: S) where S.Output == Input, S.Failure == Failure {
    combineIdentifier = CombineIdentifier(s)
    receiveSubscriptionThunk = { [s] subscription in s.send(subscription: subscription) }
    receiveValueThunk = { [s] value in
      s.send(value)
      return .none
    }
    receiveCompletionThunk = { [s] completion in s.send(completion: completion) }
    wrappedThunk = { s }
  }

  /// Creates a type-erasing subscriber that executes the provided closures.
  ///
  /// A missing `receiveValue` closure answers every value with `.none`.
  public init(
    receiveSubscription: ((any Subscription) -> Void)? = nil,
    receiveValue: ((Input) -> Subscribers.Demand)? = nil,
    receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil
  ) {
    combineIdentifier = CombineIdentifier()
    receiveSubscriptionThunk = receiveSubscription
    receiveValueThunk = receiveValue
    receiveCompletionThunk = receiveCompletion
    wrappedThunk = nil
  }

  /// A textual representation of this instance.
  public var description: String {
    guard let wrapped = wrappedThunk?() else { return "Anonymous AnySubscriber" }
    if wrapped is any Subject { return "Subject" }
    if let described = wrapped as? any CustomStringConvertible { return described.description }
    return String(describing: type(of: wrapped))
  }

  /// Receives the subscription from the upstream publisher.
  @inlinable
  public func receive(subscription: any Subscription) {
    receiveSubscriptionThunk?(subscription)
  }

  /// Receives a value from the upstream publisher and returns the additional demand.
  @inlinable
  public func receive(_ value: Input) -> Subscribers.Demand {
    receiveValueThunk?(value) ?? .none
  }

  /// Receives the completion from the upstream publisher.
  @inlinable
  public func receive(completion: Subscribers.Completion<Failure>) {
    receiveCompletionThunk?(completion)
  }
}

extension AnySubscriber: CensusTransparent {
  @usableFromInline
  package var censusWrapped: Any? { wrappedThunk?() }
}

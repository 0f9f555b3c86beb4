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
  /// One allocation holds whatever is wrapped, so copying an `AnySubscriber` is one retain.
  @usableFromInline
  let box: AnySubscriberBox<Input, Failure>

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
    box = SubscriberBox(s)
  }

  /// Creates a type-erasing subscriber that forwards values and completion to a subject.
  ///
  /// The subject receives the subscription through `send(subscription:)`.
  @inlinable
  public init<S: Subject>(_ s: S) where S.Output == Input, S.Failure == Failure {
    combineIdentifier = CombineIdentifier(s)
    box = SubjectBox(s)
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
    box = ClosureSubscriberBox(
      receiveSubscription: receiveSubscription, receiveValue: receiveValue, receiveCompletion: receiveCompletion)
  }

  /// A textual representation of this instance.
  public var description: String { box.description }

  /// Receives the subscription from the upstream publisher.
  @inlinable
  public func receive(subscription: any Subscription) {
    box.receiveSubscription(box, subscription)
  }

  /// Receives a value from the upstream publisher and returns the additional demand.
  @inlinable
  public func receive(_ value: Input) -> Subscribers.Demand {
    box.receiveValue(box, value)
  }

  /// Receives the completion from the upstream publisher.
  @inlinable
  public func receive(completion: Subscribers.Completion<Failure>) {
    box.receiveCompletion(box, completion)
  }
}

extension AnySubscriber: CensusTransparent {
  @usableFromInline
  package var censusWrapped: Any? { box.wrapped }
}

/// What an `AnySubscriber` wraps. The three entry points are functions created where the wrapped
/// type is known (the subclasses' `@inlinable` initializers), so they run specialized code and
/// capture nothing; they take the box back as their first argument.
@usableFromInline
class AnySubscriberBox<Input, Failure: Error> {
  @usableFromInline
  let receiveSubscription: (AnySubscriberBox, any Subscription) -> Void
  @usableFromInline
  let receiveValue: (AnySubscriberBox, Input) -> Subscribers.Demand
  @usableFromInline
  let receiveCompletion: (AnySubscriberBox, Subscribers.Completion<Failure>) -> Void

  @inlinable
  init(
    receiveSubscription: @escaping (AnySubscriberBox, any Subscription) -> Void,
    receiveValue: @escaping (AnySubscriberBox, Input) -> Subscribers.Demand,
    receiveCompletion: @escaping (AnySubscriberBox, Subscribers.Completion<Failure>) -> Void
  ) {
    self.receiveSubscription = receiveSubscription
    self.receiveValue = receiveValue
    self.receiveCompletion = receiveCompletion
  }

  /// The wrapped subscriber or subject; `nil` for closures.
  @usableFromInline
  var wrapped: Any? { nil }

  @usableFromInline
  var description: String { "Anonymous AnySubscriber" }
}

@usableFromInline
final class SubscriberBox<S: Subscriber>: AnySubscriberBox<S.Input, S.Failure> {
  @usableFromInline
  let subscriber: S

  @inlinable
  init(_ subscriber: S) {
    self.subscriber = subscriber
    super.init(
      receiveSubscription: { box, subscription in
        unsafeDowncast(box, to: SubscriberBox.self).subscriber.receive(subscription: subscription)
      },
      receiveValue: { box, value in
        unsafeDowncast(box, to: SubscriberBox.self).subscriber.receive(value)
      },
      receiveCompletion: { box, completion in
        unsafeDowncast(box, to: SubscriberBox.self).subscriber.receive(completion: completion)
      })
  }

  @usableFromInline
  override var wrapped: Any? { subscriber }

  @usableFromInline
  override var description: String {
    (subscriber as? any CustomStringConvertible)?.description ?? String(describing: S.self)
  }
}

@usableFromInline
final class SubjectBox<S: Subject>: AnySubscriberBox<S.Output, S.Failure> {
  @usableFromInline
  let subject: S

  @inlinable
  init(_ subject: S) {
    self.subject = subject
    super.init(
      receiveSubscription: { box, subscription in
        unsafeDowncast(box, to: SubjectBox.self).subject.send(subscription: subscription)
      },
      receiveValue: { box, value in
        unsafeDowncast(box, to: SubjectBox.self).subject.send(value)
        return .none
      },
      receiveCompletion: { box, completion in
        unsafeDowncast(box, to: SubjectBox.self).subject.send(completion: completion)
      })
  }

  @usableFromInline
  override var wrapped: Any? { subject }

  @usableFromInline
  override var description: String { "Subject" }
}

final class ClosureSubscriberBox<Input, Failure: Error>: AnySubscriberBox<Input, Failure> {
  let subscriptionHandler: ((any Subscription) -> Void)?
  let valueHandler: ((Input) -> Subscribers.Demand)?
  let completionHandler: ((Subscribers.Completion<Failure>) -> Void)?

  init(
    receiveSubscription: ((any Subscription) -> Void)?,
    receiveValue: ((Input) -> Subscribers.Demand)?,
    receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)?
  ) {
    subscriptionHandler = receiveSubscription
    valueHandler = receiveValue
    completionHandler = receiveCompletion
    super.init(
      receiveSubscription: { box, subscription in
        unsafeDowncast(box, to: ClosureSubscriberBox.self).subscriptionHandler?(subscription)
      },
      receiveValue: { box, value in
        unsafeDowncast(box, to: ClosureSubscriberBox.self).valueHandler?(value) ?? .none
      },
      receiveCompletion: { box, completion in
        unsafeDowncast(box, to: ClosureSubscriberBox.self).completionHandler?(completion)
      })
  }
}

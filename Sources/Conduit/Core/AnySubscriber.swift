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
public struct AnySubscriber<Input, Failure: Error>: Subscriber, CustomStringConvertible,
  CustomReflectable, CustomPlaygroundDisplayConvertible
{
  /// The one function through which every call reaches what is wrapped. It is created where the
  /// wrapped type is known, so it runs specialized code, and it captures the wrapped subscriber:
  /// one allocation per erasure, one retain per copy, and a teardown that is specialized too (a
  /// box class generic over the subscriber would tear it down through the runtime's generic
  /// value witnesses, looking up metadata for every nested operator type). The argument points
  /// at the call's payload, of the type `ErasedSubscriberCall` names.
  @usableFromInline
  let call: (ErasedSubscriberCall, UnsafeMutableRawPointer) -> Subscribers.Demand

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
    call = { call, argument in
      switch call {
      case .subscription:
        s.receive(subscription: argument.assumingMemoryBound(to: (any Subscription).self).pointee)
      case .value:
        return s.receive(argument.assumingMemoryBound(to: Input.self).pointee)
      case .completion:
        s.receive(completion: argument.assumingMemoryBound(to: Subscribers.Completion<Failure>.self).pointee)
      case .inspect, .reflect:
        argument.assumingMemoryBound(to: Any?.self).pointee = s
      }
      return .none
    }
  }

  /// Creates a type-erasing subscriber that forwards values and completion to a subject.
  ///
  /// The subject receives the first subscription through `send(subscription:)`, then the values
  /// and the completion; as in Combine, a later subscription does not reach it (it is
  /// cancelled), nor does anything after the completion.
  @inlinable
  public init<S: Subject>(_ s: S) where S.Output == Input, S.Failure == Failure {
    combineIdentifier = CombineIdentifier(s)
    let relay = SubjectSubscriber(s)
    call = { call, argument in
      switch call {
      case .subscription:
        relay.receive(subscription: argument.assumingMemoryBound(to: (any Subscription).self).pointee)
      case .value:
        return relay.receive(argument.assumingMemoryBound(to: Input.self).pointee)
      case .completion:
        relay.receive(completion: argument.assumingMemoryBound(to: Subscribers.Completion<Failure>.self).pointee)
      case .inspect:
        argument.assumingMemoryBound(to: Any?.self).pointee = s
      case .reflect:
        argument.assumingMemoryBound(to: Any?.self).pointee = relay
      }
      return .none
    }
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
    call = { call, argument in
      switch call {
      case .subscription:
        receiveSubscription?(argument.assumingMemoryBound(to: (any Subscription).self).pointee)
      case .value:
        return receiveValue?(argument.assumingMemoryBound(to: Input.self).pointee) ?? .none
      case .completion:
        receiveCompletion?(argument.assumingMemoryBound(to: Subscribers.Completion<Failure>.self).pointee)
      case .inspect, .reflect:
        argument.assumingMemoryBound(to: Any?.self).pointee = nil
      }
      return .none
    }
  }

  /// The wrapped subscriber or subject; `nil` for closures.
  @usableFromInline
  var wrapped: Any? { answer(.inspect) }

  /// What the mirror shows: the wrapped subscriber, the relay that feeds a wrapped subject, or
  /// `nil` for closures.
  var reflected: Any? { answer(.reflect) }

  private func answer(_ question: ErasedSubscriberCall) -> Any? {
    var answer: Any?
    _ = withUnsafeMutablePointer(to: &answer) { call(question, $0) }
    return answer
  }

  /// The wrapped subscriber's mirror (the relay's for a subject); for closures, the mirror of
  /// the description, as in Combine.
  public var customMirror: Mirror {
    guard let reflected else { return Mirror(reflecting: description) }
    return (reflected as? any CustomReflectable)?.customMirror ?? Mirror(reflecting: reflected)
  }

  /// The wrapped subscriber's playground description, or the description.
  public var playgroundDescription: Any {
    (wrapped as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription ?? description
  }

  /// A textual representation of this instance.
  public var description: String {
    guard let wrapped else { return "Anonymous AnySubscriber" }
    if wrapped is any Subject { return "Subject" }
    if let described = wrapped as? any CustomStringConvertible { return described.description }
    return String(describing: type(of: wrapped))
  }

  /// Receives the subscription from the upstream publisher.
  @inlinable
  public func receive(subscription: any Subscription) {
    var subscription = subscription
    _ = withUnsafeMutablePointer(to: &subscription) { call(.subscription, $0) }
  }

  /// Receives a value from the upstream publisher and returns the additional demand.
  @inlinable
  public func receive(_ value: Input) -> Subscribers.Demand {
    var value = value
    return withUnsafeMutablePointer(to: &value) { call(.value, $0) }
  }

  /// Receives the completion from the upstream publisher.
  @inlinable
  public func receive(completion: Subscribers.Completion<Failure>) {
    var completion = completion
    _ = withUnsafeMutablePointer(to: &completion) { call(.completion, $0) }
  }
}

extension AnySubscriber: CensusTransparent {
  @usableFromInline
  package var censusWrapped: Any? { wrapped }
}

/// What a call into an `AnySubscriber`'s wrapped subscriber is, and so what its argument
/// points at.
@usableFromInline
enum ErasedSubscriberCall {
  /// `any Subscription`.
  case subscription
  /// `Input`.
  case value
  /// `Subscribers.Completion<Failure>`.
  case completion
  /// An `Any?` that receives the wrapped subscriber or subject.
  case inspect
  /// An `Any?` that receives what the mirror reflects.
  case reflect
}

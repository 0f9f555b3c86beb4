import Synchronization

/// Declares that a type can transmit a sequence of values over time.
///
/// A publisher delivers elements to one or more ``Subscriber`` instances. The subscriber's `Input`
/// and `Failure` must match the publisher's `Output` and `Failure`.
///
/// ```swift
/// let cancellable = [1, 2, 3].publisher
///     .sink { print($0) }
/// ```
public protocol Publisher<Output, Failure> {
  /// The kind of values published by this publisher.
  associatedtype Output

  /// The kind of errors this publisher might publish. Use `Never` if it cannot fail.
  associatedtype Failure: Error

  /// Attaches the specified subscriber to this publisher.
  ///
  /// Implementations must call `receive(subscription:)` on the subscriber exactly once.
  /// Call ``subscribe(_:)-(Subscriber)`` instead of this method to attach a subscriber.
  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure
}

extension Publisher {
  /// Attaches the specified subscriber to this publisher.
  ///
  /// ```swift
  /// Just(1).subscribe(mySubscriber)
  /// ```
  @inlinable @inline(__always)
  public func subscribe<S: Subscriber>(_ subscriber: S)
  where S.Input == Output, S.Failure == Failure {
    receive(subscriber: subscriber)
  }

  /// Attaches the specified subject to this publisher: the subject re-publishes every value and
  /// the completion.
  ///
  /// ```swift
  /// let relay = PassthroughSubject<Int, Never>()
  /// let cancellable = [1, 2].publisher.subscribe(relay)
  /// ```
  /// - Returns: A cancellable that ends the subject's subscription to this publisher.
  @inlinable
  public func subscribe<S: Subject>(_ subject: S) -> AnyCancellable
  where S.Output == Output, S.Failure == Failure {
    let subscriber = SubjectSubscriber(subject)
    receive(subscriber: subscriber)
    return AnyCancellable(subscriber)
  }
}

/// Forwards everything it receives to a subject, and lets the caller cancel the subscription.
@usableFromInline
final class SubjectSubscriber<Downstream: Subject>: Subscriber, Cancellable, CustomStringConvertible,
  @unchecked Sendable
{
  @usableFromInline
  typealias Input = Downstream.Output
  @usableFromInline
  typealias Failure = Downstream.Failure

  // Plain fields rather than an enum with payloads: a value goes through with one read of
  // `subject`, instead of a copy of an enum that holds a subscription existential.
  @usableFromInline
  struct State {
    /// `nil` once the relay completed or was cancelled.
    @usableFromInline
    var subject: Downstream?
    @usableFromInline
    var upstream: (any Subscription)?
    @usableFromInline
    var subscribed = false

    @inlinable
    init(subject: Downstream) {
      self.subject = subject
    }
  }

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
  @usableFromInline
  let census: CensusToken

  @inlinable
  init(_ subject: Downstream) {
    census = CensusToken(SubjectSubscriber.self)
    state = Locked(State(subject: subject))
  }

  @usableFromInline
  var description: String { "Subject" }

  @inlinable
  func receive(subscription: any Subscription) {
    let subject: Downstream? = state.withLock { state in
      guard !state.subscribed, let subject = state.subject else { return nil }
      state.subscribed = true
      state.upstream = subscription
      return subject
    }
    guard let subject else {
      subscription.cancel()
      return
    }
    subject.send(subscription: subscription)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    let subject: Downstream? = state.withLock { state in state.subscribed ? state.subject : nil }
    subject?.send(input)
    return .none
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>) {
    let subject: Downstream? = state.withLock { state in
      defer {
        state.subject = nil
        state.upstream = nil
      }
      return state.subscribed ? state.subject : nil
    }
    subject?.send(completion: completion)
  }

  @usableFromInline
  func cancel() {
    let subscribed: (Downstream, any Subscription)? = state.withLock { state in
      defer {
        state.subject = nil
        state.upstream = nil
      }
      guard state.subscribed, let subject = state.subject, let upstream = state.upstream else { return nil }
      return (subject, upstream)
    }
    guard let (subject, subscription) = subscribed else { return }
    subscription.cancel()
    // Conduit's subjects keep their upstream subscriptions; a relay subscribed and cancelled over
    // and over must not accumulate dead ones.
    (subject as? any UpstreamForgetting)?.forgetUpstream(subscription.combineIdentifier)
  }
}

/// A subject that can let go of an upstream subscription cancelled through
/// `Publisher.subscribe(_:)`'s token.
@usableFromInline
protocol UpstreamForgetting: AnyObject {
  func forgetUpstream(_ identifier: CombineIdentifier)
}

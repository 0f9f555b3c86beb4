import Synchronization

extension Publishers {
  /// A publisher that uses a subject to deliver elements to multiple subscribers.
  ///
  /// The subject is created once, lazily, on the first subscription or connection. Subscribers
  /// attach to the subject; values flow from upstream only after ``connect()``.
  ///
  /// ```swift
  /// let multicast = expensiveRequest.multicast { PassthroughSubject<Data, Error>() }
  /// let a = multicast.sink(receiveCompletion: { _ in }, receiveValue: { print("a", $0) })
  /// let b = multicast.sink(receiveCompletion: { _ in }, receiveValue: { print("b", $0) })
  /// let connection = multicast.connect()   // one upstream subscription, two subscribers
  /// ```
  public final class Multicast<Upstream: Publisher, SubjectType: Subject>: ConnectablePublisher
  where Upstream.Output == SubjectType.Output, Upstream.Failure == SubjectType.Failure {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher that this publisher receives elements from.
    public let upstream: Upstream

    /// A closure to create the subject: it is called once, lazily, on the first subscription or
    /// connection, as in Combine.
    public let createSubject: () -> SubjectType

    // Guarded by its own lock. The lock is held while `createSubject` runs, the one exception to
    // "never call out while holding a lock": it is what makes the subject exist exactly once.
    @usableFromInline
    let lazySubject = Locked<SubjectType?>(nil)

    /// Creates a multicast publisher that applies a closure to create a subject that delivers
    /// elements to subscribers.
    @inlinable
    public init(upstream: Upstream, createSubject: @escaping () -> SubjectType) {
      self.upstream = upstream
      self.createSubject = createSubject
    }

    @usableFromInline
    var subject: SubjectType {
      lazySubject.withLock { stored in
        if let subject = stored { return subject }
        let subject = createSubject()
        stored = subject
        return subject
      }
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    ///
    /// The subscriber's subscription is the multicast's own ("Multicast", as in Combine), which
    /// wraps the subject's.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      subject.receive(subscriber: MulticastInner(downstream: subscriber))
    }

    /// Connects the subject to the upstream publisher; cancel the result to disconnect.
    @inlinable
    public func connect() -> any Cancellable {
      upstream.subscribe(subject)
    }
  }
}

// Sendable only when the upstream, the subject and the values are: subscribers on any thread share
// the subject, and the upstream's values reach them through it. `@unchecked` for `createSubject`,
// which is not `@Sendable` (its type is Combine's): it runs once, under `lazySubject`'s lock, on
// the thread that subscribes or connects first, and the subject it makes is guarded by that lock.
extension Publishers.Multicast: @unchecked Sendable
where Upstream: Sendable, SubjectType: Sendable, Upstream.Output: Sendable {}

extension Publisher {
  /// Applies a closure to create a subject that delivers elements to subscribers.
  ///
  /// ```swift
  /// let multicast = publisher.multicast { PassthroughSubject<Int, Never>() }
  /// ```
  @inlinable
  public func multicast<S: Subject>(_ createSubject: @escaping () -> S) -> Publishers.Multicast<Self, S>
  where Failure == S.Failure, Output == S.Output {
    Publishers.Multicast(upstream: self, createSubject: createSubject)
  }

  /// Provides a subject to deliver elements to multiple subscribers.
  ///
  /// With a `CurrentValueSubject`, late subscribers receive the latest value.
  ///
  /// ```swift
  /// let latest = publisher.multicast(subject: CurrentValueSubject<Int, Never>(0))
  /// ```
  @inlinable
  public func multicast<S: Subject>(subject: S) -> Publishers.Multicast<Self, S>
  where Failure == S.Failure, Output == S.Output {
    Publishers.Multicast(upstream: self) { subject }
  }
}

/// The subscription a multicast's subscriber sees, wrapping the subject's: described and shown in
/// playgrounds as "Multicast", reflected with no children, as in Combine.
///
/// Until the subject's subscription arrives, and after the completion or a cancel, the
/// subscriber gets nothing: values and completions are dropped, requests are not passed on. A
/// second subscription is cancelled. Requests are passed on as they come, `.none` included.
/// It holds the subject's subscription only, until the end; not the subscriber.
@usableFromInline
final class MulticastSubscription: Subscription, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible, CensusScoped
{
  /// `phase` before the subject's subscription arrives.
  @inlinable
  static var awaitingSubscription: Int { 0 }
  /// `phase` while the subscriber gets what the subject sends.
  @inlinable
  static var subscribed: Int { 1 }
  /// `phase` once the subscription has completed or been cancelled.
  @inlinable
  static var ended: Int { 2 }

  // Changed only under `subjectSubscription`'s lock; read without it for each value.
  @usableFromInline
  let phase = Atomic<Int>(0)
  // Guarded by its own lock: the subject's subscription while subscribed.
  @usableFromInline
  let subjectSubscription = Locked<(any Subscription)?>(nil)
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var description: String { "Multicast" }
  @usableFromInline
  var playgroundDescription: Any { description }
  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: [:]) }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @usableFromInline
  init(inheritingFrom downstream: Any) {
    census = CensusToken(MulticastSubscription.self, inheritingFrom: downstream)
  }

  /// Takes the subject's subscription; `false` for a second one, or after a cancel.
  @usableFromInline
  func attach(_ subscription: any Subscription) -> Bool {
    subjectSubscription.withLock { stored in
      guard phase.load(ordering: .relaxed) == Self.awaitingSubscription else { return false }
      stored = subscription
      phase.store(Self.subscribed, ordering: .releasing)
      return true
    }
  }

  /// Ends the subscription as it completes; `false` if it was not subscribed.
  @usableFromInline
  func finish() -> Bool {
    // The subject's subscription leaves after the lock.
    let (finished, subscription) = subjectSubscription.withLock { stored -> (Bool, (any Subscription)?) in
      defer { stored = nil }
      let wasSubscribed = phase.load(ordering: .relaxed) == Self.subscribed
      if wasSubscribed { phase.store(Self.ended, ordering: .releasing) }
      return (wasSubscribed, stored)
    }
    withExtendedLifetime(subscription) {}
    return finished
  }

  @usableFromInline
  func request(_ demand: Subscribers.Demand) {
    subjectSubscription.withLock { $0 }?.request(demand)
  }

  @usableFromInline
  func cancel() {
    let subscription = subjectSubscription.withLock { stored -> (any Subscription)? in
      guard phase.load(ordering: .relaxed) == Self.subscribed else { return nil }
      defer { stored = nil }
      phase.store(Self.ended, ordering: .releasing)
      return stored
    }
    subscription?.cancel()
  }
}

/// Subscribes to a multicast's subject on behalf of one subscriber. Values go straight through
/// while its `MulticastSubscription` is subscribed; demand the subscriber returns is requested
/// from the subject's subscription, as in Combine, rather than returned.
///
/// Generic over its downstream alone, as an operator that passes on the values and errors it
/// receives can be (see `OperatorLink`).
@usableFromInline
struct MulticastInner<Downstream: Subscriber>: Subscriber, CustomStringConvertible {
  @usableFromInline
  typealias Input = Downstream.Input
  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  let subscription: MulticastSubscription
  @usableFromInline
  let downstream: Downstream

  @inlinable
  init(downstream: Downstream) {
    self.subscription = MulticastSubscription(inheritingFrom: downstream)
    self.downstream = downstream
  }

  @usableFromInline
  var description: String { "Multicast" }

  @usableFromInline
  var combineIdentifier: CombineIdentifier { CombineIdentifier(subscription) }

  @usableFromInline
  func receive(subscription: any Subscription) {
    guard self.subscription.attach(subscription) else {
      subscription.cancel()
      return
    }
    downstream.receive(subscription: self.subscription)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    guard subscription.phase.load(ordering: .acquiring) == MulticastSubscription.subscribed else { return .none }
    let more = downstream.receive(input)
    if more != .none { subscription.request(more) }
    return .none
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    guard subscription.finish() else { return }
    downstream.receive(completion: completion)
  }
}

extension MulticastInner: CensusTransparent {
  /// What is created on this subscriber's behalf joins the census scope of its downstream.
  @usableFromInline
  var censusWrapped: Any? { downstream }
}

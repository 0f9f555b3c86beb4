import Conduit
import Foundation

extension NotificationCenter {
  /// A publisher that emits the notifications a notification center posts for a name (and,
  /// optionally, an object).
  ///
  /// Each subscription adds one observer to the center, before the subscriber receives its
  /// subscription, and removes it when cancelled. A notification is delivered only against
  /// demand: one posted while the subscriber has none outstanding is dropped, not kept for
  /// later, as in Combine.
  ///
  /// ```swift
  /// let settingsChanged = Notification.Name("SettingsChanged")
  /// let token = NotificationCenter.Publisher(center: .default, name: settingsChanged)
  ///   .sink { notification in print("settings changed:", notification.userInfo ?? [:]) }
  /// ```
  ///
  /// Where Conduit goes beyond Combine, or departs from it:
  /// - A notification posted while this subscriber is still receiving another (from another
  ///   thread, or from inside `receive(_:)`) is not delivered nested or in parallel: the thread
  ///   already delivering delivers it next, in order, and the posting thread returns at once.
  ///   Combine makes the posting thread wait, and delivers a post made from inside `receive(_:)`
  ///   nested in that call.
  /// - A subscription that goes away without being cancelled removes its observer too, so the
  ///   center keeps no observer for it.
  public struct Publisher: Conduit.Publisher {
    /// The kind of values published by this publisher: the notifications posted.
    public typealias Output = Notification
    /// The kind of errors this publisher might publish: it never fails.
    public typealias Failure = Never

    /// The notification center this publisher uses as a source.
    public let center: NotificationCenter
    /// The name of the notifications published.
    public let name: Notification.Name
    /// The object posting the named notification; `nil` publishes them whoever posts them.
    public let object: AnyObject?

    /// Creates a publisher that emits the notifications `center` posts for `name` and `object`.
    ///
    /// - Parameters:
    ///   - center: The notification center to publish notifications for.
    ///   - name: The name of the notification to publish.
    ///   - object: The object posting the named notification; `nil`, the default, publishes the
    ///     notifications whatever object posts them.
    public init(center: NotificationCenter, name: Notification.Name, object: AnyObject? = nil) {
      self.center = center
      self.name = name
      self.object = object
    }

    /// Adds an observer for the subscriber to the center, then gives the subscriber its
    /// subscription.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Notification, S.Failure == Never {
      NotificationObservation.start(self, for: subscriber)
    }
  }

  /// Returns a publisher that emits the notifications this center posts for a name and,
  /// optionally, an object.
  ///
  /// ```swift
  /// let saved = Notification.Name("DocumentSaved")
  /// let token = NotificationCenter.default.publisher(for: saved, object: document)
  ///   .map { $0.userInfo?["path"] as? String }
  ///   .sink { path in print("saved to", path ?? "?") }
  /// ```
  ///
  /// Notifications posted while the subscriber has no demand outstanding are dropped, as in
  /// Combine; see ``Publisher``.
  ///
  /// - Parameters:
  ///   - name: The name of the notification to publish.
  ///   - object: The object posting the named notification; `nil`, the default, publishes the
  ///     notifications whatever object posts them.
  /// - Returns: A publisher that emits the notifications this center posts.
  public func publisher(for name: Notification.Name, object: AnyObject? = nil) -> NotificationCenter.Publisher {
    Publisher(center: self, name: name, object: object)
  }
}

extension NotificationCenter.Publisher: Equatable {
  /// Whether two publishers use the same center and name, and the identical object.
  public static func == (lhs: NotificationCenter.Publisher, rhs: NotificationCenter.Publisher) -> Bool {
    lhs.center == rhs.center && lhs.name == rhs.name && lhs.object === rhs.object
  }
}

/// One subscriber's subscription to a `NotificationCenter.Publisher`: what the subscriber holds.
/// It holds the observation, and ends it when cancelled or when it goes away uncancelled, so that
/// the subscriber decides how long the center's observer lives.
private final class NotificationSubscription: Subscription, CensusScoped, CustomStringConvertible, Sendable {
  private let observation: NotificationObservation
  private let census: CensusToken

  var censusScope: CensusScope? { census.scope }

  var description: String { "NotificationCenter Observer" }

  init(observation: NotificationObservation) {
    census = CensusToken(NotificationSubscription.self, inheritingFrom: observation)
    self.observation = observation
  }

  deinit {
    observation.end()
  }

  func request(_ demand: Subscribers.Demand) {
    observation.request(demand)
  }

  func cancel() {
    observation.end()
  }
}

/// The observer a subscription adds to its center, and the subscriber it delivers to: what the
/// center's observer block holds, strongly, until the observer is removed. No weak reference
/// leads to it: one would move its reference count to a side table, and make each of the
/// retains and releases a post makes several times slower. The census counts it, so a leak
/// check sees an observer left in the center.
///
/// Not generic over the subscriber: this module's generic code is not specialized for the
/// subscribers of another, and a post would look up the metadata of each generic type it meets.
/// The subscriber is held as an existential instead, called through its witness table, in a box
/// that is retained, not copied, to be handed to the delivering thread.
private final class NotificationObservation: CensusScoped, @unchecked Sendable {
  typealias Downstream = DownstreamBox<any Subscriber<Notification, Never>>

  // Guarded by its own lock.
  private let machine: Locked<NotificationSubscriptionStateMachine<Downstream, NotificationObserver>>
  private let census: CensusToken

  var censusScope: CensusScope? { census.scope }

  init(downstream: any Subscriber<Notification, Never>) {
    census = CensusToken(NotificationObservation.self, inheritingFrom: downstream)
    machine = Locked(NotificationSubscriptionStateMachine(downstream: DownstreamBox(downstream)))
  }

  /// Adds the observer, gives the subscriber its subscription, holding delivery until it
  /// returns, then delivers what came meanwhile.
  static func start(_ publisher: NotificationCenter.Publisher, for downstream: any Subscriber<Notification, Never>) {
    let observation = NotificationObservation(downstream: downstream)
    let token = publisher.center.addObserver(forName: publisher.name, object: publisher.object, queue: nil) {
      notification in
      observation.receive(notification)
    }
    let observer = NotificationObserver(center: publisher.center, token: token)
    observation.machine.withLock { $0.observe(observer) }
    downstream.receive(subscription: NotificationSubscription(observation: observation))
    observation.drain(observation.machine.withLock { $0.startDraining() })
  }

  func receive(_ notification: Notification) {
    drain(machine.withLock { $0.post(notification) })
  }

  // Notifications are counted against demand as they are posted, so new demand frees none that
  // wait: there is nothing to deliver here.
  func request(_ demand: Subscribers.Demand) {
    machine.withLock { $0.request(demand) }
  }

  func end() {
    let ended = machine.withLock { $0.cancel() }
    // The observer goes first, then the subscriber, both after the lock: the subscriber's deinit
    // may cancel again.
    ended?.observer?.remove()
    withExtendedLifetime(ended) {}
  }

  /// Delivers while this thread owns delivery: each notification, then the demand it returned.
  ///
  /// The owner's loop of `DeliveryOwnership`, written out rather than `Locked.drain`: the first
  /// delivery is decided in the post's own critical section, so a post takes the lock twice, not
  /// three times.
  private func drain(_ first: NotificationDelivery<Downstream>) {
    var next = first
    while case .deliver(let downstream, let notification) = next {
      let additional = downstream.downstream.receive(notification)
      next = machine.withLock { $0.delivered(additional: additional) }
    }
  }
}

/// The observer a subscription added to its center, removed once.
private struct NotificationObserver {
  let center: NotificationCenter
  let token: any NSObjectProtocol

  func remove() {
    center.removeObserver(token)
  }
}

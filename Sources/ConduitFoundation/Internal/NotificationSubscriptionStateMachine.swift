import Conduit
import Foundation

/// The decisions of one subscriber's subscription to a `NotificationCenter.Publisher`.
///
/// A notification is counted against demand when it is posted: one that finds none is dropped,
/// as in Combine. One that finds demand but another delivery under way (posted from another
/// thread, or from inside `receive(_:)`) waits in order for the thread that owns delivery
/// (`DeliveryOwnership`), so calls into the subscriber never overlap or nest, and nothing counted
/// is lost. The thread that subscribes owns delivery from the start, until the subscriber has
/// received its subscription.
///
/// `Observer` is what removes the center's observer: generic, so that the machine is tested
/// without a center.
struct NotificationSubscriptionStateMachine<Downstream, Observer> {
  /// Whether the subscription is live. The rest of the state is kept beside the phase, not in
  /// it, so that a post updates it in place instead of moving it out of an enum and back (a
  /// retain and a release of every reference it holds, twice per post).
  enum Phase {
    case active
    /// Cancelled: nothing more goes down, and the owner of delivery keeps it for good.
    case terminal
  }

  /// What a cancel lets go of, for the caller to release after the lock.
  struct Ended {
    let downstream: Downstream?
    let observer: Observer?
    let waiting: ValueQueue<Notification>
  }

  private(set) var phase = Phase.active
  /// The subscriber, until the subscription ends.
  private(set) var downstream: Downstream?
  private var observer: Observer?
  private var demand = Subscribers.Demand.none
  private var waiting = ValueQueue<Notification>()
  private var delivery = DeliveryOwnership(claimed: true)

  init(downstream: Downstream) {
    self.downstream = downstream
  }

  /// The center's observer was added, before the subscriber received its subscription: so
  /// before anything could cancel it.
  mutating func observe(_ observer: Observer) {
    self.observer = observer
  }

  /// The subscriber has received its subscription: the subscribing thread delivers what waits,
  /// or gives delivery back.
  mutating func startDraining() -> NotificationDelivery<Downstream> {
    next()
  }

  /// The center posted a notification.
  mutating func post(_ notification: Notification) -> NotificationDelivery<Downstream> {
    guard case .active = phase, demand > .none, let downstream else { return .none }
    demand -= 1
    guard delivery.claim() else {
      waiting.append(notification)
      return .none
    }
    return .deliver(downstream, notification)
  }

  /// The subscriber requested `demand` more. `.none` is accepted, as in Combine.
  mutating func request(_ demand: Subscribers.Demand) {
    guard case .active = phase else { return }
    self.demand += demand
  }

  /// The owner of delivery delivered one notification, and the subscriber asked for
  /// `additional` more: what it delivers next.
  mutating func delivered(additional: Subscribers.Demand) -> NotificationDelivery<Downstream> {
    guard case .active = phase else { return .none }
    demand += additional
    return next()
  }

  /// The subscriber cancelled, or let go of its subscription: what the subscription lets go of,
  /// or `nil` when it had ended.
  mutating func cancel() -> Ended? {
    guard case .active = phase else { return nil }
    phase = .terminal
    defer {
      downstream = nil
      observer = nil
      waiting = ValueQueue()
    }
    return Ended(downstream: downstream, observer: observer, waiting: waiting)
  }

  /// The next waiting notification for the owner of delivery, or, when none waits, delivery
  /// given back in the same critical section.
  private mutating func next() -> NotificationDelivery<Downstream> {
    guard case .active = phase, let downstream else { return .none }
    guard let notification = waiting.popFirst() else {
      delivery.giveBack()
      return .none
    }
    return .deliver(downstream, notification)
  }
}

/// What the thread that asked a notification subscription's machine does after the lock.
enum NotificationDelivery<Downstream> {
  /// Nothing: the notification was dropped or left for the owner of delivery, or nothing waits.
  case none
  /// Deliver this notification to this subscriber, then report back with `delivered`.
  case deliver(Downstream, Notification)
}

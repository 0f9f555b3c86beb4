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
  struct Active {
    var downstream: Downstream
    var observer: Observer?
    var demand: Subscribers.Demand
    var waiting: ValueQueue<Notification>
    var delivery: DeliveryOwnership
  }

  /// What a cancel lets go of, for the caller to release after the lock.
  struct Ended {
    let downstream: Downstream
    let observer: Observer?
    let waiting: ValueQueue<Notification>
  }

  enum State {
    case active(Active)
    case terminal
  }

  private(set) var state: State

  init(downstream: Downstream) {
    state = .active(
      Active(
        downstream: downstream, observer: nil, demand: .none, waiting: ValueQueue(),
        delivery: DeliveryOwnership(claimed: true)))
  }

  /// The subscriber, until the subscription ends.
  var downstream: Downstream? {
    guard case .active(let active) = state else { return nil }
    return active.downstream
  }

  /// The center's observer was added: keeps it, or hands it back to be removed when the
  /// subscription has ended already.
  mutating func observe(_ observer: Observer) -> Observer? {
    let kept: Bool? = modifyActive { active in
      active.observer = observer
      return true
    }
    return kept == nil ? observer : nil
  }

  /// Takes the observer, if the subscription still has it: the subscription went away.
  mutating func takeObserver() -> Observer? {
    let taken: Observer?? = modifyActive { active in
      defer { active.observer = nil }
      return active.observer
    }
    return taken ?? nil
  }

  /// The subscriber has received its subscription: the subscribing thread delivers what waits,
  /// or gives delivery back.
  mutating func startDraining() -> NotificationDelivery<Downstream> {
    modifyActive { $0.next() } ?? .none
  }

  /// The center posted a notification.
  mutating func post(_ notification: Notification) -> NotificationDelivery<Downstream> {
    modifyActive { active in
      guard active.demand > .none else { return .none }
      active.demand -= 1
      guard active.delivery.claim() else {
        active.waiting.append(notification)
        return .none
      }
      return .deliver(active.downstream, notification)
    } ?? .none
  }

  /// The subscriber requested `demand` more. `.none` is accepted, as in Combine.
  mutating func request(_ demand: Subscribers.Demand) {
    modifyActive { $0.demand += demand }
  }

  /// The owner of delivery delivered one notification, and the subscriber asked for
  /// `additional` more: what it delivers next.
  mutating func delivered(additional: Subscribers.Demand) -> NotificationDelivery<Downstream> {
    modifyActive { active in
      active.demand += additional
      return active.next()
    } ?? .none
  }

  /// The subscriber cancelled: what the subscription lets go of, or `nil` when it had ended.
  mutating func cancel() -> Ended? {
    guard case .active(let active) = state else { return nil }
    state = .terminal
    return Ended(downstream: active.downstream, observer: active.observer, waiting: active.waiting)
  }

  /// Runs `body` on the active state, moved out of the enum so that its queue is not copied;
  /// `nil` once the subscription has ended.
  private mutating func modifyActive<Result>(_ body: (inout Active) -> Result) -> Result? {
    guard case .active(var active) = state else { return nil }
    state = .terminal
    defer { state = .active(active) }
    return body(&active)
  }
}

extension NotificationSubscriptionStateMachine.Active {
  /// The next waiting notification for the owner of delivery, or, when none waits, delivery
  /// given back in the same critical section.
  fileprivate mutating func next() -> NotificationDelivery<Downstream> {
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

import Dispatch
import Synchronization

/// The vocabulary of subjects' delivery (see `SubjectCore`): what a thread must do after it
/// changed a subject's state, the states of handing delivery over, how long a sender waits to take
/// over, and whether the current thread is delivering.
@usableFromInline
enum SubjectDelivery {
  /// Queued events an owner delivers before it offers to hand over.
  @usableFromInline static let successionThreshold = 16
  /// How long a sender waits for an owner to finish the event in hand.
  @usableFromInline static let successionPatience = DispatchTimeInterval.milliseconds(10)

  @TaskLocal static var delivering = false

  /// Whether this thread is delivering queued events for a subject.
  @usableFromInline
  static var isDelivering: Bool { delivering }

  /// Runs `body`, during which `isDelivering` is true on this thread.
  @usableFromInline
  static func whileDelivering(_ body: () -> Void) {
    $delivering.withValue(true, operation: body)
  }

  /// What a thread that changed a subject's state must do about the event it made; see
  /// `SubjectCore.claim`.
  @usableFromInline
  enum Claim {
    /// It owns delivery: it handles the event, then lets go.
    case deliver
    /// It queued the event and found nobody owning delivery: it delivers the queue.
    case drain
    /// It queued the event for the owner.
    case queued
    /// There is no event (the subject had completed).
    case nothing
  }

  /// The states of `SubjectCore.succession`.
  @usableFromInline
  enum Succession {
    /// No owner offers to hand over.
    @usableFromInline static let none = 0
    /// The owner has delivered enough queued events and will hand over to a thread that claims.
    @usableFromInline static let offered = 1
    /// A thread waits to take over at the owner's next event.
    @usableFromInline static let claimed = 2
    /// The owner has let go; the thread that claimed owns delivery.
    @usableFromInline static let handedOver = 3
  }
}

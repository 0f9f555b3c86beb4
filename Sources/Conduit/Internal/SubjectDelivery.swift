import Dispatch
import Synchronization

/// What subjects' delivery knows of the current thread, and how long a sender waits to take over.
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
}

import Dispatch
import Synchronization

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

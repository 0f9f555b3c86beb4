import Dispatch
import Synchronization

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

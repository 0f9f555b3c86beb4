import Synchronization

/// What a `SingleValueSubscription` sends.
@usableFromInline
enum SingleValueEvent {
  case value
  case finished
  /// Copies the value into the pointee, for the subscription's mirror.
  case reflect(UnsafeMutablePointer<Any?>)
}

import Synchronization

/// What a ``FallibleInner`` shows in its `customMirror`, for its step to choose from: Combine's
/// subscriptions of the operators show different parts of themselves.
@usableFromInline
struct FallibleReflection {
  /// The subscriber, or `nil` once let go of.
  @usableFromInline
  let downstream: Any
  /// Whether the stream has ended.
  @usableFromInline
  let finished: Bool
  /// The phase's name: `awaitingSubscription`, `subscribed` or `terminal`.
  @usableFromInline
  let status: String
  /// Upstream's subscription, or `nil` before it arrives.
  @usableFromInline
  let upstream: Any

  @inlinable
  init(downstream: Any, finished: Bool, status: String, upstream: Any) {
    self.downstream = downstream
    self.finished = finished
    self.status = status
    self.upstream = upstream
  }
}

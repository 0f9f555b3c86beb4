/// What a subject's lock guards (see `SubjectCore`).
///
/// Neither it nor any other stored property of the core has a type built from `Output` or
/// `Failure` (the queue's array and the current-value subclass's `Output` aside; nesting this
/// struct in the core would make it generic too). The core's teardown and its unspecialized
/// methods then look up no runtime metadata, which would otherwise cost more than the rest of a
/// short-lived subject's life.
@usableFromInline
struct SubjectState {
  /// The completion, from the moment it was sent (the owner of delivery may not have delivered
  /// it yet).
  @usableFromInline
  var completion = PendingCompletion.none
  @usableFromInline
  var upstreams: [any Subscription] = []

  @inlinable
  init() {}
}

/// The engine of a `CurrentValueSubject`: a `SubjectCore` that also holds the current value.
///
/// A subclass, so that a passthrough subject carries no value, and the value is stored as
/// `Output` itself rather than in a type built from it (see `SubjectState`). `PublishedSubject`,
/// the engine of an `@Published` property, is its one subclass.
@usableFromInline
class CurrentValueSubjectCore<Output, Failure: Error>: SubjectCore<Output, Failure>, @unchecked Sendable {
  // Fields with unchecked exclusivity skip the runtime check, which costs in "CurrentValueSubject.send, 1 sink".
  // Guarded by `state`'s lock: the subject's value, which it keeps after completion.
  @usableFromInline @exclusivity(unchecked)
  final var value: Output
  // Owned by the thread that owns delivery: the value broadcast last, which is the current value
  // in delivery order (values are claimed for delivery in the order they are set, so once the
  // queue is delivered it is `value`). A subscriber owed the current value gets this one, read
  // when its turn comes, so it can neither get a value it is about to get from a broadcast already
  // queued nor an older value after a newer one. Nothing is offered once the completion has been
  // delivered.
  @usableFromInline @exclusivity(unchecked)
  final var lastBroadcast: Output

  @inlinable
  convenience init(value: Output) {
    self.init(value: value, kind: .currentValue, subjectType: CurrentValueSubject<Output, Failure>.self)
  }

  @inlinable
  init(value: Output, kind: SubjectKind, subjectType: Any.Type) {
    self.value = value
    lastBroadcast = value
    super.init(kind: kind, subjectType: subjectType)
  }
}

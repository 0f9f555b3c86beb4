/// The engine of one `@Published` property: a current-value subject, as Combine's, that sets the
/// property's value once the new value has been offered to every subscriber (so a subscriber
/// that reads the property inside `receive(_:)` sees the old value, as in Combine), announces
/// each change to the enclosing object's `objectWillChange` before anyone sees it, and ignores
/// completions. `SubjectCore` does the delivery; `SubjectKind.published` tells it these rules.
///
/// It is a `Subject`, so that `assign(to:)` feeds it through the same relay as any subject; the
/// relay holds it weakly, so that what is assigned to a property lives as long as the property.
@usableFromInline
final class PublishedSubject<Value>: CurrentValueSubjectCore<Value, Never>, Subject, @unchecked Sendable {
  @usableFromInline
  typealias Output = Value
  @usableFromInline
  typealias Failure = Never

  // Set once, by the first read of the enclosing object's `objectWillChange`.
  @usableFromInline
  let announcer = AnnouncementSlot()

  @inlinable
  init(_ value: Value) {
    super.init(value: value, kind: .published, subjectType: PublishedSubject<Value>.self)
  }

  deinit {
    cancelUpstreams()
  }

  /// The property's value: the value offered last to the subscribers, once it has been offered
  /// to all of them.
  @inlinable
  var currentValue: Value {
    state.withLock { _ in value }
  }

  /// Called by the owner of delivery before it offers a new value.
  @inlinable
  func announceChange() {
    announcer.load()?.send()
  }
}

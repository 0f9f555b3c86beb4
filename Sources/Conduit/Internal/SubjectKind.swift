/// Which of Conduit's subjects a `SubjectCore` drives: what its subscribers get on joining,
/// whether demand limits them, and how their subscriptions describe themselves.
@usableFromInline
enum SubjectKind: UInt8, Sendable {
  /// `PassthroughSubject`: nothing on joining; values only while there is demand.
  case passthrough
  /// `CurrentValueSubject`: the current value with the first demand.
  case currentValue
  /// The subject behind an `@Published` property: a current-value subject whose value changes
  /// only once every subscriber has been offered the new one (so a subscriber reading the
  /// property sees the old value, as in Combine), that announces each change to the object's
  /// `objectWillChange` first, and that never completes.
  case published
  /// `ObservableObjectPublisher`: after a subscriber's first request, every signal reaches it,
  /// whatever its demand, as in Combine.
  case objectWillChange

  /// Whether a subscriber gets the current value with its first demand.
  @inlinable
  var tracksCurrentValue: Bool { self == .currentValue || self == .published }

  /// The subject's name, as its subscriptions describe themselves in Combine.
  @usableFromInline
  var subscriptionDescription: String {
    switch self {
    case .passthrough: "PassthroughSubject"
    case .currentValue: "CurrentValueSubject"
    case .published: "PublishedSubject"
    case .objectWillChange: "ObservableObjectPublisher"
    }
  }
}

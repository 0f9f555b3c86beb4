/// The publisher that an `ObservableObject` announces its changes with: it sends a signal, no
/// value, before each change.
///
/// As in Combine, a subscriber gets nothing before its first request, and then every signal,
/// whatever demand it asked for. `objectWillChange` of an object with `@Published` properties
/// returns one of these, the same one on every read.
///
/// ```swift
/// final class Settings: ObservableObject {
///   let objectWillChange = ObservableObjectPublisher()
///   var volume = 5 {
///     willSet { objectWillChange.send() }
///   }
/// }
/// ```
///
/// Safe to use from several threads: signals sent at once from several threads reach each
/// subscriber one at a time, never overlapping.
public final class ObservableObjectPublisher: Publisher, Sendable {
  /// The kind of values published by this publisher: none, only the signal.
  public typealias Output = Void
  /// This publisher never fails.
  public typealias Failure = Never

  // Thread-safe by itself.
  @usableFromInline
  let core = SubjectCore<Void, Never>(kind: .objectWillChange, subjectType: ObservableObjectPublisher.self)

  /// Creates a publisher with no subscribers.
  public init() {}

  /// Sends the signal to every subscriber that has made a request.
  @inlinable
  public func send() {
    core.send(())
  }

  /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
  @inlinable
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Void, S.Failure == Never {
    core.receive(subscriber: subscriber)
  }
}

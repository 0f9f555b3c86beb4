/// A type of object with a publisher that emits before the object has changed.
///
/// A class that conforms and declares no `objectWillChange` of its own gets one: an
/// `ObservableObjectPublisher`, the same on every read, which each of its `@Published`
/// properties (those it inherits included) sends before it changes. A class that declares its
/// own `objectWillChange` keeps it, and sends it itself: its `@Published` properties do not.
///
/// ```swift
/// final class Contact: ObservableObject {
///   @Published var name: String
///   @Published var age: Int
///   init(name: String, age: Int) {
///     self.name = name
///     self.age = age
///   }
/// }
/// let john = Contact(name: "John Appleseed", age: 24)
/// let cancellable = john.objectWillChange.sink { print("\(john.age) will change") }
/// john.age += 1  // prints "24 will change"
/// ```
///
/// As in Combine, an object does not forward the changes of the objects it holds: an
/// `ObservableObject` held in a `@Published` property announces its own changes, not the
/// holder's. Forward them by hand (`child.objectWillChange.sink { [weak self] in
/// self?.objectWillChange.send() }`) when the holder's subscribers must hear them.
public protocol ObservableObject: AnyObject {
  /// The type of publisher that emits before the object has changed.
  associatedtype ObjectWillChangePublisher: Publisher = ObservableObjectPublisher
  where ObjectWillChangePublisher.Failure == Never

  /// A publisher that emits before the object has changed.
  var objectWillChange: ObjectWillChangePublisher { get }
}

extension ObservableObject where ObjectWillChangePublisher == ObservableObjectPublisher {
  /// A publisher that emits before the object has changed: the same one on every read, shared by
  /// all of the object's `@Published` properties.
  ///
  /// The first read finds the object's `@Published` properties and gives them the publisher;
  /// changes made before it are announced to nobody, as in Combine. An object with no
  /// `@Published` property gets a publisher of its own too, kept for as long as the object lives,
  /// so that what it sends by hand reaches the subscribers.
  public var objectWillChange: ObservableObjectPublisher {
    PublishedFields.objectWillChange(of: self)
  }
}

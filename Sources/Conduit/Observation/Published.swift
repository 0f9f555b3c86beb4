/// A type that publishes a property marked with an attribute.
///
/// Mark a property of a class with `@Published`, and `$property` is a publisher of its values:
/// it sends the current value on subscription, then each new value, as a `CurrentValueSubject`
/// does. In an `ObservableObject`, setting the property first sends the object's
/// `objectWillChange`.
///
/// ```swift
/// final class Weather: ObservableObject {
///   @Published var temperature = 20.0
/// }
/// let weather = Weather()
/// let cancellable = weather.$temperature.sink { print($0) }  // 20.0
/// weather.temperature = 21                                    // 21.0
/// ```
///
/// As in Combine, the new value is published in the property's `willSet`: a subscriber that
/// reads the property while it receives a value still reads the old one. Use the value it
/// receives, or `receive(on:)` to read the property after the change.
///
/// `@Published` is for properties of classes: on a property of a struct it does not compile.
///
/// **Threads.** Beyond Combine, whose `@Published` must be set from one thread at a time, setting
/// the property from several threads at once is safe: the stored value never tears, every
/// subscriber receives the values in one and the same order, the property ends with the value
/// delivered last, and `objectWillChange` is sent before each change reaches anyone. A set made
/// while another thread is delivering a value returns once its own value is queued: the other
/// thread delivers it, and until then the property reads the value delivered before it. Values
/// set from inside a subscriber are delivered after the value it is receiving, not nested in it.
/// When two threads change *different* properties of one object at once, a subscriber of
/// `objectWillChange` that is slow to return may receive one property's announcement after
/// another subscriber of that property received its new value.
@propertyWrapper
public struct Published<Value> {
  // Immutable: one per property, for the life of the enclosing object.
  @usableFromInline
  let subject: PublishedSubject<Value>

  /// Creates the published property with an initial value; `@Published var x = value` calls it.
  @inlinable
  public init(wrappedValue: Value) {
    subject = PublishedSubject(wrappedValue)
  }

  /// Creates the published property with an initial value.
  ///
  /// ```swift
  /// init(volume: Int) { _volume = Published(initialValue: volume) }
  /// ```
  @inlinable
  public init(initialValue: Value) {
    self.init(wrappedValue: initialValue)
  }

  /// Unavailable: `@Published` is only for properties of classes.
  @available(*, unavailable, message: "@Published is only available on properties of classes")
  public var wrappedValue: Value {
    get { fatalError("@Published is only available on properties of classes") }
    set { fatalError("@Published is only available on properties of classes") }
  }

  /// The publisher of the property's values: `$property`.
  ///
  /// Assigning a publisher to it changes nothing, as in Combine; the setter exists so that
  /// `assign(to: &$property)` can take the property's publisher `inout`.
  public var projectedValue: Publisher {
    mutating get { Publisher(subject) }
    // swift-format-ignore: NoEmptyBlock
    set {}
  }

  /// The property's value, as the enclosing class reads and sets it: setting it announces the
  /// change to the class's `objectWillChange` (when it is an `ObservableObject` whose
  /// `objectWillChange` is the synthesized one), then publishes the new value, then stores it.
  ///
  /// The compiler calls this for a `@Published` property of a class; you rarely call it
  /// yourself.
  @inlinable
  public static subscript<EnclosingSelf: AnyObject>(
    _enclosingInstance object: EnclosingSelf,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
    storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Published<Value>>
  ) -> Value {
    // Always inlined, so that the key paths, literals at the call site, fold into a direct access
    // to the storage instead of a key-path projection at run time.
    @inline(__always) get { object[keyPath: storageKeyPath].subject.currentValue }
    @inline(__always) set { object[keyPath: storageKeyPath].subject.send(newValue) }
  }

  /// The publisher of a `@Published` property's values.
  ///
  /// It sends the property's value on subscription (with the first demand), then every new
  /// value while the subscriber has demand; a value sent without demand is dropped, and the
  /// subscriber receives the value current then with its next demand, as from a
  /// `CurrentValueSubject`. It never completes.
  ///
  /// ```swift
  /// let cancellable = weather.$temperature
  ///   .map { "\($0) °C" }
  ///   .sink { print($0) }
  /// ```
  public struct Publisher: Conduit.Publisher {
    /// The kind of values published by this publisher: the property's.
    public typealias Output = Value
    /// This publisher never fails.
    public typealias Failure = Never

    // Immutable: the property's subject.
    @usableFromInline
    let subject: PublishedSubject<Value>

    @inlinable
    init(_ subject: PublishedSubject<Value>) {
      self.subject = subject
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Value, S.Failure == Never {
      subject.receive(subscriber: subscriber)
    }
  }
}

extension Published.Publisher: Sendable where Value: Sendable {}

extension Publisher where Failure == Never {
  /// Republishes elements received from a publisher, by assigning them to a property marked as a
  /// publisher.
  ///
  /// The subscription returns no cancellable: it lives as long as the property, which does not
  /// hold the object it belongs to, so unlike `assign(to:on: self)` it makes no cycle. A
  /// completion of this publisher is ignored, as in Combine.
  ///
  /// ```swift
  /// final class Clock: ObservableObject {
  ///   @Published var now = 0
  ///   init(ticks: some Publisher<Int, Never>) {
  ///     ticks.assign(to: &$now)
  ///   }
  /// }
  /// ```
  @inlinable
  public func assign(to published: inout Published<Output>.Publisher) {
    subscribe(SubjectSubscriber(published.subject))
  }
}

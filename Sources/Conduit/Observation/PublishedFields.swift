@_spi(Reflection) import Swift
import Synchronization

/// Finds the `@Published` properties of an object, to give them its `objectWillChange`.
///
/// The properties are found once per class, from the runtime's field metadata (the class's and
/// its superclasses' stored properties, with their offsets), as Combine finds them; each read of
/// `objectWillChange` then costs a table lookup and two loads, not a reflection of the object.
/// The publisher lives in the properties' subjects, so it goes away with the object. An object
/// with no `@Published` property keeps its publisher in a side table, weakly keyed by the object.
enum PublishedFields {
  /// A `@Published` property of a class: where it is in the object, and its type, which can read
  /// and install the publisher there.
  struct Field: @unchecked Sendable {
    // Immutable; a metatype, which nothing can mutate.
    let offset: Int
    let storage: any PublishedStorage.Type
  }

  /// An object with no `@Published` property, and its publisher.
  struct Unpublished: @unchecked Sendable {
    // Guarded by `unpublished`'s lock.
    weak var object: AnyObject?
    let publisher: ObservableObjectPublisher
  }

  /// The `@Published` properties of each class seen, by class.
  static let fieldsByClass = Mutex<[ObjectIdentifier: [Field]]>([:])

  /// The publishers of objects with no `@Published` property, by object, and the count at which
  /// the table is next swept of objects that have gone away.
  static let unpublished = Mutex<(publishers: [ObjectIdentifier: Unpublished], sweepAt: Int)>(([:], 64))

  /// The object's `objectWillChange`, installed in its `@Published` properties on the first read.
  static func objectWillChange(of object: AnyObject) -> ObservableObjectPublisher {
    let fields = fields(of: type(of: object))
    guard let first = fields.first else { return unpublishedPublisher(of: object) }
    return withExtendedLifetime(object) {
      let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
      if let installed = first.storage.objectWillChange(at: base + first.offset, installing: nil) {
        return installed
      }
      // Two threads reading at once both install; the first publisher installed wins everywhere.
      let winner = first.storage.objectWillChange(at: base + first.offset, installing: ObservableObjectPublisher())!
      for field in fields.dropFirst() {
        _ = field.storage.objectWillChange(at: base + field.offset, installing: winner)
      }
      return winner
    }
  }

  /// The `@Published` stored properties of `type` and its superclasses.
  static func fields(of type: AnyObject.Type) -> [Field] {
    let key = ObjectIdentifier(type)
    if let known = fieldsByClass.withLock({ $0[key] }) { return known }
    var found: [Field] = []
    // The options' static constants are mutable globals, which Swift 6 does not let us read;
    // 1 is `.classType`.
    _forEachField(of: type, options: _EachFieldOptions(rawValue: 1)) { _, offset, fieldType, _ in
      if let storage = fieldType as? any PublishedStorage.Type {
        found.append(Field(offset: offset, storage: storage))
      }
      return true
    }
    fieldsByClass.withLock { $0[key] = found }
    return found
  }

  /// The publisher of an object with no `@Published` property, made on the first read.
  static func unpublishedPublisher(of object: AnyObject) -> ObservableObjectPublisher {
    let key = ObjectIdentifier(object)
    // A publisher made for an object that has gone away leaves after the lock.
    var swept: [Unpublished] = []
    let publisher = unpublished.withLock { table -> ObservableObjectPublisher in
      if let entry = table.publishers[key], entry.object === object { return entry.publisher }
      if table.publishers.count >= table.sweepAt {
        swept = table.publishers.values.filter { $0.object == nil }
        table.publishers = table.publishers.filter { $0.value.object != nil }
        table.sweepAt = max(64, table.publishers.count * 2)
      }
      let publisher = ObservableObjectPublisher()
      table.publishers[key] = Unpublished(object: object, publisher: publisher)
      return publisher
    }
    withExtendedLifetime(swept) {}
    return publisher
  }
}

/// What `PublishedFields` needs of a `@Published` property's storage whose value type it does
/// not know: the publisher installed there.
protocol PublishedStorage {
  /// The publisher installed in the storage at `address`; installs `candidate` first when given
  /// and none is, and returns the one installed.
  static func objectWillChange(
    at address: UnsafeRawPointer, installing candidate: ObservableObjectPublisher?
  ) -> ObservableObjectPublisher?
}

extension Published: PublishedStorage {
  static func objectWillChange(
    at address: UnsafeRawPointer, installing candidate: ObservableObjectPublisher?
  ) -> ObservableObjectPublisher? {
    let subject = address.assumingMemoryBound(to: Published<Value>.self).pointee.subject
    guard let candidate else { return subject.announcer.load() }
    return subject.announcer.storeIfNil(candidate)
  }
}

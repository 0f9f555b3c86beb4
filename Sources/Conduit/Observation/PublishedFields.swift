@_spi(Reflection) import Swift
import Synchronization

/// Finds the `@Published` properties of an object, to give them its `objectWillChange`.
///
/// The properties are found once per class, from the runtime's field metadata (the class's and
/// its superclasses' stored properties, with their offsets), as Combine finds them. Each later
/// read of `objectWillChange` finds the class in a table read without a lock, then follows two
/// offsets: to the first property's subject, and to the slot in it that holds the publisher. It
/// needs neither the properties' value types nor a reflection of the object.
///
/// The publisher lives in the properties' subjects, so it goes away with the object. An object
/// with no `@Published` property keeps its publisher in a side table, weakly keyed by the object.
enum PublishedFields {
  /// A `@Published` property of a class: where it is in the object, and where its subject keeps
  /// the publisher.
  struct Field: Equatable, Sendable {
    let offset: Int
    let announcementOffset: Int

    /// The slot of the property of `object` (at `base`) that holds the publisher.
    func slot(in base: UnsafeRawPointer) -> UnsafePointer<AnnouncementSlot> {
      // A `Published` is exactly its subject's reference (`PublishedStorage` checks it), which
      // the object keeps for its whole life.
      let subject = (base + offset).load(as: UnsafeRawPointer.self)
      return (subject + announcementOffset).assumingMemoryBound(to: AnnouncementSlot.self)
    }
  }

  /// An object with no `@Published` property, and its publisher.
  struct Unpublished {
    // Guarded by `unpublished`'s lock.
    weak var object: AnyObject?
    let publisher: ObservableObjectPublisher
  }

  /// The `@Published` properties of each class seen, by class.
  static let fieldsByClass = Mutex<[ObjectIdentifier: [Field]]>([:])

  /// The first `@Published` property of each class seen that has one, read without a lock.
  static let firstFields = ClassTable()

  /// The publishers of objects with no `@Published` property, by object, and the count at which
  /// the table is next swept of objects that have gone away.
  static let unpublished = Mutex<(publishers: [ObjectIdentifier: Unpublished], sweepAt: Int)>(([:], 64))

  /// The object's `objectWillChange`, installed in its `@Published` properties on the first read.
  static func objectWillChange(of object: AnyObject) -> ObservableObjectPublisher {
    let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    if let first = firstFields.field(of: ObjectIdentifier(type(of: object))),
      let installed = withExtendedLifetime(object, { first.slot(in: base).pointee.load() })
    {
      return installed
    }
    return install(in: object)
  }

  /// The first read of an object's `objectWillChange` (or of any object of a class with no
  /// `@Published` property): installs a publisher in every `@Published` property.
  static func install(in object: AnyObject) -> ObservableObjectPublisher {
    let fields = fields(of: type(of: object))
    guard let first = fields.first else { return unpublishedPublisher(of: object) }
    return withExtendedLifetime(object) {
      let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
      // Two threads reading at once both install; the first publisher installed wins everywhere.
      let winner = first.slot(in: base).pointee.install(ObservableObjectPublisher())
      for field in fields.dropFirst() {
        _ = field.slot(in: base).pointee.install(winner)
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
        found.append(Field(offset: offset, announcementOffset: storage.announcementOffset))
      }
      return true
    }
    fieldsByClass.withLock { $0[key] = found }
    if let first = found.first { firstFields.insert(first, for: key) }
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
/// not know: where the property's subject keeps the publisher.
protocol PublishedStorage {
  /// The offset of the `AnnouncementSlot` in the property's subject.
  static var announcementOffset: Int { get }
}

extension Published: PublishedStorage {
  static var announcementOffset: Int {
    precondition(
      MemoryLayout<Published<Value>>.size == MemoryLayout<UnsafeRawPointer>.size,
      "Published must hold nothing but its subject's reference: PublishedFields reads it from the object")
    var found: Int?
    _forEachField(of: PublishedSubject<Value>.self, options: _EachFieldOptions(rawValue: 1)) { name, offset, _, _ in
      guard String(cString: name) == "announcer" else { return true }
      found = offset
      return false
    }
    guard let found else { preconditionFailure("PublishedSubject has no field named announcer") }
    return found
  }
}

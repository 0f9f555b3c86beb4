import ConduitTesting
import Testing

@testable import Conduit

/// The lock-free table from classes to their first `@Published` property.
@Suite(.leakChecked)
struct ClassTableTests {
  @Test func findsWhatWasInsertedAndNothingElse() {
    let table = ClassTable()
    let field = PublishedFields.Field(offset: 16, announcementOffset: 40)
    table.insert(field, for: ObjectIdentifier(First.self))
    #expect(table.field(of: ObjectIdentifier(First.self)) == field)
    #expect(table.field(of: ObjectIdentifier(Second.self)) == nil)
  }

  @Test func aSecondInsertForTheSameClassKeepsTheFirst() {
    let table = ClassTable()
    let field = PublishedFields.Field(offset: 16, announcementOffset: 40)
    table.insert(field, for: ObjectIdentifier(First.self))
    table.insert(PublishedFields.Field(offset: 24, announcementOffset: 48), for: ObjectIdentifier(First.self))
    #expect(table.field(of: ObjectIdentifier(First.self)) == field)
  }

  /// Keys that land on the same slot probe on, and a table half full takes no more, so that a
  /// lookup of a class never seen still ends.
  @Test func keysThatCollideAndATableHalfFullAreFoundOrMissed() {
    let table = ClassTable()
    let keys = (1...ClassTable.capacity).map { ObjectIdentifier(Marker(UInt($0) << 13 | UInt($0) << 4)) }
    for (index, key) in keys.enumerated() {
      table.insert(PublishedFields.Field(offset: index, announcementOffset: -index), for: key)
    }
    let kept = keys.prefix(ClassTable.capacity / 2)
    for (index, key) in kept.enumerated() {
      #expect(table.field(of: key) == PublishedFields.Field(offset: index, announcementOffset: -index))
    }
    for key in keys.dropFirst(ClassTable.capacity / 2) { #expect(table.field(of: key) == nil) }
  }
}

private final class First {}
private final class Second {}

/// An identity made from a number, never dereferenced.
private struct Marker {
  let bits: UInt
  init(_ bits: UInt) { self.bits = bits }
}

extension ObjectIdentifier {
  fileprivate init(_ marker: Marker) {
    self = unsafeBitCast(marker.bits, to: ObjectIdentifier.self)
  }
}

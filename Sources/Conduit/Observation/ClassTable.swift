import Synchronization

/// A table from classes to the first `@Published` property of each, for `PublishedFields`: read
/// on every read of `objectWillChange`, so a read takes no lock.
///
/// Entries are written once, under a lock that orders the writers, and never change: a writer
/// stores the entry's offsets, then publishes its key with a releasing store; a reader that
/// acquires the key sees the offsets. The table has a fixed capacity, kept half empty so that a
/// lookup probes few slots; the classes beyond it are found in `PublishedFields.fieldsByClass`.
final class ClassTable: @unchecked Sendable {
  static let capacity = 512
  static let mask = capacity - 1

  // Each slot's key (a class's identity, 0 when free), and its entry's two offsets. Written under
  // `writers`; read without a lock, in the order that the key's releasing store gives.
  private let keys: UnsafeMutablePointer<Atomic<UInt>>
  private let offsets: UnsafeMutablePointer<Atomic<Int>>
  private let announcementOffsets: UnsafeMutablePointer<Atomic<Int>>
  /// How many slots are taken.
  private let writers = Mutex(0)

  init() {
    keys = .allocate(capacity: Self.capacity)
    offsets = .allocate(capacity: Self.capacity)
    announcementOffsets = .allocate(capacity: Self.capacity)
    for index in 0..<Self.capacity {
      (keys + index).initialize(to: Atomic(0))
      (offsets + index).initialize(to: Atomic(0))
      (announcementOffsets + index).initialize(to: Atomic(0))
    }
  }

  deinit {
    keys.deinitialize(count: Self.capacity).deallocate()
    offsets.deinitialize(count: Self.capacity).deallocate()
    announcementOffsets.deinitialize(count: Self.capacity).deallocate()
  }

  private static func home(of key: UInt) -> Int {
    // Metadata are aligned; the bits above the alignment spread them.
    Int(truncatingIfNeeded: (key >> 4) ^ (key >> 13)) & mask
  }

  /// The entry for `type`, if the table has one.
  func field(of type: ObjectIdentifier) -> PublishedFields.Field? {
    let key = UInt(bitPattern: type)
    var index = Self.home(of: key)
    while true {
      let found = keys[index].load(ordering: .acquiring)
      if found == key {
        return PublishedFields.Field(
          offset: offsets[index].load(ordering: .relaxed),
          announcementOffset: announcementOffsets[index].load(ordering: .relaxed))
      }
      // The table is never full, so a probe always reaches a free slot.
      if found == 0 { return nil }
      index = (index + 1) & Self.mask
    }
  }

  /// Records the entry for `type`, unless it is there or the table is half full.
  func insert(_ field: PublishedFields.Field, for type: ObjectIdentifier) {
    let key = UInt(bitPattern: type)
    writers.withLock { taken in
      guard taken < Self.capacity / 2 else { return }
      var index = Self.home(of: key)
      while true {
        let found = keys[index].load(ordering: .relaxed)
        if found == key { return }
        if found == 0 { break }
        index = (index + 1) & Self.mask
      }
      offsets[index].store(field.offset, ordering: .relaxed)
      announcementOffsets[index].store(field.announcementOffset, ordering: .relaxed)
      keys[index].store(key, ordering: .releasing)
      taken += 1
    }
  }
}

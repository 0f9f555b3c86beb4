import Synchronization

/// Where a `@Published` property's subject keeps the enclosing object's `objectWillChange`: set
/// once, read on every change and on every read of `objectWillChange`.
///
/// It holds the publisher as an atomic unmanaged reference, so that a read is one load and one
/// retain, inlined into the reader, and so that `PublishedFields` can read it from its address
/// without knowing the property's value type.
@usableFromInline
struct AnnouncementSlot: ~Copyable, Sendable {
  // Written once, by `install`; holds one retain of the publisher, given back in `deinit`.
  @usableFromInline
  let publisher = Atomic<Unmanaged<ObservableObjectPublisher>?>(nil)

  @inlinable
  init() {}

  /// The publisher installed, if any.
  @inlinable
  func load() -> ObservableObjectPublisher? {
    publisher.load(ordering: .acquiring)?.takeUnretainedValue()
  }

  /// Installs `candidate` unless a publisher is installed already; returns the one installed.
  func install(_ candidate: ObservableObjectPublisher) -> ObservableObjectPublisher {
    let retained = Unmanaged.passRetained(candidate)
    let (exchanged, original) = publisher.compareExchange(
      expected: nil, desired: retained, ordering: .acquiringAndReleasing)
    if exchanged { return candidate }
    retained.release()
    return original!.takeUnretainedValue()
  }

  deinit {
    publisher.load(ordering: .acquiring)?.release()
  }
}

import Synchronization

/// Counts of the framework objects that are alive right now.
///
/// Every object a pipeline allocates (an inner subscription, a subject's per-subscriber state, a
/// sink …) registers here when created and leaves when freed. A server can export
/// ``liveObjects`` as a metric: a number that keeps rising under steady load is a leak.
/// The leak checks in `ConduitTesting` read the same census, scoped to one check.
///
/// This is an extension to Combine.
///
/// ```swift
/// metrics.gauge("conduit_live_objects", Census.liveObjects)
/// ```
public enum Census {
  /// The number of framework objects alive in the whole process.
  public static var liveObjects: Int {
    censusLiveCount.load(ordering: .relaxed)
  }
}

/// Live framework objects, process-wide.
@usableFromInline
package let censusLiveCount = Atomic<Int>(0)

/// How many scopes (leak checks) are running; while none is, registration is one atomic add.
@usableFromInline
package let censusActiveScopes = Atomic<Int>(0)

/// A type name carried across threads; metatypes are immutable.
private struct RecordedType: Sendable {
  let type: Any.Type
}

/// The objects attributed to one leak check.
///
/// Objects created while the check's task-local scope is bound register here, and so do objects
/// that a pipeline creates later on other threads, which inherit the scope of the framework
/// object they are created for.
@usableFromInline
package final class CensusScope: Sendable {
  /// The scope bound to the current task or thread.
  @TaskLocal package static var current: CensusScope?

  // Guarded by its own lock: serial number -> type of every live member.
  private let members = Locked<[UInt64: RecordedType]>([:])
  private let nextSerial = Atomic<UInt64>(1)

  package init() {}

  /// The scope bound to the current task or thread, looked up only while some check is running.
  @usableFromInline
  package static var currentIfActive: CensusScope? {
    censusActiveScopes.load(ordering: .relaxed) == 0 ? nil : current
  }

  /// Counts this scope as running, so that objects created from now on are attributed.
  package func activate() {
    censusActiveScopes.wrappingAdd(1, ordering: .sequentiallyConsistent)
  }

  /// Ends the attribution that ``activate()`` started.
  package func deactivate() {
    censusActiveScopes.wrappingSubtract(1, ordering: .sequentiallyConsistent)
  }

  /// The number of members alive.
  package var liveCount: Int {
    members.withLock { $0.count }
  }

  /// How many objects have joined this scope, alive or freed: what a pipeline allocated while
  /// the check ran, even objects that lived only inside one call.
  package var joinedCount: Int {
    Int(nextSerial.load(ordering: .relaxed) - 1)
  }

  /// The readable type names of the members alive, sorted, one entry per object.
  package var survivors: [String] {
    let types = members.withLock { Array($0.values) }
    return types.map { CensusScope.readableName(of: $0.type) }.sorted()
  }

  /// `Conduit.Subscribers.Sink<Swift.Int, Swift.Never>` becomes `Subscribers.Sink<Int, Never>`.
  package static func readableName(of type: Any.Type) -> String {
    var name = String(reflecting: type)
    // Local types print as `Module.(unknown context at $1234).Name`.
    name = name.replacing(#/\(unknown context at \$[0-9a-f]+\)\./#, with: "")
    // Only whole module names: `TrackedConduit.Item` keeps its `Conduit`.
    name = name.replacing(#/\b(?:Conduit|Swift)\./#.wordBoundaryKind(.simple), with: "")
    return name
  }

  @usableFromInline
  package func join(_ type: Any.Type) -> UInt64 {
    let serial = nextSerial.wrappingAdd(1, ordering: .relaxed).oldValue
    members.withLock { $0[serial] = RecordedType(type: type) }
    return serial
  }

  @usableFromInline
  package func leave(_ serial: UInt64) {
    members.withLock { _ = $0.removeValue(forKey: serial) }
  }
}

/// A framework object that carries a census scope, from which objects created on its behalf
/// inherit their own.
@usableFromInline
package protocol CensusScoped: AnyObject {
  var censusScope: CensusScope? { get }
}

/// A wrapper (such as `AnySubscriber`) through which objects created on behalf of the wrapped
/// value inherit that value's census scope.
@usableFromInline
package protocol CensusTransparent {
  var censusWrapped: Any? { get }
}

/// Membership of one framework object in the census: created in the object's initializer,
/// released with the object.
@usableFromInline
package struct CensusToken: ~Copyable, Sendable {
  @usableFromInline
  package let scope: CensusScope?
  @usableFromInline
  let serial: UInt64

  /// Registers an object of the given type, attributed to the current scope or, when none is
  /// bound to this thread, to the scope of the object it is created on behalf of.
  @inlinable @inline(__always)
  package init(_ type: Any.Type, inheritingFrom related: @autoclosure () -> Any? = nil) {
    censusLiveCount.wrappingAdd(1, ordering: .relaxed)
    if censusActiveScopes.load(ordering: .relaxed) == 0 {
      scope = nil
      serial = 0
    } else {
      let found = CensusToken.scope(inheritingFrom: related())
      scope = found
      serial = found?.join(type) ?? 0
    }
  }

  /// The scope an object created now on behalf of `related` joins: the current one, or else the
  /// one `related` carries, looking through wrappers such as `AnySubscriber`.
  @usableFromInline
  package static func scope(inheritingFrom related: Any?) -> CensusScope? {
    if let current = CensusScope.current { return current }
    var related = related
    while let wrapper = related as? any CensusTransparent { related = wrapper.censusWrapped }
    return (related as? any CensusScoped)?.censusScope
  }

  deinit {
    censusLiveCount.wrappingSubtract(1, ordering: .relaxed)
    if let scope { scope.leave(serial) }
  }
}

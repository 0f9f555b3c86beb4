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

/// One live member of a check: its type, the name a report shows for it, and the pipeline it was
/// built in, if any.
private struct Member: Sendable {
  let type: RecordedType
  let name: String?
  let pipeline: CensusPipeline?
}

/// What a leak check records: its live members, and where their pipelines were built.
private final class CensusLedger: Sendable {
  // Guarded by its own lock: serial number -> every live member.
  let members = Locked<[UInt64: Member]>([:])
  let nextSerial = Atomic<UInt64>(1)
  let nextPipeline = Atomic<UInt64>(1)
  // Immutable: asked once per pipeline for where it is being built.
  let captureOrigin: (@Sendable () -> (any Sendable)?)?

  init(captureOrigin: (@Sendable () -> (any Sendable)?)?) {
    self.captureOrigin = captureOrigin
  }
}

/// One pipeline built while a leak check runs: an object created for no other framework object
/// (a `Sink`, an `Assign`, the subscription a user's own subscriber receives, the iterator of
/// `values`), and every object created later on its behalf, directly or through others.
package final class CensusPipeline: Sendable {
  /// Numbers the check's pipelines in the order they were built.
  package let number: UInt64
  /// What the check's origin capturer returned when the pipeline was built.
  package let origin: (any Sendable)?

  init(number: UInt64, origin: (any Sendable)?) {
    self.number = number
    self.origin = origin
  }
}

/// A live member of a check, as its report lists it.
package struct CensusSurvivor: Sendable {
  /// The member's readable type name.
  package let typeName: String
  /// What the member stands for in a pipeline, when its type does not say it: a subject's
  /// per-subscriber state names its subject's type.
  package let name: String?
  /// The pipeline the member was built in.
  package let pipeline: CensusPipeline?
}

/// The objects attributed to one leak check, or to one pipeline built while it runs.
///
/// Objects created while the check's task-local scope is bound register here, and so do objects
/// that a pipeline creates later on other threads, which inherit the scope of the framework
/// object they are created for. The task-local scope is always a check's; each member joins the
/// scope of its pipeline, which records it in its check's ledger.
@usableFromInline
package final class CensusScope: Sendable {
  /// The scope bound to the current task or thread.
  @TaskLocal package static var current: CensusScope?

  private let ledger: CensusLedger
  /// The pipeline this scope builds; `nil` for a check's own scope.
  package let pipeline: CensusPipeline?
  /// The check's own scope: `self` for a check, the check it belongs to for a pipeline.
  package var check: CensusScope { parent ?? self }
  private let parent: CensusScope?

  /// A check's scope. While it runs, `captureOrigin` is called once for each pipeline, on the
  /// thread that builds it, while the first object of the pipeline is created: inside the user's
  /// call of `sink`, `assign`, `subscribe` or `values`.
  package init(captureOrigin: (@Sendable () -> (any Sendable)?)? = nil) {
    ledger = CensusLedger(captureOrigin: captureOrigin)
    pipeline = nil
    parent = nil
  }

  fileprivate init(pipelineOf check: CensusScope) {
    ledger = check.ledger
    parent = check
    let number = ledger.nextPipeline.wrappingAdd(1, ordering: .relaxed).oldValue
    pipeline = CensusPipeline(number: number, origin: ledger.captureOrigin?())
  }

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

  /// The number of members alive, in the whole check.
  package var liveCount: Int {
    ledger.members.withLock { $0.count }
  }

  /// How many objects have joined the check, alive or freed: what a pipeline allocated while
  /// the check ran, even objects that lived only inside one call.
  package var joinedCount: Int {
    Int(ledger.nextSerial.load(ordering: .relaxed) - 1)
  }

  /// The check's members alive, in the order they joined, each with its pipeline.
  package var members: [CensusSurvivor] {
    let members = ledger.members.withLock { $0.sorted { $0.key < $1.key }.map(\.value) }
    return members.map {
      CensusSurvivor(typeName: CensusScope.readableName(of: $0.type.type), name: $0.name, pipeline: $0.pipeline)
    }
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
  package func join(_ type: Any.Type, named name: String? = nil) -> UInt64 {
    let serial = ledger.nextSerial.wrappingAdd(1, ordering: .relaxed).oldValue
    let member = Member(type: RecordedType(type: type), name: name, pipeline: pipeline)
    ledger.members.withLock { $0[serial] = member }
    return serial
  }

  @usableFromInline
  package func leave(_ serial: UInt64) {
    ledger.members.withLock { _ = $0.removeValue(forKey: serial) }
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
  /// bound to this thread, to the scope of the object it is created on behalf of. `name`, asked
  /// only while a check runs, is what a report shows for the object in its pipeline when its
  /// type does not say it.
  @inlinable @inline(__always)
  package init(
    _ type: Any.Type, inheritingFrom related: @autoclosure () -> Any? = nil,
    named name: @autoclosure () -> String? = nil
  ) {
    censusLiveCount.wrappingAdd(1, ordering: .relaxed)
    if censusActiveScopes.load(ordering: .relaxed) == 0 {
      scope = nil
      serial = 0
    } else {
      let found = CensusToken.scope(inheritingFrom: related())
      scope = found
      serial = found?.join(type, named: name()) ?? 0
    }
  }

  /// The scope an object created now on behalf of `related` joins: the pipeline that `related`
  /// belongs to, looking through wrappers such as `AnySubscriber`, if that pipeline belongs to
  /// the check bound to this thread or no check is bound; otherwise a new pipeline of that
  /// check, or of the check `related` carries.
  ///
  /// So each object built while a subscriber subscribes joins the pipeline of the subscriber it
  /// is built for, and a pipeline goes on growing in its own scope when it creates objects later,
  /// on any thread: a `flatMap` inner subscribed while the test sends a value, a timer on a
  /// queue. An object built for no framework object (a `Sink`, a subscription for the user's own
  /// subscriber) starts a pipeline, and the check captures where.
  @usableFromInline
  package static func scope(inheritingFrom related: Any?) -> CensusScope? {
    let current = CensusScope.current
    let carried = (unwrapped(related) as? any CensusScoped)?.censusScope
    if let carried, carried.pipeline != nil, current == nil || carried.check === current?.check {
      return carried
    }
    guard let check = current?.check ?? carried?.check else { return nil }
    return CensusScope(pipelineOf: check)
  }

  /// `related`, looked at through wrappers such as `AnySubscriber`.
  @usableFromInline
  package static func unwrapped(_ related: Any?) -> Any? {
    var related = related
    while let wrapper = related as? any CensusTransparent { related = wrapper.censusWrapped }
    return related
  }

  deinit {
    censusLiveCount.wrappingSubtract(1, ordering: .relaxed)
    if let scope { scope.leave(serial) }
  }
}

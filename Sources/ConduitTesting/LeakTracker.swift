import Conduit
import Synchronization

/// Watches objects during a leak check, and the framework objects the check's body creates.
///
/// A tracker comes from ``withLeakCheck(timeout:_:)-(_,(LeakTracker)->R)`` or
/// ``withGrowthCheck(iterations:_:)-(_,(LeakTracker)->Void)``; pass objects to ``track(_:fileID:line:)``
/// to have the check fail if they outlive the body.
///
/// This is an extension to Combine.
///
/// ```swift
/// try withLeakCheck { tracker in
///     let model = tracker.track(ViewModel(service: service))
///     model.start()
/// }
/// ```
public final class LeakTracker: Sendable {
  struct Tracked: @unchecked Sendable {
    weak var object: AnyObject?
    let typeName: String
    let fileID: String
    let line: Int
  }

  /// The framework objects attributed to this check.
  let scope = CensusScope()
  private let tracked = Locked<[Tracked]>([])

  init() {}

  func record<T: AnyObject>(_ object: T, fileID: String, line: Int) {
    let entry = Tracked(
      object: object, typeName: CensusScope.readableName(of: T.self), fileID: fileID, line: line)
    tracked.withLock { $0.append(entry) }
  }

  /// What is still alive: tracked objects first, in the order they were tracked, then framework
  /// objects by type.
  var survivors: [LeakCheckFailure.Survivor] {
    let trackedAlive = tracked.withLock { entries in
      entries.filter { $0.object != nil }.map {
        LeakCheckFailure.Survivor(typeName: $0.typeName, fileID: $0.fileID, line: $0.line)
      }
    }
    let framework = scope.survivors.map { LeakCheckFailure.Survivor(typeName: $0, fileID: nil, line: nil) }
    return trackedAlive + framework
  }

  /// How many watched objects are alive, tracked and framework together.
  var liveCount: Int {
    tracked.withLock { entries in entries.count { $0.object != nil } } + scope.liveCount
  }
}

extension LeakTracker {
  /// Watches `object` weakly: the check fails if it is still alive once the body has returned
  /// and the timeout for asynchronous teardown has passed. Returns the object, so a tracked
  /// object can be created in place.
  ///
  /// ```swift
  /// let owner = tracker.track(Owner())
  /// ```
  @discardableResult
  public func track<T: AnyObject>(_ object: T, fileID: String = #fileID, line: Int = #line) -> T {
    record(object, fileID: fileID, line: line)
    return object
  }
}

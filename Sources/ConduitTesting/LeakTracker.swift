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

  /// Where this check's pipelines are built.
  private let origins = PipelineOrigins()
  /// The framework objects attributed to this check.
  let scope: CensusScope
  private let tracked = Locked<[Tracked]>([])

  init() {
    let origins = origins
    scope = CensusScope(captureOrigin: { origins.capture() })
  }

  func record<T: AnyObject>(_ object: T, fileID: String, line: Int) {
    let entry = Tracked(
      object: object, typeName: CensusScope.readableName(of: T.self), fileID: fileID, line: line)
    tracked.withLock { $0.append(entry) }
  }

  /// What is still alive: tracked objects first, in the order they were tracked, then framework
  /// objects by type; and the pipelines the framework objects belong to.
  func failure(growth: String? = nil) -> LeakCheckFailure {
    let trackedAlive = tracked.withLock { entries in
      entries.filter { $0.object != nil }.map {
        LeakCheckFailure.Survivor(typeName: $0.typeName, fileID: $0.fileID, line: $0.line)
      }
    }
    let members = scope.members
    func survivor(_ member: CensusSurvivor) -> LeakCheckFailure.Survivor {
      LeakCheckFailure.Survivor(typeName: member.typeName, fileID: nil, line: nil)
    }
    var groups: [(pipeline: CensusPipeline, members: [CensusSurvivor])] = []
    var groupOfPipeline: [UInt64: Int] = [:]
    for member in members {
      guard let pipeline = member.pipeline else { continue }
      if let index = groupOfPipeline[pipeline.number] {
        groups[index].members.append(member)
      } else {
        groupOfPipeline[pipeline.number] = groups.count
        groups.append((pipeline, [member]))
      }
    }
    let pipelines = groups.map { group in
      LeakedPipelines.Unplaced(
        operators: PipelineChain.names(
          of: group.members.map { PipelineChain.Object(typeName: $0.typeName, name: $0.name) }),
        survivors: group.members.map(survivor), backtrace: group.pipeline.origin)
    }
    let framework = members.map(survivor)
    let byType = framework.enumerated().sorted { ($0.element.typeName, $0.offset) < ($1.element.typeName, $1.offset) }
    return LeakCheckFailure(
      survivors: trackedAlive + byType.map(\.element), pipelines: LeakedPipelines(pipelines, origins: origins),
      growth: growth)
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

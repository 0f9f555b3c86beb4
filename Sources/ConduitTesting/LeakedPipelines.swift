import Synchronization

/// The leaked pipelines of a failed check, placed in the user's code only when first asked for:
/// reading a backtrace through the debug information takes a fraction of a second, which a test
/// that looks only at the survivors' types should not pay.
final class LeakedPipelines: Sendable {
  /// One pipeline, with its backtrace not yet read.
  struct Unplaced: Sendable {
    let operators: [String]
    let survivors: [LeakCheckFailure.Survivor]
    let backtrace: (any Sendable)?
  }

  private let unplaced: [Unplaced]
  private let origins: PipelineOrigins?
  // Guarded by its own lock: the pipelines once placed.
  private let placed = Mutex<[LeakCheckFailure.Pipeline]?>(nil)

  init(_ unplaced: [Unplaced] = [], origins: PipelineOrigins? = nil) {
    self.unplaced = unplaced
    self.origins = origins
  }

  /// The pipelines, each with its origin.
  var pipelines: [LeakCheckFailure.Pipeline] {
    placed.withLock { placed in
      if let placed { return placed }
      // Pipelines built by one line in a loop share a backtrace; read it once.
      var known: [String: LeakCheckFailure.Origin?] = [:]
      let pipelines = unplaced.map { pipeline in
        let key = pipeline.backtrace.map { String(describing: $0) } ?? ""
        let origin = known[key] ?? origins?.origin(of: pipeline.backtrace)
        known[key] = origin
        return LeakCheckFailure.Pipeline(operators: pipeline.operators, survivors: pipeline.survivors, origin: origin)
      }
      placed = pipelines
      return pipelines
    }
  }
}

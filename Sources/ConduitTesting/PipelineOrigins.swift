import Synchronization

#if canImport(Runtime)
  import Runtime
#endif

/// Where the pipelines of one leak check are built: a backtrace taken when a pipeline's first
/// object is created (inside the user's call of `sink`, `assign`, `subscribe` or `values`), and,
/// when a report needs it, the first frame of it in the user's code.
///
/// Backtraces are cheap to take and dear to read, so a check takes one per pipeline, up to
/// ``limit``, and reads only those of the pipelines that leak.
final class PipelineOrigins: Sendable {
  #if canImport(Runtime)
    /// The images loaded into the process, captured once, by the first pipeline of the first
    /// check, so that each backtrace neither captures them again nor takes a lock. Capturing
    /// them reads the header of each mapped file, which must not race with a reading of
    /// backtraces (it maps and unmaps the test binary's debug information): a reading needs a
    /// backtrace, and the first backtrace waits for this capture.
    @available(macOS 26.0, *)
    private static let images = ImageMap.capture()
  #endif

  /// How many pipelines of a check say where they were built. A check that builds more, such
  /// as a stress test's loop, does not pay a backtrace for each; a leak in a loop is found among
  /// the first of them.
  static let limit = 100

  // Counts the backtraces taken, up to `limit`.
  private let taken = Atomic<Int>(0)

  init() {}

  /// A backtrace of the current thread, for ``origin(of:)`` to read later; `nil` where the
  /// toolchain cannot take one, or once the check has taken ``limit``.
  func capture() -> (any Sendable)? {
    guard taken.wrappingAdd(1, ordering: .relaxed).oldValue < Self.limit else { return nil }
    #if canImport(Runtime)
      if #available(macOS 26.0, *) {
        return try? Backtrace.capture(algorithm: .fast, limit: 64, offset: 0, top: 0, images: Self.images)
      }
    #endif
    return nil
  }

  /// The first place in `captured` outside Conduit's own modules that the debug information
  /// names: the user's call that built the pipeline.
  func origin(of captured: (any Sendable)?) -> LeakCheckFailure.Origin? {
    #if canImport(Runtime)
      if #available(macOS 26.0, *) {
        guard let backtrace = captured as? Backtrace,
          let symbolicated = backtrace.symbolicated(with: Self.images, options: [.showSourceLocations])
        else { return nil }
        for frame in symbolicated.frames {
          guard let location = frame.symbol?.sourceLocation, location.line > 0,
            !Self.isInConduit(location.path)
          else { continue }
          return LeakCheckFailure.Origin(path: location.path, line: location.line)
        }
      }
    #endif
    return nil
  }

  /// The source folders of the modules whose frames stand between the user's call and the
  /// capture, found from this file's own path.
  private static let conduitFolders: [String] = {
    let path = #filePath
    guard let range = path.ranges(of: "/Sources/ConduitTesting/").last else { return [] }
    let sources = String(path[..<range.lowerBound]) + "/Sources/"
    return ["Conduit/", "ConduitTesting/", "ConduitFoundation/"].map { sources + $0 }
  }()

  private static func isInConduit(_ path: String) -> Bool {
    conduitFolders.contains { path.hasPrefix($0) }
  }
}

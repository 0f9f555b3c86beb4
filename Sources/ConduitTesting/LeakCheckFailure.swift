/// The error a leak check throws: the objects that outlived the checked body.
///
/// Its description lists every survivor, by type, with the place it was tracked for objects
/// passed to ``LeakTracker/track(_:fileID:line:)``, then each leaked pipeline with the line of
/// the user's code that subscribed it:
///
/// ```
/// 2 object(s) outlived the leak check:
///   - SubjectDownstream<Subscribers.Sink<Int, Never>>
///   - Subscribers.Sink<Int, Never>
/// 1 pipeline leaked: Sink<Int, Never> ← Map ← PassthroughSubject, subscribed at ModelTests.swift:42
/// ```
///
/// This is an extension to Combine.
///
/// ```swift
/// do {
///     try withLeakCheck { tracker in ... }
/// } catch let failure as LeakCheckFailure {
///     print(failure.survivors.map(\.typeName))
/// }
/// ```
public struct LeakCheckFailure: Error, CustomStringConvertible, Sendable {
  /// One object that was still alive.
  public struct Survivor: Hashable, Sendable, CustomStringConvertible {
    /// The object's type, such as `Subscribers.Sink<Int, Never>`.
    public let typeName: String
    /// Where the object was tracked; `nil` for framework objects found by the census.
    public let fileID: String?
    /// The line where the object was tracked; `nil` for framework objects.
    public let line: Int?

    /// A textual representation of this instance.
    public var description: String {
      if let fileID, let line { return "\(typeName) (tracked at \(fileID):\(line))" }
      return typeName
    }
  }

  /// Every object that was still alive: tracked objects first, then framework objects by type.
  public let survivors: [Survivor]

  /// The pipelines that the framework objects among the survivors belong to, in the order they
  /// were built, each with the place in the user's code that built its subscriber.
  ///
  /// The places are read from the debug information when first asked for, which takes a
  /// fraction of a second. This is an extension to Combine.
  public var pipelines: [Pipeline] { leakedPipelines.pipelines }

  /// What the check measured, for a growth check; `nil` for a leak check.
  public let growth: String?

  private let leakedPipelines: LeakedPipelines

  init(survivors: [Survivor], pipelines: LeakedPipelines = LeakedPipelines(), growth: String? = nil) {
    self.survivors = survivors
    leakedPipelines = pipelines
    self.growth = growth
  }

  /// A textual representation of this instance.
  public var description: String {
    var lines: [String] = []
    if let growth {
      lines.append("Live objects grew with the iterations: \(growth).")
      lines.append("Still alive at the end:")
    } else {
      lines.append("\(survivors.count) object(s) outlived the leak check:")
    }
    for (survivor, count) in Self.counted(survivors.map(\.description)) {
      lines.append(count == 1 ? "  - \(survivor)" : "  - \(count) × \(survivor)")
    }
    for (pipeline, count) in Self.counted(pipelines.map(\.description)) {
      lines.append("\(count) \(count == 1 ? "pipeline" : "pipelines") leaked: \(pipeline)")
    }
    return lines.joined(separator: "\n")
  }

  /// The distinct lines among `lines`, in the order they first appear, each with how often.
  private static func counted(_ lines: [String]) -> [(line: String, count: Int)] {
    var counts: [String: Int] = [:]
    var order: [String] = []
    for line in lines {
      if counts[line] == nil { order.append(line) }
      counts[line, default: 0] += 1
    }
    return order.map { ($0, counts[$0] ?? 1) }
  }
}

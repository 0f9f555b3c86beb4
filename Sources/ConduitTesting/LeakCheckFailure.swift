/// The error a leak check throws: the objects that outlived the checked body.
///
/// Its description lists every survivor, by type, with the place it was tracked for objects
/// passed to ``LeakTracker/track(_:fileID:line:)``.
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

  /// Every object that was still alive.
  public let survivors: [Survivor]

  /// What the check measured, for a growth check; `nil` for a leak check.
  public let growth: String?

  init(survivors: [Survivor], growth: String? = nil) {
    self.survivors = survivors
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
    var counts: [Survivor: Int] = [:]
    var order: [Survivor] = []
    for survivor in survivors {
      if counts[survivor] == nil { order.append(survivor) }
      counts[survivor, default: 0] += 1
    }
    for survivor in order {
      let count = counts[survivor] ?? 1
      lines.append(count == 1 ? "  - \(survivor)" : "  - \(count) × \(survivor)")
    }
    return lines.joined(separator: "\n")
  }
}

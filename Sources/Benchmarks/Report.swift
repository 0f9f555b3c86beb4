enum Report {
  static func table(baselines: [String: Double], results: [Result], extras: [Extra]) -> String {
    var lines: [String] = []
    lines.append("Baselines (ns per operation, median of 7 runs):")
    for (name, time) in baselines.sorted(by: { $0.key < $1.key }) {
      lines.append("  \(name.padding(48)) \(format1(time))")
    }
    lines.append("")
    let header =
      "workload".padding(58) + "ns/op".leftPadding(9) + "  " + "baseline".padding(24) + "ratio".leftPadding(7)
      + "  target  ok"
    lines.append(header)
    lines.append(String(repeating: "-", count: header.count))
    for result in results {
      lines.append(
        result.name.padding(58) + format1(result.nanoseconds).leftPadding(9) + "  "
          + result.baseline.padding(24) + (format1(result.ratio) + "x").leftPadding(7) + "  "
          + ("<= " + format1(result.target) + "x").padding(8) + (result.meetsTarget ? "yes" : "NO"))
      if !result.note.isEmpty { lines.append("    (\(result.note))") }
    }
    if !extras.isEmpty {
      lines.append("")
      for extra in extras { lines.append("\(extra.name): \(extra.value)") }
    }
    return lines.joined(separator: "\n")
  }

  static func json(baselines: [String: Double], results: [Result], extras: [Extra]) -> String {
    let baselineItems = baselines.sorted(by: { $0.key < $1.key }).map { "\"\(escape($0.key))\": \($0.value)" }
    let resultItems = results.map { result in
      "{\"workload\": \"\(escape(result.name))\", \"nsPerOp\": \(result.nanoseconds), "
        + "\"baseline\": \"\(escape(result.baseline))\", \"ratio\": \(result.ratio), \"target\": \(result.target), "
        + "\"meetsTarget\": \(result.meetsTarget), \"note\": \"\(escape(result.note))\"}"
    }
    let extraItems = extras.map { "{\"name\": \"\(escape($0.name))\", \"value\": \"\(escape($0.value))\"}" }
    return
      "{\"baselines\": {\(baselineItems.joined(separator: ", "))}, \"results\": [\(resultItems.joined(separator: ", "))], \"extras\": [\(extraItems.joined(separator: ", "))]}"
  }

  private static func escape(_ text: String) -> String {
    text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
  }
}

extension String {
  func padding(_ width: Int) -> String {
    count >= width ? self + " " : self + String(repeating: " ", count: width - count)
  }

  func leftPadding(_ width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }
}

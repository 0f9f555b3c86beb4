import Synchronization

/// What the soak found wrong: every failure is counted, and the first few are printed as they
/// happen, so that a run that goes wrong early says where long before its verdict.
final class Findings: Sendable {
  /// How many failures are printed; the rest are only counted.
  private static let printedLimit = 20

  private let recorded = Atomic<Int>(0)

  /// The number of failures recorded so far.
  var count: Int { recorded.load(ordering: .relaxed) }

  /// Records one failure, and prints it if it is among the first few.
  func record(_ message: String) {
    let number = recorded.wrappingAdd(1, ordering: .relaxed).newValue
    if number <= Findings.printedLimit {
      say("FAIL: \(message)")
    } else if number == Findings.printedLimit + 1 {
      say("FAIL: (further failures are counted, not printed)")
    }
  }
}

/// Every load reports here.
let findings = Findings()

/// "1 value", "2 values".
func counted(_ count: Int, _ noun: String) -> String {
  "\(count) \(noun)\(count == 1 ? "" : "s")"
}

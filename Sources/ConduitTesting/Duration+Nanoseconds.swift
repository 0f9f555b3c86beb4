extension Duration {
  /// The duration in whole nanoseconds, clamped to `Int`'s range: what Dispatch's time types
  /// take, for a clock sleep and for the settling wait of an advance.
  var wholeNanoseconds: Int {
    let (seconds, attoseconds) = components
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else { return seconds < 0 ? .min : .max }
    let (total, sumOverflow) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
    guard !sumOverflow else { return seconds < 0 ? .min : .max }
    return Int(total)
  }
}

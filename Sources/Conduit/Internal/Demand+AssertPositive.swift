import Synchronization

extension Subscribers.Demand {
  /// Contract 2: requesting nothing is a programming error.
  @inlinable
  package func assertPositive(file: StaticString = #file, line: UInt = #line) {
    precondition(
      rawValue > 0,
      "Subscription.request(.none): a subscriber must request a positive demand (.max(n) with n > 0, or .unlimited)",
      file: file, line: line)
  }
}

import ConduitFoundation
import Dispatch
import Foundation
import Testing

/// Records values from any thread and lets a test wait until enough have come.
final class Recorder<Value: Sendable>: Sendable {
  // `Locked`, not `Mutex`: ThreadSanitizer sees the order that `Locked` makes on Linux.
  private let values = Locked<[Value]>([])
  private let arrivals = DispatchSemaphore(value: 0)

  var recorded: [Value] { values.withLock { $0 } }
  var count: Int { values.withLock { $0.count } }

  func record(_ value: Value) {
    values.withLock { $0.append(value) }
    arrivals.signal()
  }

  /// Waits until `count` values have come; records a failure and returns `false` if they do not
  /// come within `patience`.
  @discardableResult
  func wait(forCount count: Int, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
    let deadline = DispatchTime.now() + patience
    while self.count < count {
      if arrivals.wait(timeout: deadline) == .timedOut {
        Issue.record("waited for \(count) values, got \(self.count)", sourceLocation: sourceLocation)
        return false
      }
    }
    return true
  }
}

extension Recorder where Value == Void {
  func record() { record(()) }
}

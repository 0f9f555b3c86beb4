import Synchronization

/// Counts how many times a piece of work ran, from any task.
final class RunCounter: Sendable {
  private let runs = Atomic<Int>(0)

  /// Counts one more run and returns the new count.
  @discardableResult
  func increment() -> Int {
    runs.wrappingAdd(1, ordering: .relaxed).newValue
  }

  var count: Int { runs.load(ordering: .relaxed) }
}

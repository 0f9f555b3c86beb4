import Conduit

/// Encodes each value as the number of values encoded so far (1, 2, …), or throws.
final class CountingEncoder: TopLevelEncoder, @unchecked Sendable {
  private(set) var calls = 0
  private let failing: Bool

  init(failing: Bool) { self.failing = failing }

  func encode<T: Encodable>(_ value: T) throws -> Int {
    calls += 1
    if failing { throw ParityFailure.oops }
    return calls
  }
}

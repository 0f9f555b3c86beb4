import Conduit

/// Decodes an `Int` as itself, or throws.
final class CountingDecoder: TopLevelDecoder, @unchecked Sendable {
  private(set) var calls = 0
  private let failing: Bool

  init(failing: Bool) { self.failing = failing }

  func decode<T: Decodable>(_ type: T.Type, from input: Int) throws -> T {
    calls += 1
    if failing { throw ParityFailure.oops }
    guard let value = input as? T else { throw ParityFailure.oops }
    return value
  }
}

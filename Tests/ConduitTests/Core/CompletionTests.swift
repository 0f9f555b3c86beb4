import ConduitTesting
import Foundation
import Testing

@testable import Conduit

private enum CompletionTestError: Error, Hashable {
  case first
  case second
}

private struct WrappedError: Error, Equatable {
  let code: Int
}

private typealias Completion = Subscribers.Completion<CompletionTestError>

@Suite(.leakChecked)
struct CompletionTests {
  @Test func finishedEqualsFinished() {
    #expect(Completion.finished == .finished)
  }

  @Test func failuresCompareTheirErrors() {
    #expect(Completion.failure(.first) == .failure(.first))
    #expect(Completion.failure(.first) != .failure(.second))
  }

  @Test func finishedDiffersFromFailure() {
    #expect(Completion.finished != .failure(.first))
    #expect(Completion.failure(.second) != .finished)
  }

  @Test func equalCompletionsHashAlike() {
    let set: Set<Completion> = [.finished, .finished, .failure(.first), .failure(.first), .failure(.second)]
    #expect(set.count == 3)
    #expect(set.contains(.failure(.second)))
    #expect(Completion.failure(.first).hashValue == Completion.failure(.first).hashValue)
    #expect(Completion.finished.hashValue == Completion.finished.hashValue)
  }

  @Test func neverFailingCompletionIsEquatable() {
    let finished = Subscribers.Completion<Never>.finished
    #expect(finished == .finished)
    #expect(Set([finished, .finished]).count == 1)
  }

  @Test func patternMatchingExtractsTheError() {
    let completion = Completion.failure(.second)
    guard case .failure(let error) = completion else {
      Issue.record("expected a failure")
      return
    }
    #expect(error == .second)
  }

  @Test func mapFailureTransformsOnlyFailures() {
    let failure = Completion.failure(.second).mapFailure { error in WrappedError(code: error == .first ? 1 : 2) }
    #expect(failure == .failure(WrappedError(code: 2)))
    let finished = Completion.finished.mapFailure { _ in WrappedError(code: 0) }
    #expect(finished == .finished)
  }
}

private enum CodableTrouble: String, Error, Codable, Equatable {
  case timeout
}

/// Combine's encoded form of a completion, pinned so that data written by Combine decodes here
/// and the other way round.
@Suite(.leakChecked)
struct CompletionCodingTests {
  private typealias Completion = Subscribers.Completion<CodableTrouble>

  private func json(_ completion: Completion) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return String(decoding: try encoder.encode(completion), as: UTF8.self)
  }

  private func decode(_ json: String) throws -> Completion {
    try JSONDecoder().decode(Completion.self, from: Data(json.utf8))
  }

  @Test func finishedEncodesAsSuccess() throws {
    #expect(try json(.finished) == #"{"success":true}"#)
  }

  @Test func failureEncodesItsError() throws {
    #expect(try json(.failure(.timeout)) == #"{"error":"timeout","success":false}"#)
  }

  @Test func bothCompletionsSurviveARoundTrip() throws {
    #expect(try decode(json(.finished)) == .finished)
    #expect(try decode(json(.failure(.timeout))) == .failure(.timeout))
  }

  @Test func decodesCombinesOutput() throws {
    #expect(try decode(#"{"success":false,"error":"timeout"}"#) == .failure(.timeout))
    #expect(try decode(#"{"success":true}"#) == .finished)
  }

  @Test func failureWithoutItsErrorIsADecodingError() {
    #expect(throws: DecodingError.self) { try decode(#"{"success":false}"#) }
  }

  @Test func completionWithoutTheSuccessFlagIsADecodingError() {
    #expect(throws: DecodingError.self) { try decode(#"{"error":"timeout"}"#) }
  }

  @Test func anUnknownErrorIsADecodingError() {
    #expect(throws: DecodingError.self) { try decode(#"{"success":false,"error":"meltdown"}"#) }
  }
}

import ConduitFoundation
import ConduitTesting
import Foundation
import Testing

private struct Point: Codable, Equatable {
  var x: Int
  var y: Int
}

/// Foundation's coders plug into `encode(encoder:)` and `decode(type:decoder:)` unchanged.
@Suite(.leakChecked)
struct CodersTests {
  @Test func jsonRoundTrip() {
    var received: [Point] = []
    var completion: Subscribers.Completion<Error>?
    let token = Just(Point(x: 1, y: 2))
      .encode(encoder: JSONEncoder())
      .decode(type: Point.self, decoder: JSONDecoder())
      .sink(receiveCompletion: { completion = $0 }, receiveValue: { received.append($0) })
    token.cancel()
    #expect(received == [Point(x: 1, y: 2)])
    guard case .finished = completion else {
      Issue.record("expected .finished, got \(String(describing: completion))")
      return
    }
  }

  @Test func propertyListRoundTrip() {
    var received: [Point] = []
    let token = Just(Point(x: 3, y: 4))
      .encode(encoder: PropertyListEncoder())
      .decode(type: Point.self, decoder: PropertyListDecoder())
      .sink(receiveCompletion: { _ in }, receiveValue: { received.append($0) })
    token.cancel()
    #expect(received == [Point(x: 3, y: 4)])
  }

  @Test func jsonDecodingFailureSurfacesTheDecodingError() {
    var received: [Point] = []
    var failure: Error?
    let token = Just(Data(#"{"x":1}"#.utf8))
      .decode(type: Point.self, decoder: JSONDecoder())
      .sink(
        receiveCompletion: { if case .failure(let error) = $0 { failure = error } },
        receiveValue: { received.append($0) })
    token.cancel()
    #expect(received.isEmpty)
    guard case .keyNotFound(let key, _) = failure as? DecodingError else {
      Issue.record("expected DecodingError.keyNotFound, got \(String(describing: failure))")
      return
    }
    #expect(key.stringValue == "y")
  }

  @Test func propertyListDecodingFailureSurfacesTheDecodingError() {
    var failure: Error?
    let token = Just(Data("not a plist".utf8))
      .decode(type: Point.self, decoder: PropertyListDecoder())
      .sink(receiveCompletion: { if case .failure(let error) = $0 { failure = error } }, receiveValue: { _ in })
    token.cancel()
    #expect(failure is DecodingError)
  }
}

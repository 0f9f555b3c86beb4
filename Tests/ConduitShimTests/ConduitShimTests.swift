// Imports only the shim (beside the test's own fixtures): every use of Combine's API below must
// come through `ConduitShim`, so the suite stops compiling if the shim stops re-exporting it.
import ConduitShim
import Dispatch
import Foundation
import LoopbackHTTP
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif
// The leak checks, where Conduit backs the shim (see ShimLeakCheck.swift).
#if !canImport(Combine)
  import ConduitTesting
#endif

private final class Counter: ObservableObject {
  @Published var count = 0
}

@Suite(.leakChecked(timeout: .seconds(5)))
struct ConduitShimTests {
  @Test func aSubjectThroughOperatorsReachesASink() {
    let subject = PassthroughSubject<Int, Never>()
    var seen: [String] = []
    var completion: Subscribers.Completion<Never>?
    let token =
      subject
      .filter { $0.isMultiple(of: 2) }
      .map { "\($0)" }
      .scan("") { $0 + $1 }
      .sink(receiveCompletion: { completion = $0 }, receiveValue: { seen.append($0) })
    for value in 1...6 { subject.send(value) }
    subject.send(completion: .finished)
    #expect(seen == ["2", "24", "246"])
    #expect(completion == .finished)
    token.cancel()
  }

  @Test func currentValueSubjectAndAnyCancellableStore() {
    let subject = CurrentValueSubject<Int, Never>(1)
    var tokens = Set<AnyCancellable>()
    var seen: [Int] = []
    subject.removeDuplicates().sink { seen.append($0) }.store(in: &tokens)
    subject.value = 1
    subject.value = 2
    #expect(seen == [1, 2])
    tokens.removeAll()
    subject.value = 3
    #expect(seen == [1, 2])
  }

  @Test func receiveOnDeliversOnTheQueueAndValuesAwaitsThem() async {
    let queue = DispatchQueue(label: "ConduitShimTests.receiveOn")
    let key = DispatchSpecificKey<Bool>()
    queue.setSpecific(key: key, value: true)
    var received: [Int] = []
    for await value in [1, 2, 3].publisher.receive(on: queue).map({ ($0, DispatchQueue.getSpecific(key: key)) }).values
    {
      #expect(value.1 == true)
      received.append(value.0)
    }
    #expect(received == [1, 2, 3])
  }

  @Test func publishedAndObservableObject() {
    let counter = Counter()
    var published: [Int] = []
    var willChange = 0
    let values = counter.$count.sink { published.append($0) }
    let changes = counter.objectWillChange.sink { _ in willChange += 1 }
    counter.count = 1
    counter.count = 2
    #expect(published == [0, 1, 2])
    #expect(willChange == 2)
    values.cancel()
    changes.cancel()
  }

  @Test func futureValueAndJust() async {
    let future = Future<Int, Never> { promise in promise(.success(42)) }
    let sum = await future.zip(Just(1)).map { $0 + $1 }.values.first { _ in true }
    #expect(sum == 43)
  }

  @Test func urlSessionsDataTaskPublisherFetches() async throws {
    let server = try LoopbackHTTPServer { _, _ in .text("through the shim") }
    defer { server.stop() }
    let session = URLSession.loopback()
    defer { session.finishTasksAndInvalidate() }
    var bodies: [String] = []
    for try await body in session.dataTaskPublisher(for: server.url("/shim")).map({
      String(decoding: $0.data, as: UTF8.self)
    }).values {
      bodies.append(body)
    }
    #expect(bodies == ["through the shim"])
  }

  @Test func jsonDecodingThroughTheFoundationIntegration() throws {
    struct Item: Decodable, Equatable { let id: Int }
    var items: [Item] = []
    var failure: (any Error)?
    let token = Just(Data(#"{"id": 7}"#.utf8))
      .decode(type: Item.self, decoder: JSONDecoder())
      .sink(
        receiveCompletion: { if case .failure(let error) = $0 { failure = error } },
        receiveValue: { items.append($0) })
    #expect(items == [Item(id: 7)])
    #expect(failure == nil)
    token.cancel()
  }
}

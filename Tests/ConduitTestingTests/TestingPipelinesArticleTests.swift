import Conduit
import ConduitSchedulers
import ConduitTesting
import Dispatch
import Testing

#if canImport(XCTest)
  import XCTest
#endif

/// The examples of the article "Testing pipelines"
/// (Sources/ConduitTesting/ConduitTesting.docc/TestingPipelines.md), run as they are written
/// there: when this test changes, change the article too.
@Suite(.leakChecked)
struct TestingPipelinesArticleTests {
  /// The article's model: it searches once the user stops typing, on the scheduler it is given.
  final class SearchModel {
    let queries = PassthroughSubject<String, Never>()
    private(set) var searches: [String] = []
    private var cancellable: AnyCancellable?

    init(scheduler: AnySchedulerOf<DispatchQueue> = DispatchQueue.main.eraseToAnyScheduler()) {
      cancellable =
        queries
        .debounce(for: .milliseconds(300), scheduler: scheduler)
        .removeDuplicates()
        .sink { [weak self] query in self?.searches.append(query) }
    }
  }

  /// "Check for leaks with Swift Testing": the model and its pipeline go with the model.
  @Test func theModelGoesAwayWithItsPipeline() throws {
    try withLeakCheck { tracker in
      let scheduler = DispatchQueue.test
      let model = tracker.track(SearchModel(scheduler: scheduler.eraseToAnyScheduler()))
      model.queries.send("conduit")
      scheduler.advance(by: .milliseconds(300))
      #expect(model.searches == ["conduit"])
    }
  }

  /// "Move time by hand": the injectable-scheduler pattern.
  @Test func searchesOnceTypingPauses() {
    let scheduler = DispatchQueue.test
    let model = SearchModel(scheduler: scheduler.eraseToAnyScheduler())

    model.queries.send("c")
    model.queries.send("co")
    model.queries.send("con")
    scheduler.advance(by: .milliseconds(299))
    #expect(model.searches.isEmpty)

    scheduler.advance(by: .milliseconds(1))
    #expect(model.searches == ["con"])
  }

  /// The article's typist: async code that sleeps on a clock between the queries it sends.
  struct Typist {
    let clock: any Clock<Duration>

    /// Sends each prefix of `text`, a tenth of a second apart.
    func type(_ text: String, into queries: PassthroughSubject<String, Never>) async throws {
      var typed = ""
      for character in text {
        try await clock.sleep(for: .milliseconds(100))
        typed.append(character)
        queries.send(typed)
      }
    }
  }

  /// "Move async code and pipelines together": one advance moves the typist's clock and the
  /// model's debounce.
  @Test func searchesWhatWasTypedOnceTypingPauses() async throws {
    let scheduler = DispatchQueue.test
    let model = SearchModel(scheduler: scheduler.eraseToAnyScheduler())
    let typist = Typist(clock: scheduler.clock)
    let queries = model.queries
    let typing = Task.immediate { try await typist.type("con", into: queries) }

    await scheduler.advance(by: .seconds(1))
    #expect(model.searches == ["con"])
    try await typing.value
  }

  /// "Record what a publisher sends": a `TestSubscriber` that asks for one value at a time.
  @Test func aBurstOfTypingSearchesOnceForItsLastQuery() {
    let scheduler = DispatchQueue.test
    let frame: DispatchQueue.SchedulerTimeType.Stride = .milliseconds(100)
    let typed = scheduler.cold(
      "-ab---c-de----|",
      values: ["a": "c", "b": "co", "c": "con", "d": "cond", "e": "conduit"],
      frame: frame)
    let searched = typed.debounce(for: .milliseconds(300), scheduler: scheduler)
    #expect(
      scheduler.marbles(of: searched, values: ["b": "co", "e": "conduit"], frame: frame, frames: 20)
        == "-----b------e-|")
  }

  @Test func aSubscriberThatAsksForOneValueAtATime() {
    let scheduler = DispatchQueue.test
    let queries = PassthroughSubject<String, Never>()
    let subscriber = TestSubscriber<String, Never>(initialDemand: .max(1))
    queries
      .debounce(for: .milliseconds(300), scheduler: scheduler)
      .subscribe(subscriber)

    queries.send("con")
    scheduler.advance(by: .milliseconds(300))
    queries.send("conduit")
    scheduler.advance(by: .milliseconds(300))
    #expect(subscriber.values == ["con"])  // "conduit" came without demand

    subscriber.request(.max(1))
    queries.send("swift")
    scheduler.advance(by: .milliseconds(300))
    queries.send(completion: .finished)
    scheduler.advance()
    #expect(subscriber.events == [.subscription, .value("con"), .value("swift"), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  /// The article's counter-example: a model whose sink captures it strongly.
  final class LeakingSearchModel {
    let queries = PassthroughSubject<String, Never>()
    var searches: [String] = []
    var cancellable: AnyCancellable?

    init() {
      cancellable = queries.sink { query in self.searches.append(query) }
    }
  }

  /// "Check for leaks with Swift Testing": a model whose sink captures it strongly is reported,
  /// by its type and the line where it was tracked, ahead of the framework objects its pipeline
  /// keeps alive.
  /// "Await what a pipeline on real queues sends".
  @Test func theUppercasedQueriesArriveOnTheDeliveryQueue() async throws {
    let queries = PassthroughSubject<String, Never>()
    let recorder =
      queries
      .map { $0.uppercased() }
      .receive(on: DispatchQueue(label: "delivery"))
      .record()

    queries.send("con")
    queries.send("conduit")
    #expect(try await recorder.next(2) == ["CON", "CONDUIT"])

    queries.send(completion: .finished)
    #expect(try await recorder.completion() == .finished)
  }

  @Test func aModelThatCapturesItselfIsReported() {
    weak var escaped: LeakingSearchModel?
    var trackedLine = 0
    let failure = #expect(throws: LeakCheckFailure.self) {
      try withLeakCheck(timeout: .milliseconds(20)) { tracker in
        let (model, line) = (tracker.track(LeakingSearchModel()), #line)
        trackedLine = line
        escaped = model
        model.queries.send("conduit")
      }
    }
    #expect(failure?.survivors.first?.typeName.hasSuffix("LeakingSearchModel") == true)
    #expect(failure?.survivors.first?.line == trackedLine)
    #expect((failure?.survivors.count ?? 0) > 1)

    // Only the cycle keeps the model alive; breaking it frees everything, so that the suite's
    // own leak check passes.
    #expect(escaped != nil)
    escaped?.cancellable?.cancel()
    #expect(escaped == nil)
  }

  /// "Find the line that built a leaked pipeline": the article's leaking model, whose pipeline
  /// debounces.
  final class DebouncingLeakingSearchModel {
    let queries = PassthroughSubject<String, Never>()
    private(set) var searches: [String] = []
    var cancellable: AnyCancellable?

    init(scheduler: AnySchedulerOf<DispatchQueue>) {
      cancellable =
        queries
        .debounce(for: .milliseconds(300), scheduler: scheduler)
        .removeDuplicates()
        .sink { query in self.searches.append(query) }
    }

    static let sinkLine = #line - 3
  }

  /// "Find the line that built a leaked pipeline": the report names the model's `sink` line.
  @Test func aLeakedPipelineNamesTheLineThatSubscribedIt() {
    weak var escaped: DebouncingLeakingSearchModel?
    let failure = failedLeakCheck { _ in
      let model = DebouncingLeakingSearchModel(scheduler: DispatchQueue.test.eraseToAnyScheduler())
      escaped = model
    }
    let line = DebouncingLeakingSearchModel.sinkLine
    #expect(
      failure?.pipelines.map(\.description) == [
        "Sink<String, Never> ← RemoveDuplicates ← Debounce ← PassthroughSubject, subscribed at TestingPipelinesArticleTests.swift:\(line)"
      ])
    #expect(
      failure?.description.hasSuffix(
        "1 pipeline leaked: Sink<String, Never> ← RemoveDuplicates ← Debounce ← PassthroughSubject, subscribed at TestingPipelinesArticleTests.swift:\(line)"
      ) == true)
    escaped?.cancellable?.cancel()
    #expect(escaped == nil)
  }
}

#if canImport(XCTest)
  /// "Check for leaks with XCTest".
  final class TestingPipelinesArticleXCTests: XCTestCase {
    func testTheModelGoesAwayAtTheEndOfTheTest() {
      let scheduler = DispatchQueue.test
      let model = TestingPipelinesArticleTests.SearchModel(scheduler: scheduler.eraseToAnyScheduler())
      trackForLeaks(model)
      model.queries.send("conduit")
      scheduler.advance(by: .milliseconds(300))
      XCTAssertEqual(model.searches, ["conduit"])
    }
  }
#endif

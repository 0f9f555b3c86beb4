import Conduit
import Dispatch
import Testing

@testable import ConduitTesting

/// Marble diagrams on `TestScheduler`: the syntax, hot and cold publishers, demand, failure, and
/// what `marbles(of:)` draws.
@Suite(.leakChecked)
struct MarbleDiagramTests {
  struct Boom: Error, Equatable {}

  let frame: DispatchQueue.SchedulerTimeType.Stride = .milliseconds(10)

  // MARK: The syntax

  @Test func everySymbolReadsAsItsFrame() throws {
    let diagram = try MarbleDiagram.parse("-a 1(bc)-|", keys: ["a", "b", "c", "1"], failureAllowed: false)
    #expect(
      diagram.frames == [
        .init(index: 1, events: [.value("a")]),
        .init(index: 2, events: [.value("1")]),
        .init(index: 3, events: [.value("b"), .value("c")]),
        .init(index: 5, events: [.finished]),
      ])
    #expect(diagram.length == 6)
    let failing = try MarbleDiagram.parse("--#", keys: [], failureAllowed: true)
    #expect(failing.frames == [.init(index: 2, events: [.failed])])
    let grouped = try MarbleDiagram.parse("(a|)", keys: ["a"], failureAllowed: false)
    #expect(grouped.frames == [.init(index: 0, events: [.value("a"), .finished])])
  }

  @Test(arguments: [
    ("-a-x|", 4, "'x' is not a key of `values` (its keys: a, b)"),
    ("-a-(b|", 4, "the group opened here is never closed with ')'"),
    ("-a|-b", 5, "'b' comes after the completion at column 3"),
    ("-a#", 3, "'#' fails the timeline, but no failure was given; pass one with `failure:`"),
    ("-a*", 3, "'*' is not a marble symbol"),
    ("(a(b))", 3, "a group opens inside the group opened at column 1"),
    ("-a)", 3, "')' closes no group"),
    ("-()", 2, "an empty group"),
    ("(a-b)", 3, "'-' inside a group"),
    ("-a|(b)", 4, "a group after the completion"),
  ])
  func aMalformedDiagramIsQuotedWithACaretAtTheColumn(diagram: String, column: Int, reason: String) {
    #expect {
      try MarbleDiagram.parse(diagram, keys: ["a", "b"], failureAllowed: false)
    } throws: { error in
      let text = (error as! MarbleDiagram.Malformed).description
      let caret = String(repeating: " ", count: column - 1) + "^"
      return text.contains(reason) && text.contains("(column \(column))")
        && text.hasSuffix("\n  \(diagram)\n  \(caret)")
    }
  }

  @Test func aMalformedColdDiagramStopsWithThePreconditionMessage() async {
    await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = DispatchQueue.test.cold("-a-x|", values: ["a": 1], frame: .milliseconds(10))
    }.map { result in
      let text = String(decoding: result.standardErrorContent, as: UTF8.self)
      #expect(text.contains("Marble diagram \"-a-x|\": 'x' is not a key of `values` (its keys: a) (column 4)."))
      #expect(text.contains("  -a-x|\n     ^"))
    }
  }

  @Test func aMalformedHotDiagramStopsWithThePreconditionMessage() async {
    await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = DispatchQueue.test.hot("-a|a", values: ["a": 1], frame: .milliseconds(10))
    }.map { result in
      let text = String(decoding: result.standardErrorContent, as: UTF8.self)
      #expect(text.contains("'a' comes after the completion at column 3 (column 4)."))
    }
  }

  // MARK: Drawing

  @Test(arguments: ["-a-b|", "a|", "(ab)-c|", "--(a|)", "-1-2-#", "|", "#", "-a-a-b"])
  func whatAColdPublisherDrawsReadsBackAsItsDiagram(diagram: String) {
    let scheduler = DispatchQueue.test
    let values: [Character: String] = ["a": "A", "b": "B", "c": "C", "1": "one", "2": "two"]
    let cold = scheduler.cold(diagram, values: values, failure: Boom(), frame: frame)
    #expect(scheduler.marbles(of: cold, values: values, frame: frame, frames: diagram.count - 1) == diagram)
  }

  @Test func spacesAlignDiagramsAndAreNotFrames() {
    let scheduler = DispatchQueue.test
    let cold = scheduler.cold("- a  - b |", values: ["a": 1, "b": 2], frame: frame)
    #expect(scheduler.marbles(of: cold, values: ["a": 1, "b": 2], frame: frame, frames: 10) == "-a-b|")
  }

  @Test func valuesWithoutAKeyAreDrawnAsTheirDescription() {
    let scheduler = DispatchQueue.test
    let cold = scheduler.cold("-a-b-c|", values: ["a": 1, "b": 2, "c": 3], frame: frame)
    let drawn = scheduler.marbles(of: cold.map { $0 * 10 }, values: ["x": 10, "y": 10], frame: frame, frames: 10)
    #expect(drawn == "-x-[20]-[30]|")
  }

  @Test func withoutACompletionTheDiagramCoversFramesZeroThroughFrames() {
    let scheduler = DispatchQueue.test
    let cold = scheduler.cold("-a", values: ["a": 1], frame: frame)
    #expect(scheduler.marbles(of: cold, values: ["a": 1], frame: frame, frames: 4) == "-a---")
    #expect(scheduler.marbles(of: Empty<Int, Never>(completeImmediately: false), frame: frame, frames: 0) == "-")
  }

  @Test func drawingStopsAtTheCompletionAndReleasesThePipeline() {
    let scheduler = DispatchQueue.test
    let cold = scheduler.cold("-a|", values: ["a": 1], frame: frame)
    let start = scheduler.now
    #expect(scheduler.marbles(of: cold, values: ["a": 1], frame: frame, frames: 100) == "-a|")
    #expect(scheduler.now == start.advanced(by: .milliseconds(20)))
  }

  @Test func anEventBetweenTwoFramesIsDrawnInTheLaterOne() {
    let scheduler = DispatchQueue.test
    let cold = scheduler.cold("a-|", values: ["a": 1], frame: frame)
    let late = cold.delay(for: .milliseconds(11), scheduler: scheduler)
    #expect(scheduler.marbles(of: late, values: ["a": 1], frame: frame, frames: 10) == "--a-|")
  }

  // MARK: Cold and hot

  @Test func aColdTimelineStartsAtEachSubscription() {
    let scheduler = DispatchQueue.test
    let cold = scheduler.cold("-a-b|", values: ["a": 1, "b": 2], frame: frame)
    let first = TestSubscriber<Int, Never>()
    cold.subscribe(first)
    scheduler.advance(by: .milliseconds(20))
    let second = TestSubscriber<Int, Never>()
    cold.subscribe(second)
    scheduler.advance(by: .milliseconds(20))
    #expect(first.values == [1, 2])
    #expect(first.completion == .finished)
    #expect(second.values == [1])
    scheduler.advance(by: .milliseconds(20))
    #expect(second.values == [1, 2])
    #expect(second.completion == .finished)
  }

  @Test func aHotTimelineStartsWhenItIsCreated() {
    let scheduler = DispatchQueue.test
    let hot = scheduler.hot("-a-b-c|", values: ["a": 1, "b": 2, "c": 3], frame: frame)
    scheduler.advance(by: .milliseconds(20))
    let late = TestSubscriber<Int, Never>()
    hot.subscribe(late)
    scheduler.advance(by: .milliseconds(100))
    #expect(late.values == [2, 3])
    #expect(late.completion == .finished)
    let afterTheEnd = TestSubscriber<Int, Never>()
    hot.subscribe(afterTheEnd)
    #expect(afterTheEnd.values.isEmpty)
    #expect(afterTheEnd.completion == .finished)
  }

  @Test func aColdPublisherHoldsValuesAndItsCompletionUntilDemand() {
    let scheduler = DispatchQueue.test
    let cold = scheduler.cold("-a-b|", values: ["a": 1, "b": 2], frame: frame)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    cold.subscribe(subscriber)
    scheduler.advance(by: .milliseconds(100))
    #expect(subscriber.values.isEmpty)
    #expect(subscriber.completion == nil)
    subscriber.request(.max(1))
    scheduler.advance()
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == nil)
    subscriber.request(.max(1))
    scheduler.advance()
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aHotPublisherDropsValuesItHasNoDemandFor() {
    let scheduler = DispatchQueue.test
    let hot = scheduler.hot("-a-b-c|", values: ["a": 1, "b": 2, "c": 3], frame: frame)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    hot.subscribe(subscriber)
    scheduler.advance(by: .milliseconds(20))
    subscriber.request(.max(1))
    scheduler.advance(by: .milliseconds(100))
    #expect(subscriber.values == [2])
    #expect(subscriber.completion == .finished)
  }

  @Test func aFailureReachesTheSubscriberAfterTheValuesBeforeIt() {
    let scheduler = DispatchQueue.test
    let cold = scheduler.cold("-a#", values: ["a": 1], failure: Boom(), frame: frame)
    let subscriber = TestSubscriber<Int, Boom>()
    cold.subscribe(subscriber)
    scheduler.advance(by: .milliseconds(100))
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == .failure(Boom()))
    let hot = scheduler.hot("a-#", values: ["a": 1], failure: Boom(), frame: frame)
    #expect(scheduler.marbles(of: hot, values: ["a": 1], frame: frame, frames: 5) == "a-#")
  }

  @Test func aCancelledColdSubscriptionDeliversNothingMore() {
    let scheduler = DispatchQueue.test
    let cold = scheduler.cold("-a-b|", values: ["a": 1, "b": 2], frame: frame)
    let subscriber = TestSubscriber<Int, Never>()
    cold.subscribe(subscriber)
    scheduler.advance(by: .milliseconds(10))
    subscriber.cancel()
    scheduler.advance(by: .milliseconds(100))
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == nil)
  }

  @Test func aRequestFromInsideReceiveAddsToTheDeliveryUnderWay() {
    let scheduler = DispatchQueue.test
    let cold = scheduler.cold("(abc|)", values: ["a": 1, "b": 2, "c": 3], frame: frame)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    cold.subscribe(subscriber)
    scheduler.advance()
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == .finished)
  }

  // MARK: Operators, drawn

  @Test func debounce() {
    let scheduler = DispatchQueue.test
    let typed = scheduler.cold("-a-b----c---|", values: ["a": "s", "b": "sw", "c": "swift"], frame: frame)
    let drawn = scheduler.marbles(
      of: typed.debounce(for: .milliseconds(20), scheduler: scheduler), values: ["b": "sw", "c": "swift"],
      frame: frame, frames: 15)
    #expect(drawn == "-----b----c-|")
  }

  @Test func throttle() {
    let scheduler = DispatchQueue.test
    let values: [Character: Int] = ["a": 1, "b": 2, "c": 3, "d": 4, "e": 5]
    let source = scheduler.hot("-abc-d---e|", values: values, frame: frame)
    let latest = source.throttle(for: .milliseconds(30), scheduler: scheduler, latest: true)
    let first = source.throttle(for: .milliseconds(30), scheduler: scheduler, latest: false)
    let drawn = scheduler.marbles(
      of: latest.merge(with: first.map { $0 * 10 }), values: values, frame: frame, frames: 15)
    #expect(drawn == "-(a[10])--(c[20])--(d[40])--(e[50]|)")
  }

  @Test func delay() {
    let scheduler = DispatchQueue.test
    let source = scheduler.cold("-a-b|", values: ["a": 1, "b": 2], frame: frame)
    let drawn = scheduler.marbles(
      of: source.delay(for: .milliseconds(20), scheduler: scheduler), values: ["a": 1, "b": 2], frame: frame,
      frames: 10)
    #expect(drawn == "---a-b|")
  }

  @Test func flatMap() {
    let scheduler = DispatchQueue.test
    let outer = scheduler.cold("-a--b---|", values: ["a": 1, "b": 2], frame: frame)
    let flattened = outer.flatMap { n in scheduler.cold("-x-x|", values: ["x": n * 10], frame: self.frame) }
    #expect(scheduler.marbles(of: flattened, values: ["a": 10, "b": 20], frame: frame, frames: 20) == "--a-ab-b|")
  }

  @Test func switchToLatest() {
    let scheduler = DispatchQueue.test
    let outer = scheduler.cold("-a--b|", values: ["a": 1, "b": 2], frame: frame)
    let latest = outer.map { n in scheduler.cold("-x-x-x|", values: ["x": n], frame: self.frame) }.switchToLatest()
    #expect(scheduler.marbles(of: latest, values: ["a": 1, "b": 2], frame: frame, frames: 20) == "--a--b-b-b|")
  }

  @Test func merge() {
    let scheduler = DispatchQueue.test
    let left = scheduler.hot("-a--c|", values: ["a": 1, "c": 3], frame: frame)
    let right = scheduler.hot("--b--d|", values: ["b": 2, "d": 4], frame: frame)
    let merged = left.merge(with: right)
    #expect(
      scheduler.marbles(of: merged, values: ["a": 1, "b": 2, "c": 3, "d": 4], frame: frame, frames: 10) == "-ab-cd|")
  }

  @Test func zip() {
    let scheduler = DispatchQueue.test
    let letters = scheduler.cold("-a-b---|", values: ["a": "a", "b": "b"], frame: frame)
    let marks = scheduler.cold("--x---y|", values: ["x": "x", "y": "y"], frame: frame)
    let zipped = letters.zip(marks).map { $0 + $1 }
    #expect(scheduler.marbles(of: zipped, values: ["p": "ax", "q": "by"], frame: frame, frames: 10) == "--p---q|")
  }

  @Test func retryAfterADelay() {
    let scheduler = DispatchQueue.test
    let flaky = scheduler.cold("-a#", values: ["a": 1], failure: Boom(), frame: frame)
    let retried = flaky.delay(for: .milliseconds(20), scheduler: scheduler).retry(1)
    #expect(scheduler.marbles(of: retried, values: ["a": 1], frame: frame, frames: 20) == "---a---a#")
  }
}

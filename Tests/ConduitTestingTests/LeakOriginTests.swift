import Conduit
import ConduitTesting
import Dispatch
import Synchronization
import Testing

/// A failed leak check names each leaked pipeline by its operators, downstream first, with the
/// line of the user's code that subscribed it.
@Suite(.leakChecked)
struct LeakOriginTests {
  /// Keeps the token of a pipeline that captures it: the leak every test here builds.
  final class Owner {
    var cancellable: AnyCancellable?
    var cancellables: [AnyCancellable] = []
    var reading = 0
  }

  static let fileName = "LeakOriginTests.swift"

  // MARK: The line of each kind of call

  @Test func sinkNamesItsLineAndItsOperators() {
    let subject = PassthroughSubject<Int, Never>()
    let owner = Owner()
    var sinkLine = 0
    let failure = failedLeakCheck { _ in
      (owner.cancellable, sinkLine) = (subject.map { $0 * 2 }.sink { owner.reading = $0 }, #line)
    }
    let pipeline = failure?.pipelines.first
    #expect(failure?.pipelines.count == 1)
    #expect(pipeline?.operators == ["Sink<Int, Never>", "Map", "PassthroughSubject"])
    #expect(pipeline?.origin?.path == #filePath)
    #expect(pipeline?.origin?.fileName == Self.fileName)
    #expect(pipeline?.origin?.line == sinkLine)
    #expect(
      failure?.description.hasSuffix(
        "\n1 pipeline leaked: Sink<Int, Never> ← Map ← PassthroughSubject, subscribed at \(Self.fileName):\(sinkLine)")
        == true)
    owner.cancellable = nil
  }

  @Test func assignNamesItsLine() {
    let subject = PassthroughSubject<Int, Never>()
    weak var escaped: Owner?
    var assignLine = 0
    let failure = failedLeakCheck { _ in
      let owner = Owner()
      escaped = owner
      (owner.cancellable, assignLine) = (subject.assign(to: \.reading, on: owner), #line)
    }
    #expect(
      failure?.pipelines.map(\.description) == [
        "Assign<ConduitTestingTests.LeakOriginTests.Owner, Int> ← PassthroughSubject, subscribed at \(Self.fileName):\(assignLine)"
      ])
    escaped?.cancellable = nil
    #expect(escaped == nil)
  }

  @Test func aSubscriberBuiltOnItsOwnNamesTheLineThatBuiltIt() {
    let subject = PassthroughSubject<Int, Never>()
    var kept: AnyCancellable?
    var buildLine = 0
    let failure = failedLeakCheck { _ in
      let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in }); buildLine = #line
      kept = AnyCancellable(sink)
      subject.filter { $0 > 0 }.subscribe(sink)
    }
    // What `subscribe` builds for the sink joins the pipeline the sink started.
    #expect(failure?.pipelines.map(\.operators) == [["Sink<Int, Never>", "Filter", "PassthroughSubject"]])
    #expect(failure?.pipelines.first?.survivors.count == 2)
    #expect(failure?.pipelines.first?.origin?.line == buildLine)
    #expect(kept != nil)
    kept = nil
  }

  @Test func subscribeOfASubjectNamesItsLine() {
    let upstream = PassthroughSubject<Int, Never>()
    let relay = CurrentValueSubject<Int, Never>(0)
    var kept: AnyCancellable?
    var subscribeLine = 0
    let failure = failedLeakCheck { _ in
      (kept, subscribeLine) = (upstream.subscribe(relay), #line)
    }
    #expect(
      failure?.pipelines.map(\.description) == [
        "CurrentValueSubject<Int, Never> ← PassthroughSubject, subscribed at \(Self.fileName):\(subscribeLine)"
      ])
    #expect(kept != nil)
    kept = nil
  }

  @Test func storeInNamesTheLineOfTheCallThatBuiltTheSink() {
    let subject = PassthroughSubject<String, Never>()
    let owner = Owner()
    var storeLine = 0
    let failure = failedLeakCheck { _ in
      subject.sink { _ in }.store(in: &owner.cancellables); storeLine = #line
    }
    #expect(failure?.pipelines.first?.origin?.line == storeLine)
    #expect(failure?.pipelines.first?.operators == ["Sink<String, Never>", "PassthroughSubject"])
    owner.cancellables.removeAll()
  }

  @Test func aChainOverSeveralLinesNamesTheLineOfItsSink() {
    let subject = PassthroughSubject<Int, Never>()
    let owner = Owner()
    var sinkLine = 0
    let failure = failedLeakCheck { _ in
      subject
        .removeDuplicates()
        .compactMap { $0 }
        .sink { owner.reading = $0 }
        .store(in: &owner.cancellables)
      sinkLine = #line - 2
    }
    #expect(failure?.pipelines.first?.origin?.line == sinkLine)
    #expect(
      failure?.pipelines.first?.operators == [
        "Sink<Int, Never>", "CompactMap", "RemoveDuplicates", "PassthroughSubject",
      ])
    owner.cancellables.removeAll()
  }

  @Test func valuesNamesTheLineThatMadeTheIterator() async {
    let subject = PassthroughSubject<Int, Never>()
    var iterator: AsyncPublisher<PassthroughSubject<Int, Never>>.Iterator?
    var valuesLine = 0
    let failure = failedLeakCheck { _ in
      (iterator, valuesLine) = (subject.values.makeAsyncIterator(), #line)
    }
    #expect(
      failure?.pipelines.map(\.description) == [
        "values ← PassthroughSubject, subscribed at \(Self.fileName):\(valuesLine)"
      ])
    #expect(iterator != nil)
    iterator = nil
  }

  // MARK: Grouping

  @Test func pipelinesFromTheSameLineAreCounted() {
    let subject = PassthroughSubject<Int, Never>()
    let owner = Owner()
    var sinkLine = 0
    let failure = failedGrowthCheck(iterations: 4) { _ in
      owner.cancellables.append(subject.sink { _ in }); sinkLine = #line
    }
    #expect(failure?.pipelines.count == 4)
    #expect(Set(failure?.pipelines ?? []).count == 1)
    // The whole description of a growth check is pinned in `LeakCheckFailureTests`.
    #expect(
      failure?.description.hasSuffix(
        "\n4 pipelines leaked: Sink<Int, Never> ← PassthroughSubject, subscribed at \(Self.fileName):\(sinkLine)")
        == true)
    owner.cancellables.removeAll()
  }

  @Test func eachPipelineIsListedInTheOrderItWasSubscribed() {
    let numbers = PassthroughSubject<Int, Never>()
    let words = CurrentValueSubject<String, Never>("")
    let owner = Owner()
    var lines: [Int] = []
    let failure = failedLeakCheck { _ in
      owner.cancellables.append(words.map { $0.count }.sink { _ in }); lines.append(#line)
      owner.cancellables.append(numbers.merge(with: words.map { $0.count }).sink { _ in }); lines.append(#line)
    }
    #expect(
      failure?.pipelines.map(\.description) == [
        "Sink<Int, Never> ← Map ← CurrentValueSubject, subscribed at \(Self.fileName):\(lines[0])",
        "Sink<Int, Never> ← Merge ← PassthroughSubject ← Map ← CurrentValueSubject, subscribed at \(Self.fileName):\(lines[1])",
      ])
    #expect(failure?.pipelines.map(\.survivors.count) == [2, 4])
    owner.cancellables.removeAll()
  }

  @Test func objectsAPipelineCreatesLaterBelongToIt() {
    let outer = PassthroughSubject<Int, Never>()
    let inner = PassthroughSubject<Int, Never>()
    let owner = Owner()
    var sinkLine = 0
    let failure = failedLeakCheck { _ in
      (owner.cancellable, sinkLine) = (outer.flatMap { _ in inner }.sink { _ in }, #line)
      // The inner subscription is made here, inside `send`, not inside `sink`.
      outer.send(1)
    }
    #expect(failure?.pipelines.count == 1)
    #expect(failure?.pipelines.first?.survivors.count == 4)
    #expect(
      failure?.pipelines.first?.description
        == "Sink<Int, Never> ← FlatMap ← PassthroughSubject ← PassthroughSubject, subscribed at \(Self.fileName):\(sinkLine)"
    )
    owner.cancellable = nil
  }

  @Test func aSubscriberSubscribedOnAnotherThreadKeepsItsPipeline() {
    let keeper = Keeper()
    let subject = PassthroughSubject<Int, Never>()
    var buildLine = 0
    let failure = failedLeakCheck { _ in
      nonisolated(unsafe) let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
      buildLine = #line - 1
      let subscribed = DispatchSemaphore(value: 0)
      DispatchQueue(label: "LeakOriginTests.other").async {
        // No check is bound to this thread: the subject's subscription joins the sink's pipeline.
        subject.map { $0 + 1 }.subscribe(sink)
        keeper.keep(AnyCancellable(sink))
        subscribed.signal()
      }
      subscribed.wait()
    }
    #expect(failure?.pipelines.count == 1)
    #expect(failure?.pipelines.first?.operators == ["Sink<Int, Never>", "Map", "PassthroughSubject"])
    #expect(failure?.pipelines.first?.survivors.count == 2)
    #expect(failure?.pipelines.first?.origin?.line == buildLine)
    keeper.releaseAll()
  }

  @Test func aSubscriberNeverSubscribedNamesTheLineThatBuiltIt() {
    var kept: Subscribers.Sink<Int, Never>?
    var buildLine = 0
    let failure = failedLeakCheck { _ in
      kept = Subscribers.Sink(receiveCompletion: { _ in }, receiveValue: { _ in }); buildLine = #line
    }
    #expect(failure?.survivors.map(\.typeName) == ["Subscribers.Sink<Int, Never>"])
    #expect(
      failure?.description == """
        1 object(s) outlived the leak check:
          - Subscribers.Sink<Int, Never>
        1 pipeline leaked: Sink<Int, Never>, built at \(Self.fileName):\(buildLine)
        """)
    #expect(kept != nil)
    kept = nil
  }
}

/// Every operator keeps a pipeline whole: what it builds, now or later, joins the pipeline of the
/// subscriber it is built for, through the operators that allocate nothing of their own.
@Suite(.leakChecked)
struct LeakOriginCoverageTests {
  /// Pipelines through each family of operators.
  enum Chain: String, CaseIterable, Sendable {
    case perValue, fallible, triggers, fanIn, flattening, sharing, concatenation, time, reductions
  }

  struct Boom: Error {}

  /// Builds a pipeline of `chain`'s operators from `subject` to a sink, and sends it a value.
  static func build(
    _ chain: Chain, from subject: PassthroughSubject<Int, Never>, scheduler: TestSchedulerOf<DispatchQueue>
  ) -> AnyCancellable {
    let other = PassthroughSubject<Int, Never>()
    let cancellable: AnyCancellable
    switch chain {
    case .perValue:
      cancellable = subject.map { $0 + 1 }.filter { $0 > 0 }.compactMap { $0 }.removeDuplicates()
        .scan(0, +).handleEvents(receiveOutput: { _ in }).map(\.self).dropFirst(0).prefix(while: { _ in true })
        .breakpoint().sink { _ in }
    case .fallible:
      cancellable = subject.setFailureType(to: Boom.self).tryMap { $0 }.mapError { _ in Boom() }
        .catch { _ in Just(0).setFailureType(to: Boom.self) }.retry(1).replaceError(with: 0)
        .assertNoFailure().sink { _ in }
    case .triggers:
      cancellable = subject.prefix(untilOutputFrom: other).drop(untilOutputFrom: other).sink { _ in }
    case .fanIn:
      cancellable = subject.merge(with: other).zip(other).combineLatest(other).sink { _ in }
    case .flattening:
      cancellable = subject.flatMap { _ in other }.map { _ in other }.switchToLatest().sink { _ in }
    case .sharing:
      cancellable = subject.share().multicast { PassthroughSubject() }.autoconnect().sink { _ in }
    case .concatenation:
      cancellable = subject.prepend(0).append(other).sink { _ in }
    case .time:
      cancellable = subject.receive(on: scheduler).subscribe(on: scheduler)
        .debounce(for: .seconds(1), scheduler: scheduler).throttle(for: .seconds(1), scheduler: scheduler, latest: true)
        .delay(for: .seconds(1), scheduler: scheduler).timeout(.seconds(9), scheduler: scheduler)
        .measureInterval(using: scheduler).map { _ in 0 }.collect(.byTime(scheduler, .seconds(1))).sink { _ in }
    case .reductions:
      cancellable = subject.buffer(size: 4, prefetch: .byRequest, whenFull: .dropOldest).collect(2).flatMap {
        $0.publisher
      }
      .reduce(0, +).zip(subject.count()).sink { _ in }
    }
    scheduler.advance()
    subject.send(1)
    other.send(2)
    scheduler.advance(by: .milliseconds(10))
    return cancellable
  }

  @Test(arguments: Chain.allCases)
  func aPipelineThroughEachFamilyOfOperatorsIsReportedWhole(_ chain: Chain) {
    let subject = PassthroughSubject<Int, Never>()
    let scheduler = DispatchQueue.test
    let keeper = Keeper()
    let failure = failedLeakCheck { _ in
      keeper.keep(Self.build(chain, from: subject, scheduler: scheduler))
    }
    let pipelines = failure?.pipelines ?? []
    // A shared upstream is a pipeline of its own: each `multicast` connects its subject to it.
    #expect(pipelines.count == (chain == .sharing ? 3 : 1), "\(pipelines.map(\.description))")
    #expect(pipelines.reduce(0) { $0 + $1.survivors.count } == failure?.survivors.count)
    #expect(pipelines.first?.operators.first?.hasPrefix("Sink<") == true)
    #expect(Set(pipelines.map { $0.origin?.line }).count == 1, "\(pipelines.map(\.description))")
    #expect(pipelines.first?.origin?.line != nil)
    keeper.releaseAll()
  }
}

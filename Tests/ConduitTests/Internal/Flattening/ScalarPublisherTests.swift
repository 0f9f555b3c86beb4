import ConduitTesting
import Dispatch
import Testing

@testable import Conduit

// flatMap and switchToLatest take the outcome of a scalar inner publisher (Just, Optional and
// Result publishers, Empty, Fail, and SetFailureType over them) without subscribing to it. The
// differential tests below run each scenario twice: with scalar inner publishers, and with the
// same publishers behind `Deferred`, which is not scalar and so is subscribed to as before. Both
// runs must log the same downstream events and upstream requests and cancels, in the same order,
// and that log must be the one expected. The census shows which path each run took: subscribing
// to a `Just` allocates a subscription, taking a scalar one's value allocates nothing.

private enum ScalarTestError: Error, Equatable {
  case inner
  case upstream
}

/// What a scenario observes, in order: downstream events, upstream requests and cancels.
private final class ScenarioLog: @unchecked Sendable {
  private let entries = Locked<[String]>([])

  func append(_ entry: String) { entries.withLock { $0.append(entry) } }

  var all: [String] { entries.withLock { $0 } }
}

/// What the downstream does from inside `receive(_:)` when it gets a given value.
private enum Reaction: Sendable {
  case request(Subscribers.Demand)
  case cancel
  /// Sends a value from the upstream, re-entrantly.
  case send(Int)
  /// Finishes the upstream, re-entrantly.
  case finishUpstream
  /// The demand `receive(_:)` returns.
  case answer(Subscribers.Demand)
}

/// One thing a scenario does from outside the pipeline.
private enum Step: Sendable {
  case send(Int)
  case finish
  case fail
  case request(Subscribers.Demand)
  case cancel
}

/// A downstream that logs what it receives and reacts as scripted.
private final class ScriptedSubscriber: Subscriber, @unchecked Sendable {
  typealias Input = Int
  typealias Failure = ScalarTestError

  let log: ScenarioLog
  let initialDemand: Subscribers.Demand
  let upstream: HandDrivenUpstream<Int, ScalarTestError>
  // Touched only from the test's thread, or from inside a delivery on it.
  var reactions: [Int: [Reaction]]
  var subscription: (any Subscription)?
  var outstanding = Subscribers.Demand.none

  init(
    log: ScenarioLog, initialDemand: Subscribers.Demand, reactions: [Int: [Reaction]],
    upstream: HandDrivenUpstream<Int, ScalarTestError>
  ) {
    self.log = log
    self.initialDemand = initialDemand
    self.reactions = reactions
    self.upstream = upstream
  }

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    if initialDemand != .none { request(initialDemand) }
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    log.append("value \(input)")
    if outstanding == .none { log.append("violation: value beyond demand") }
    if outstanding != .unlimited && outstanding != .none { outstanding -= 1 }
    var answer = Subscribers.Demand.none
    for reaction in reactions[input] ?? [] {
      switch reaction {
      case .request(let demand): request(demand)
      case .cancel: cancel()
      case .send(let value): upstream.send(value)
      case .finishUpstream: upstream.send(completion: .finished)
      case .answer(let demand): answer = demand
      }
    }
    outstanding += answer
    return answer
  }

  func receive(completion: Subscribers.Completion<ScalarTestError>) {
    switch completion {
    case .finished: log.append("finished")
    case .failure(let error): log.append("failure \(error)")
    }
    subscription = nil
    reactions = [:]
  }

  func request(_ demand: Subscribers.Demand) {
    outstanding += demand
    subscription?.request(demand)
  }

  func cancel() {
    let subscription = self.subscription
    self.subscription = nil
    reactions = [:]
    subscription?.cancel()
  }
}

/// The operator a scenario runs.
private enum Flattening: Sendable, CustomStringConvertible {
  case flatMap(maxPublishers: Subscribers.Demand)
  case switchToLatest

  var description: String {
    switch self {
    case .flatMap(let maxPublishers): "flatMap(maxPublishers: \(maxPublishers))"
    case .switchToLatest: "switchToLatest"
    }
  }
}

/// The scalar inner publishers a scenario's upstream values turn into.
private enum InnerKind: Sendable {
  /// `SetFailureType<Just<Int>, _>`.
  case just
  /// A success, or a failure for a negative value.
  case result
  /// `SetFailureType<Optional<Int>.Publisher, _>`: no value for 0.
  case optional
  /// `Empty` that completes at once, or never for 0.
  case empty
  case fail

  /// Whether a subscription to one of these publishers is a census object (`Empty` and `Fail`
  /// hand out `Subscriptions.empty`).
  var subscribedInnersAreObjects: Bool {
    switch self {
    case .just, .result, .optional: true
    case .empty, .fail: false
    }
  }
}

private struct Scenario: Sendable, CustomTestStringConvertible {
  let name: String
  let flattening: Flattening
  let inner: InnerKind
  var initialDemand = Subscribers.Demand.unlimited
  var reactions: [Int: [Reaction]] = [:]
  let steps: [Step]
  let expected: [String]

  var testDescription: String { "\(flattening): \(name)" }
}

private struct Run {
  let log: [String]
  /// The census objects created after the pipeline was built.
  let createdObjects: Int
}

private func run<Inner: Publisher>(_ scenario: Scenario, inner makeInner: @escaping (Int) -> Inner) -> Run
where Inner.Output == Int, Inner.Failure == ScalarTestError {
  let log = ScenarioLog()
  let upstream = HandDrivenUpstream<Int, ScalarTestError>()
  let subscriber = ScriptedSubscriber(
    log: log, initialDemand: scenario.initialDemand, reactions: scenario.reactions, upstream: upstream)
  let logged = upstream.handleEvents(
    receiveCancel: { log.append("upstream cancel") }, receiveRequest: { log.append("upstream request \($0)") })
  switch scenario.flattening {
  case .flatMap(let maxPublishers):
    logged.flatMap(maxPublishers: maxPublishers, makeInner).subscribe(subscriber)
  case .switchToLatest:
    logged.map(makeInner).switchToLatest().subscribe(subscriber)
  }
  let scope = CensusScope.current
  let built = scope?.joinedCount ?? 0
  for step in scenario.steps {
    switch step {
    case .send(let value): upstream.send(value)
    case .finish: upstream.send(completion: .finished)
    case .fail: upstream.send(completion: .failure(.upstream))
    case .request(let demand): subscriber.request(demand)
    case .cancel: subscriber.cancel()
    }
  }
  let entries = log.all
  let created = (scope?.joinedCount ?? 0) - built
  // Let the pipeline go, whatever state the scenario left it in.
  subscriber.cancel()
  return Run(log: entries, createdObjects: created)
}

/// Runs `scenario` with scalar inner publishers, and with the same publishers behind `Deferred`.
private func runBothWays(_ scenario: Scenario) -> (scalar: Run, subscribed: Run) {
  switch scenario.inner {
  case .just:
    let make = { Publishers.SetFailureType<Just<Int>, ScalarTestError>(upstream: Just($0)) }
    return (run(scenario, inner: make), run(scenario, inner: { value in Deferred { make(value) } }))
  case .result:
    let make = { Result<Int, ScalarTestError>.Publisher($0 < 0 ? .failure(.inner) : .success($0)) }
    return (run(scenario, inner: make), run(scenario, inner: { value in Deferred { make(value) } }))
  case .optional:
    let make = {
      Publishers.SetFailureType<Optional<Int>.Publisher, ScalarTestError>(
        upstream: Optional.Publisher($0 == 0 ? nil : $0))
    }
    return (run(scenario, inner: make), run(scenario, inner: { value in Deferred { make(value) } }))
  case .empty:
    let make = { (value: Int) in Empty<Int, ScalarTestError>(completeImmediately: value != 0) }
    return (run(scenario, inner: make), run(scenario, inner: { value in Deferred { make(value) } }))
  case .fail:
    let make = { (_: Int) in Fail<Int, ScalarTestError>(error: .inner) }
    return (run(scenario, inner: make), run(scenario, inner: { value in Deferred { make(value) } }))
  }
}

private let unlimited = "upstream request unlimited"
private let one = "upstream request max(1)"

private let flatMapScenarios: [Scenario] = [
  Scenario(
    name: "unlimited demand", flattening: .flatMap(maxPublishers: .unlimited), inner: .just,
    steps: [.send(1), .send(2), .finish],
    expected: [unlimited, "value 1", "value 2", "finished"]),
  Scenario(
    name: "values wait in the backlog for demand", flattening: .flatMap(maxPublishers: .unlimited), inner: .just,
    initialDemand: .max(1), steps: [.send(1), .send(2), .send(3), .request(.max(1)), .finish, .request(.max(5))],
    expected: [unlimited, "value 1", "value 2", "value 3", "finished"]),
  // A value that waits releases its inner publisher at once: the replacement is requested
  // before the value is delivered.
  Scenario(
    name: "max(1), values waiting for demand", flattening: .flatMap(maxPublishers: .max(1)), inner: .just,
    initialDemand: .none, steps: [.send(1), .send(2), .request(.max(1)), .finish, .request(.max(1))],
    expected: [one, one, one, "value 1", "value 2", "finished"]),
  // A value delivered at once releases its inner publisher after the delivery.
  Scenario(
    name: "max(1), values delivered at once", flattening: .flatMap(maxPublishers: .max(1)), inner: .just,
    steps: [.send(1), .send(2), .finish],
    expected: [one, "value 1", one, "value 2", one, "finished"]),
  Scenario(
    name: "max(2), demand answered from receive", flattening: .flatMap(maxPublishers: .max(2)), inner: .optional,
    initialDemand: .max(1), reactions: [1: [.answer(.max(1))]],
    steps: [.send(1), .send(2), .send(0), .send(3), .finish, .request(.max(1))],
    expected: [
      "upstream request max(2)", "value 1", one, "value 2", one, one, one, "value 3", "finished",
    ]),
  Scenario(
    name: "a failing inner publisher drops waiting values and cancels the upstream",
    flattening: .flatMap(maxPublishers: .unlimited), inner: .result,
    initialDemand: .none, steps: [.send(1), .send(-2), .request(.max(1))],
    expected: [unlimited, "upstream cancel", "failure inner"]),
  Scenario(
    name: "a failing inner publisher after values", flattening: .flatMap(maxPublishers: .max(2)), inner: .result,
    steps: [.send(1), .send(-2), .send(3)],
    expected: ["upstream request max(2)", "value 1", one, "upstream cancel", "failure inner"]),
  Scenario(
    name: "every inner publisher fails", flattening: .flatMap(maxPublishers: .max(1)), inner: .fail,
    steps: [.send(1), .send(2)],
    expected: [one, "upstream cancel", "failure inner"]),
  Scenario(
    name: "the upstream failure drops waiting values", flattening: .flatMap(maxPublishers: .unlimited),
    inner: .just, initialDemand: .none, steps: [.send(1), .fail, .request(.max(1))],
    expected: [unlimited, "failure upstream"]),
  Scenario(
    name: "a request from inside receive", flattening: .flatMap(maxPublishers: .unlimited), inner: .just,
    initialDemand: .max(1), reactions: [1: [.request(.max(1))]],
    steps: [.send(1), .send(2), .send(3), .finish, .request(.max(1))],
    expected: [unlimited, "value 1", "value 2", "value 3", "finished"]),
  // The value sent from inside receive waits for the delivery in progress, and its inner
  // publisher is released at once; the one being delivered is released after it.
  Scenario(
    name: "an upstream value from inside receive", flattening: .flatMap(maxPublishers: .max(2)), inner: .just,
    reactions: [1: [.send(5)]], steps: [.send(1), .send(2), .finish],
    expected: ["upstream request max(2)", "value 1", one, "value 5", one, "value 2", one, "finished"]),
  Scenario(
    name: "the upstream finishes from inside receive", flattening: .flatMap(maxPublishers: .max(1)), inner: .just,
    reactions: [2: [.finishUpstream]], steps: [.send(1), .send(2)],
    expected: [one, "value 1", one, "value 2", "finished"]),
  Scenario(
    name: "a cancel from inside receive", flattening: .flatMap(maxPublishers: .unlimited), inner: .just,
    reactions: [2: [.cancel]], steps: [.send(1), .send(2), .send(3)],
    expected: [unlimited, "value 1", "value 2", "upstream cancel"]),
  Scenario(
    name: "a cancel with values waiting", flattening: .flatMap(maxPublishers: .max(1)), inner: .just,
    initialDemand: .none, steps: [.send(1), .cancel, .request(.max(1))],
    expected: [one, one, "upstream cancel"]),
  Scenario(
    name: "inner publishers that finish at once or never", flattening: .flatMap(maxPublishers: .max(1)),
    inner: .empty, steps: [.send(1), .send(0), .finish],
    expected: [one, one]),
  Scenario(
    name: "inner publishers that finish at once", flattening: .flatMap(maxPublishers: .unlimited),
    inner: .empty, steps: [.send(1), .send(2), .finish],
    expected: [unlimited, "finished"]),
]

private let switchToLatestScenarios: [Scenario] = [
  Scenario(
    name: "unlimited demand", flattening: .switchToLatest, inner: .just,
    steps: [.send(1), .send(2), .finish],
    expected: [unlimited, "value 1", "value 2", "finished"]),
  Scenario(
    name: "a value waiting for demand is dropped by the next publisher", flattening: .switchToLatest,
    inner: .just, initialDemand: .none, steps: [.send(1), .send(2), .request(.max(1)), .finish],
    expected: [unlimited, "value 2", "finished"]),
  Scenario(
    name: "the upstream finishes while a value waits", flattening: .switchToLatest, inner: .optional,
    initialDemand: .none, steps: [.send(1), .finish, .request(.max(1))],
    expected: [unlimited, "value 1", "finished"]),
  Scenario(
    name: "demand carries over", flattening: .switchToLatest, inner: .optional,
    initialDemand: .max(2), steps: [.send(1), .send(0), .send(2), .send(3), .request(.max(1)), .finish],
    expected: [unlimited, "value 1", "value 2", "value 3", "finished"]),
  Scenario(
    name: "a failing inner publisher cancels the upstream", flattening: .switchToLatest, inner: .result,
    initialDemand: .none, steps: [.send(1), .send(-2), .request(.max(1))],
    expected: [unlimited, "upstream cancel", "failure inner"]),
  Scenario(
    name: "every inner publisher fails", flattening: .switchToLatest, inner: .fail,
    steps: [.send(1), .send(2)],
    expected: [unlimited, "upstream cancel", "failure inner"]),
  Scenario(
    name: "the upstream failure drops a waiting value", flattening: .switchToLatest, inner: .just,
    initialDemand: .none, steps: [.send(1), .fail, .request(.max(1))],
    expected: [unlimited, "failure upstream"]),
  Scenario(
    name: "a publisher from inside receive waits for the demand receive returns", flattening: .switchToLatest,
    inner: .just, initialDemand: .max(1), reactions: [1: [.send(2), .answer(.max(1))]],
    steps: [.send(1), .finish],
    expected: [unlimited, "value 1", "value 2", "finished"]),
  Scenario(
    name: "a request from inside receive, then a publisher", flattening: .switchToLatest, inner: .just,
    initialDemand: .max(1), reactions: [1: [.request(.max(1)), .send(2)]], steps: [.send(1), .finish],
    expected: [unlimited, "value 1", "value 2", "finished"]),
  Scenario(
    name: "a publisher from inside receive, then a request", flattening: .switchToLatest, inner: .just,
    initialDemand: .max(1), reactions: [1: [.send(2), .request(.max(1))], 2: [.send(3)]],
    steps: [.send(1), .request(.max(1)), .finish],
    expected: [unlimited, "value 1", "value 2", "value 3", "finished"]),
  Scenario(
    name: "a publisher from inside receive, with demand", flattening: .switchToLatest, inner: .just,
    reactions: [1: [.send(2)]], steps: [.send(1), .finish],
    expected: [unlimited, "value 1", "value 2", "finished"]),
  Scenario(
    name: "the upstream finishes from inside receive", flattening: .switchToLatest, inner: .just,
    reactions: [1: [.finishUpstream]], steps: [.send(1)],
    expected: [unlimited, "value 1", "finished"]),
  Scenario(
    name: "a cancel from inside receive", flattening: .switchToLatest, inner: .just,
    reactions: [1: [.cancel]], steps: [.send(1), .send(2)],
    expected: [unlimited, "value 1", "upstream cancel"]),
  Scenario(
    name: "a cancel with a value waiting", flattening: .switchToLatest, inner: .result,
    initialDemand: .none, steps: [.send(1), .cancel, .request(.max(1))],
    expected: [unlimited, "upstream cancel"]),
  Scenario(
    name: "a publisher that never finishes holds the completion", flattening: .switchToLatest, inner: .empty,
    steps: [.send(1), .send(0), .finish],
    expected: [unlimited]),
  Scenario(
    name: "a publisher that finishes at once replaces one that never does", flattening: .switchToLatest,
    inner: .empty, steps: [.send(0), .send(1), .finish],
    expected: [unlimited, "finished"]),
]

@Suite(.leakChecked)
struct ScalarPublisherTests {
  // MARK: Differential runs

  @Test(arguments: flatMapScenarios)
  fileprivate func flatMapBehavesAsIfItSubscribed(_ scenario: Scenario) throws {
    try checkBothWays(scenario)
  }

  @Test(arguments: switchToLatestScenarios)
  fileprivate func switchToLatestBehavesAsIfItSubscribed(_ scenario: Scenario) throws {
    try checkBothWays(scenario)
  }

  private func checkBothWays(_ scenario: Scenario) throws {
    try #require(CensusScope.current != nil)
    let (scalar, subscribed) = runBothWays(scenario)
    #expect(scalar.log == subscribed.log)
    #expect(scalar.log == scenario.expected)
    // The scalar run allocated nothing; the other one subscribed to the inner publishers.
    #expect(scalar.createdObjects == 0)
    if scenario.inner.subscribedInnersAreObjects {
      #expect(subscribed.createdObjects > 0)
    }
  }

  // MARK: Which publishers are scalar

  @Test func readsTheOutcomeOfEachScalarPublisher() throws {
    let just = try #require(Just<Int>.scalarReader)
    let some = try #require(Optional<Int>.Publisher.scalarReader)
    let success = try #require(Result<Int, ScalarTestError>.Publisher.scalarReader)
    let empty = try #require(Empty<Int, ScalarTestError>.scalarReader)
    let fail = try #require(Fail<Int, ScalarTestError>.scalarReader)
    let lifted = try #require(Publishers.SetFailureType<Just<Int>, ScalarTestError>.scalarReader)
    #expect(describe(just(Just(1))) == "value 1")
    #expect(describe(some(Optional(2).publisher)) == "value 2")
    #expect(describe(some(Int?.none.publisher)) == "finished")
    #expect(describe(success(.init(3))) == "value 3")
    #expect(describe(success(.init(.inner))) == "failure inner")
    #expect(describe(empty(Empty())) == "finished")
    #expect(describe(empty(Empty(completeImmediately: false))) == "silent")
    #expect(describe(fail(Fail(error: .inner))) == "failure inner")
    #expect(describe(lifted(Publishers.SetFailureType(upstream: Just(4)))) == "value 4")
  }

  @Test func otherPublishersAreSubscribedTo() {
    #expect(Deferred<Just<Int>>.scalarReader == nil)
    #expect(AnyPublisher<Int, Never>.scalarReader == nil)
    #expect(Publishers.Sequence<[Int], Never>.scalarReader == nil)
    #expect(PassthroughSubject<Int, Never>.scalarReader == nil)
    #expect(Publishers.SetFailureType<Deferred<Just<Int>>, ScalarTestError>.scalarReader == nil)
  }

  // MARK: A long synchronous run

  @Test func aSynchronousSourceAskedOneValueAtATimeDoesNotGrowTheStack() {
    let count = 20_000
    let flatMapped = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    let switched = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (0..<count).publisher.flatMap(maxPublishers: .max(1)) { Just($0) }.subscribe(flatMapped)
    (0..<count).publisher.map { Just($0) }.switchToLatest().subscribe(switched)
    #expect(flatMapped.values == Array(0..<count))
    #expect(flatMapped.completion == .finished)
    #expect(flatMapped.violations.isEmpty)
    #expect(switched.values == Array(0..<count))
    #expect(switched.completion == .finished)
    #expect(switched.violations.isEmpty)
  }
}

private func describe(_ outcome: ScalarOutcome<Int, ScalarTestError>) -> String {
  switch outcome {
  case .value(let value): "value \(value)"
  case .finished: "finished"
  case .failure(let error): "failure \(error)"
  case .silent: "silent"
  }
}

private func describe(_ outcome: ScalarOutcome<Int, Never>) -> String {
  switch outcome {
  case .value(let value): "value \(value)"
  case .finished: "finished"
  case .silent: "silent"
  }
}

@Suite(.leakChecked(timeout: .seconds(3)))
struct ScalarPublisherStressTests {
  private static let senders = 8
  private static let valuesPerSender = 5_000

  @Test func flatMapOfJustFromManyThreadsDeliversEveryValueOnceWithoutOverlap() {
    let upstream = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    upstream.flatMap { Just($0) }.subscribe(subscriber)
    DispatchQueue.concurrentPerform(iterations: Self.senders) { sender in
      for index in 0..<Self.valuesPerSender { upstream.send(sender * Self.valuesPerSender + index) }
    }
    upstream.send(completion: .finished)
    let values = subscriber.values
    #expect(values.sorted() == Array(0..<Self.senders * Self.valuesPerSender))
    for sender in 0..<Self.senders {
      let own = values.filter { $0 / Self.valuesPerSender == sender }
      #expect(own == Array(sender * Self.valuesPerSender..<(sender + 1) * Self.valuesPerSender))
    }
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func flatMapOfJustWithDemandFromAnotherThreadDeliversEveryValueOnce() {
    let upstream = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.flatMap(maxPublishers: .max(4)) { Just($0) }.subscribe(subscriber)
    let total = Self.senders * Self.valuesPerSender
    DispatchQueue.concurrentPerform(iterations: 2) { role in
      if role == 0 {
        for value in 0..<total { upstream.send(value) }
      } else {
        for _ in 0..<total { subscriber.request(.max(1)) }
      }
    }
    // A subject drops what nobody asked for, so only the values flatMap asked for arrive.
    let values = subscriber.values
    #expect(values == values.sorted())
    #expect(Set(values).count == values.count)
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func switchToLatestOfJustFromManyThreadsNeverOverlapsDownstream() {
    let upstream = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    upstream.map { Just($0) }.switchToLatest().subscribe(subscriber)
    DispatchQueue.concurrentPerform(iterations: Self.senders) { sender in
      for index in 0..<Self.valuesPerSender { upstream.send(sender * Self.valuesPerSender + index) }
    }
    upstream.send(completion: .finished)
    // A value that waits for the delivering thread is dropped by the next publisher; what
    // arrives comes once, and in order for each sender.
    let values = subscriber.values
    #expect(Set(values).count == values.count)
    for sender in 0..<Self.senders {
      let own = values.filter { $0 / Self.valuesPerSender == sender }
      #expect(own == own.sorted())
    }
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }
}

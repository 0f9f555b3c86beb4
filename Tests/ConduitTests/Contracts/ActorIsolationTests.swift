import Conduit
import Dispatch
import Synchronization
import Testing

/// A closure isolated to an actor never runs off it: the library modules are compiled in Swift 5
/// language mode, so Swift 6 code (this target) inserts SE-0423's isolation check into every
/// actor-isolated closure it passes to them, as it does for Apple's Combine. Called off its
/// actor, such a closure stops the process; called on it, it runs. Closures that are not isolated
/// (`@Sendable` ones, key paths, references to nonisolated functions, an actor's `[weak self]`
/// closure that only starts a task) run wherever values arrive, wherever the pipeline was built.
///
/// Each trap is an exit test: the process that traps is a child of the test run.
@Suite(.leakChecked)
struct ActorIsolationTests {
  // MARK: Isolated closures called off their actor stop the process

  @Test(arguments: MainActorStage.allCases)
  func aMainActorClosureFedFromADetachedTaskStopsTheProcess(_ stage: MainActorStage) async {
    await #expect(processExitsWith: .failure) { [stage] in
      let subject = PassthroughSubject<Int, Never>()
      let model = MainActorModel()
      await model.build(stage, on: subject)
      await Task.detached { subject.send(1) }.value
    }
  }

  @Test func anActorsSinkClosureFedFromADetachedTaskStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let subject = PassthroughSubject<Int, Never>()
      let counter = CountingModel()
      await counter.subscribe(to: subject)
      await Task.detached { subject.send(1) }.value
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Incorrect actor executor assumption"))
    #expect(message.contains("CountingModel"))
  }

  /// Every operator and subscriber that keeps a closure and calls it later, each with a closure
  /// isolated to the main actor, fed from a detached task.
  @Test(arguments: ClosureTakingOperator.allCases)
  func everyClosureTakingOperatorStopsTheProcessForAMainActorClosureOffTheMainActor(
    _ operation: ClosureTakingOperator
  ) async {
    await #expect(processExitsWith: .failure) { [operation] in
      let subject = PassthroughSubject<Int, Never>()
      let model = MainActorModel()
      await model.build(operation, on: subject)
      await Task.detached {
        subject.send(1)
        subject.send(2)
        subject.send(completion: .finished)
      }.value
    }
  }

  // MARK: Isolated closures called on their actor run

  @Test(arguments: MainActorStage.allCases)
  @MainActor func aMainActorClosureFedThroughReceiveOnTheMainQueueCountsEveryValue(_ stage: MainActorStage) async {
    let subject = PassthroughSubject<Int, Never>()
    let model = MainActorModel()
    let counted = model.count(100)
    model.build(stage, on: subject, receivingOnMain: true)
    await Task.detached { for value in 1...100 { subject.send(value) } }.value
    await counted.value
    #expect(model.count == 100)
    model.tokens.removeAll()
  }

  @Test(arguments: MainActorStage.allCases)
  @MainActor func aMainActorClosureFedOnTheMainActorCountsEveryValue(_ stage: MainActorStage) {
    let subject = PassthroughSubject<Int, Never>()
    let model = MainActorModel()
    model.build(stage, on: subject)
    for value in 1...100 { subject.send(value) }
    #expect(model.count == 100)
    model.tokens.removeAll()
  }

  @Test func anActorsSinkClosureFedOnTheActorCountsEveryValue() async {
    let subject = PassthroughSubject<Int, Never>()
    let counter = CountingModel()
    await counter.subscribe(to: subject)
    await counter.send(1...100, to: subject)
    #expect(await counter.count == 100)
    await counter.stop()
  }

  // MARK: Closures that are not isolated run anywhere

  @Test(arguments: NonisolatedForm.allCases)
  func aNonisolatedClosureBuiltOnTheMainActorRunsOnAnyThread(_ form: NonisolatedForm) async {
    await #expect(processExitsWith: .success) { [form] in
      let subject = PassthroughSubject<IsolationReading, Never>()
      let tally = Tally()
      let model = MainActorModel()
      await model.build(form, on: subject, counting: tally)
      await Task.detached { for value in 1...10 { subject.send(IsolationReading(value: value)) } }.value
      precondition(tally.count == 10, "\(form): \(tally.count) of 10 values")
    }
  }

  @Test(arguments: NonisolatedForm.allCases)
  func aNonisolatedClosureBuiltInAnActorRunsOnAnyThread(_ form: NonisolatedForm) async {
    await #expect(processExitsWith: .success) { [form] in
      let subject = PassthroughSubject<IsolationReading, Never>()
      let tally = Tally()
      let builder = PipelineActor()
      await builder.build(form, on: subject, counting: tally)
      await Task.detached { for value in 1...10 { subject.send(IsolationReading(value: value)) } }.value
      precondition(tally.count == 10, "\(form): \(tally.count) of 10 values")
    }
  }

  @Test func anActorsWeakSelfClosureThatHopsInWithATaskRunsOnAnyThread() async {
    await #expect(processExitsWith: .success) {
      let subject = PassthroughSubject<Int, Never>()
      let counter = CountingModel()
      let handled = await counter.hopIn(from: subject, expecting: 10)
      await Task.detached { for value in 1...10 { subject.send(value) } }.value
      await handled.value
      let count = await counter.count
      precondition(count == 10, "\(count) of 10 values")
    }
  }
}

// MARK: - What the tests build

/// The stages of issue 42's list, each with a main-actor closure.
enum MainActorStage: String, CaseIterable, Codable, Sendable {
  case sink, map, filter, handleEvents
}

/// Every operator and subscriber of Conduit that keeps a closure and calls it when a value or a
/// completion arrives.
enum ClosureTakingOperator: String, CaseIterable, Codable, Sendable {
  case sink, sinkCompletion, subscribersSink, anySubscriber, handleEventsOutput, handleEventsCompletion
  case handleEventsRequest, map, tryMap, filter, tryFilter, compactMap, tryCompactMap, scan, tryScan
  case reduce, tryReduce, flatMap, removeDuplicates, tryRemoveDuplicates, firstWhere, tryFirstWhere
  case lastWhere, tryLastWhere, containsWhere, tryContainsWhere, allSatisfy, tryAllSatisfy, dropWhile
  case tryDropWhile, prefixWhile, tryPrefixWhile, minBy, tryMinBy, maxBy, tryMaxBy, catchError
  case tryCatch, mapError, zipTransform, combineLatestTransform, deferred, multicast, breakpoint
}

/// How a closure may be not isolated, though written in an isolated function.
enum NonisolatedForm: String, CaseIterable, Codable, Sendable {
  case sendableClosure, keyPath, nonisolatedFunction
}

struct IsolationReading: Sendable {
  var value: Int
}

private enum Boom: Error { case boom }

/// A count that any thread may add to.
private final class Tally: Sendable {
  private let value = Atomic(0)
  var count: Int { value.load(ordering: .relaxed) }
  func add(_ amount: Int = 1) { value.add(amount, ordering: .relaxed) }
  @Sendable func record(_ reading: IsolationReading) { add() }
}

/// A function that is not isolated, for a pipeline to reference.
private func doubled(_ reading: IsolationReading) -> IsolationReading { IsolationReading(value: reading.value * 2) }

@MainActor
private final class MainActorModel {
  var count = 0
  var tokens: Set<AnyCancellable> = []
  private var target: Int?
  private var reached: CheckedContinuation<Void, Never>?

  /// A task that ends when `count` reaches `target`.
  func count(_ target: Int) -> Task<Void, Never> {
    self.target = target
    return Task {
      if count < target { await withCheckedContinuation { reached = $0 } }
    }
  }

  private func counted() {
    count += 1
    if count == target { reached?.resume() }
  }

  /// Builds a pipeline whose `stage` closure is isolated to the main actor; the others are not.
  func build(_ stage: MainActorStage, on subject: PassthroughSubject<Int, Never>, receivingOnMain: Bool = false) {
    let upstream =
      receivingOnMain
      ? subject.receive(on: DispatchQueue.main).eraseToAnyPublisher() : subject.eraseToAnyPublisher()
    switch stage {
    case .sink:
      upstream.sink { _ in self.counted() }.store(in: &tokens)
    case .map:
      upstream.map { value in
        self.counted(); return value
      }.sink(receiveValue: ignore).store(in: &tokens)
    case .filter:
      upstream.filter { _ in
        self.counted(); return true
      }.sink(receiveValue: ignore).store(in: &tokens)
    case .handleEvents:
      upstream.handleEvents(receiveOutput: { _ in self.counted() }).sink(receiveValue: ignore).store(in: &tokens)
    }
  }

  /// Builds a pipeline with one main-actor closure, in `operation`; the rest are not isolated.
  func build(_ operation: ClosureTakingOperator, on subject: PassthroughSubject<Int, Never>) {
    let values = subject.eraseToAnyPublisher()
    let failing = failures(of: subject)
    func keep<P: Publisher>(_ publisher: P) {
      publisher.sink(receiveCompletion: ignoreCompletion, receiveValue: ignore).store(in: &tokens)
    }
    switch operation {
    case .sink: values.sink { _ in self.counted() }.store(in: &tokens)
    case .sinkCompletion:
      values.sink(receiveCompletion: { _ in self.counted() }, receiveValue: ignore).store(in: &tokens)
    case .subscribersSink:
      let sink = Subscribers.Sink<Int, Never>(
        receiveCompletion: ignoreCompletion, receiveValue: { _ in self.counted() })
      values.subscribe(sink)
      tokens.insert(AnyCancellable(sink))
    case .anySubscriber:
      values.subscribe(
        AnySubscriber(
          receiveSubscription: { $0.request(.unlimited) },
          receiveValue: { _ in
            self.counted(); return .none
          },
          receiveCompletion: nil))
    case .handleEventsOutput: keep(values.handleEvents(receiveOutput: { _ in self.counted() }))
    case .handleEventsCompletion: keep(values.handleEvents(receiveCompletion: { _ in self.counted() }))
    case .handleEventsRequest:
      keep(values.flatMap(each(Just(0).handleEvents(receiveRequest: { _ in self.counted() }))))
    case .map:
      keep(
        values.map { value in
          self.counted(); return value
        })
    case .tryMap:
      keep(
        values.tryMap { value in
          self.counted(); return value
        })
    case .filter:
      keep(
        values.filter { _ in
          self.counted(); return true
        })
    case .tryFilter:
      keep(
        values.tryFilter { _ in
          self.counted(); return true
        })
    case .compactMap:
      keep(
        values.compactMap { value in
          self.counted(); return value
        })
    case .tryCompactMap:
      keep(
        values.tryCompactMap { value in
          self.counted(); return value
        })
    case .scan:
      keep(
        values.scan(0) { sum, value in
          self.counted(); return sum + value
        })
    case .tryScan:
      keep(
        values.tryScan(0) { sum, value in
          self.counted(); return sum + value
        })
    case .reduce:
      keep(
        values.reduce(0) { sum, value in
          self.counted(); return sum + value
        })
    case .tryReduce:
      keep(
        values.tryReduce(0) { sum, value in
          self.counted(); return sum + value
        })
    case .flatMap:
      keep(
        values.flatMap { value in
          self.counted(); return Just(value)
        })
    case .removeDuplicates:
      keep(
        values.removeDuplicates { _, _ in
          self.counted(); return false
        })
    case .tryRemoveDuplicates:
      keep(
        values.tryRemoveDuplicates { _, _ in
          self.counted(); return false
        })
    case .firstWhere:
      keep(
        values.first { _ in
          self.counted(); return false
        })
    case .tryFirstWhere:
      keep(
        values.tryFirst { _ in
          self.counted(); return false
        })
    case .lastWhere:
      keep(
        values.last { _ in
          self.counted(); return true
        })
    case .tryLastWhere:
      keep(
        values.tryLast { _ in
          self.counted(); return true
        })
    case .containsWhere:
      keep(
        values.contains { _ in
          self.counted(); return false
        })
    case .tryContainsWhere:
      keep(
        values.tryContains { _ in
          self.counted(); return false
        })
    case .allSatisfy:
      keep(
        values.allSatisfy { _ in
          self.counted(); return true
        })
    case .tryAllSatisfy:
      keep(
        values.tryAllSatisfy { _ in
          self.counted(); return true
        })
    case .dropWhile:
      keep(
        values.drop { _ in
          self.counted(); return true
        })
    case .tryDropWhile:
      keep(
        values.tryDrop { _ in
          self.counted(); return true
        })
    case .prefixWhile:
      keep(
        values.prefix { _ in
          self.counted(); return true
        })
    case .tryPrefixWhile:
      keep(
        values.tryPrefix { _ in
          self.counted(); return true
        })
    case .minBy:
      keep(
        values.min { a, b in
          self.counted(); return a < b
        })
    case .tryMinBy:
      keep(
        values.tryMin { a, b in
          self.counted(); return a < b
        })
    case .maxBy:
      keep(
        values.max { a, b in
          self.counted(); return a < b
        })
    case .tryMaxBy:
      keep(
        values.tryMax { a, b in
          self.counted(); return a < b
        })
    case .catchError:
      keep(
        failing.catch { _ in
          self.counted(); return Just(0)
        })
    case .tryCatch:
      keep(
        failing.tryCatch { _ in
          self.counted(); return Just(0)
        })
    case .mapError:
      keep(
        failing.mapError { error in
          self.counted(); return error
        })
    case .zipTransform:
      keep(
        values.zip(values) { a, b in
          self.counted(); return a + b
        })
    case .combineLatestTransform:
      keep(
        values.combineLatest(values) { a, b in
          self.counted(); return a + b
        })
    case .deferred:
      keep(
        values.flatMap(
          each(
            Deferred {
              self.counted(); return Just(0)
            })))
    case .multicast:
      let shared = Just(0).multicast {
        self.counted(); return PassthroughSubject<Int, Never>()
      }
      keep(values.flatMap(each(shared.autoconnect())))
    case .breakpoint:
      keep(
        values.breakpoint(receiveOutput: { _ in
          self.counted(); return false
        }))
    }
  }

  /// Builds a pipeline whose closures are not isolated, though written here on the main actor.
  func build(_ form: NonisolatedForm, on subject: PassthroughSubject<IsolationReading, Never>, counting tally: Tally) {
    switch form {
    case .sendableClosure:
      subject.map { @Sendable reading in reading }.sink { @Sendable in tally.record($0) }.store(in: &tokens)
    case .keyPath:
      subject.map(\.value).map { @Sendable in IsolationReading(value: $0) }.sink(receiveValue: tally.record)
        .store(in: &tokens)
    case .nonisolatedFunction:
      subject.map(doubled).sink(receiveValue: tally.record).store(in: &tokens)
    }
  }
}

/// An actor instance whose sink closure uses its state.
private actor CountingModel {
  var count = 0
  private var token: AnyCancellable?
  private var target = 0
  private var reached: CheckedContinuation<Void, Never>?

  func subscribe(to subject: PassthroughSubject<Int, Never>) {
    token = subject.sink { _ in self.count += 1 }
  }

  /// Sends from the actor, so the sink runs on it.
  func send(_ values: ClosedRange<Int>, to subject: PassthroughSubject<Int, Never>) {
    for value in values { subject.send(value) }
  }

  func stop() { token = nil }

  func handle(_ value: Int) {
    count += 1
    if count == target { reached?.resume() }
  }

  /// Subscribes with a `[weak self]` closure that only hops into the actor with a task; the task
  /// it returns ends when `target` values were handled.
  func hopIn(from subject: PassthroughSubject<Int, Never>, expecting target: Int) -> Task<Void, Never> {
    self.target = target
    token = subject.sink { [weak self] value in Task { await self?.handle(value) } }
    return Task {
      if count < target { await withCheckedContinuation { reached = $0 } }
    }
  }
}

/// An actor that builds pipelines whose closures are not isolated: the same code as
/// `MainActorModel.build(_:on:counting:)`, which must be written out in each isolation, since
/// where a closure is written decides what Swift infers for it.
private actor PipelineActor {
  private var tokens: Set<AnyCancellable> = []

  func build(_ form: NonisolatedForm, on subject: PassthroughSubject<IsolationReading, Never>, counting tally: Tally) {
    switch form {
    case .sendableClosure:
      subject.map { @Sendable reading in reading }.sink { @Sendable in tally.record($0) }.store(in: &tokens)
    case .keyPath:
      subject.map(\.value).map { @Sendable in IsolationReading(value: $0) }.sink(receiveValue: tally.record)
        .store(in: &tokens)
    case .nonisolatedFunction:
      subject.map(doubled).sink(receiveValue: tally.record).store(in: &tokens)
    }
  }
}

private func ignore<T>(_: T) {}

/// A closure, not isolated, that maps every value to `publisher`: for a `flatMap` that subscribes
/// to `publisher` on whichever thread a value arrives.
private func each<P: Publisher>(_ publisher: P) -> (Int) -> P { { _ in publisher } }

/// Fails with `Boom` at the subject's first value; its closures are not isolated.
private func failures(of subject: PassthroughSubject<Int, Never>) -> AnyPublisher<Int, Boom> {
  subject.setFailureType(to: Boom.self).flatMap { _ in Fail<Int, Boom>(error: .boom) }.eraseToAnyPublisher()
}
private func ignoreCompletion<F>(_: Subscribers.Completion<F>) {}

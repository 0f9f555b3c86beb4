import Conduit
import ConduitTesting
import Dispatch
import Testing

/// The everyday Combine idioms that Swift 6 code writes, compiled in Swift 6 language mode (this
/// target's) with no warning, each shown to behave.
@Suite(.leakChecked(timeout: .seconds(3)), .timeLimit(.minutes(3)))
struct Swift6IdiomsTests {
  /// How long a recorder waits for what tasks send: `swift test` runs the stress suites beside
  /// this one, and they hold the task pool's threads, so under load a task may wait long for one
  /// without anything being wrong.
  private static let patience = Duration.seconds(120)

  @Test func anActorsWeakSelfSinkHopsInWithATask() async {
    let events = PassthroughSubject<Int, Never>()
    let counter = HoppingCounter()
    let done = await counter.subscribe(to: events, expecting: 50)
    await Task.detached { for value in 1...50 { events.send(value) } }.value
    await done.value
    #expect(await counter.total == (1...50).reduce(0, +))
    await counter.stop()
  }

  @Test func storeInFromAnActorMethod() async {
    let events = PassthroughSubject<Int, Never>()
    let counter = HoppingCounter()
    await counter.store(events)
    #expect(await counter.tokenCount == 1)
    await counter.stop()
    #expect(await counter.tokenCount == 0)
  }

  @Test @MainActor func aMainActorModelFedThroughReceiveOnTheMainQueue() async throws {
    let readings = PassthroughSubject<Int, Never>()
    let model = ThermostatModel(readings)
    let shown = model.$reading.dropFirst().record()
    await Task.detached { for value in 1...20 { readings.send(value) } }.value
    #expect(try await shown.next(20, timeout: Self.patience) == Array(1...20))
    #expect(model.reading == 20)
    shown.cancel()
  }

  @Test func subjectsFedByATaskGroup() async throws {
    let events = PassthroughSubject<Int, Never>()
    let recorder = events.record()
    await withTaskGroup(of: Void.self) { group in
      for sender in 0..<8 {
        group.addTask { for index in 0..<10 { events.send(sender * 100 + index) } }
      }
    }
    events.send(completion: .finished)
    let received = try await recorder.next(80, timeout: Self.patience)
    #expect(received.count == 80)
    for sender in 0..<8 {
      #expect(received.filter { $0 / 100 == sender } == (0..<10).map { sender * 100 + $0 })
    }
    #expect(try await recorder.completion(timeout: Self.patience) == .finished)
  }

  @Test @MainActor func assignToAPublishedProperty() {
    let readings = PassthroughSubject<Int, Never>()
    let model = ThermostatModel(assigning: readings)
    readings.send(21)
    readings.send(22)
    #expect(model.reading == 22)
  }

  @Test func aFutureFulfilledFromATaskDeliversOnce() async throws {
    let future = Future<Int, Never> { promise in
      Task { promise(.success(await answer())) }
    }
    let recorder = future.record()
    #expect(try await recorder.next(1, timeout: Self.patience) == [42])
    #expect(try await recorder.completion(timeout: Self.patience) == .finished)
    #expect(await future.value == 42)
  }
}

private func answer() async -> Int {
  await Task.yield()
  return 42
}

/// An actor whose sink only hops into the actor with a task: the closure holds `self` weakly, so
/// it is not isolated, and it runs on whatever thread sends.
private actor HoppingCounter {
  private(set) var total = 0
  private var count = 0
  private var expected = 0
  private var reached: CheckedContinuation<Void, Never>?
  private var cancellables = Set<AnyCancellable>()

  var tokenCount: Int { cancellables.count }

  private func add(_ value: Int) {
    total += value
    count += 1
    if count == expected { reached?.resume() }
  }

  /// Subscribes; the task it returns ends once `expected` values were added.
  func subscribe(to events: PassthroughSubject<Int, Never>, expecting expected: Int) -> Task<Void, Never> {
    self.expected = expected
    events.sink { [weak self] value in Task { await self?.add(value) } }.store(in: &cancellables)
    return Task {
      if count < expected { await withCheckedContinuation { reached = $0 } }
    }
  }

  func store(_ events: PassthroughSubject<Int, Never>) {
    events.map { $0 * 2 }.sink { [weak self] value in Task { await self?.add(value) } }.store(in: &cancellables)
  }

  func stop() { cancellables.removeAll() }
}

/// A main-actor model fed from any thread through `receive(on: DispatchQueue.main)`, or by
/// `assign(to: &$reading)`.
@MainActor
private final class ThermostatModel: ObservableObject {
  @Published var reading = 0
  private var cancellables = Set<AnyCancellable>()

  init(_ readings: PassthroughSubject<Int, Never>) {
    readings.receive(on: DispatchQueue.main).sink { [weak self] in self?.reading = $0 }.store(in: &cancellables)
  }

  init(assigning readings: PassthroughSubject<Int, Never>) {
    readings.assign(to: &$reading)
  }
}

import Conduit
import ConduitSchedulers
import ConduitTesting
import Dispatch
import Synchronization
import Testing

/// What happens, in order, across the tasks and actions of a test.
private final class Log: Sendable {
  private let entries = Mutex<[String]>([])

  func append(_ entry: String) {
    entries.withLock { $0.append(entry) }
  }

  var all: [String] { entries.withLock { $0 } }
}

/// Blocks the calling thread until `semaphore` is signalled, as synchronous I/O would.
private func block(on semaphore: DispatchSemaphore) {
  semaphore.wait()
}

/// A model whose task types a query with pauses on its clock, into a pipeline that debounces on
/// its scheduler: async code and a pipeline sharing one virtual time.
private final class TypingModel: Sendable {
  let queries = PassthroughSubject<String, Never>()
  private let clock: any Clock<Duration>
  private let state = Mutex<(shown: String?, cancellable: AnyCancellable?)>((nil, nil))

  var shown: String? { state.withLock { $0.shown } }

  init(clock: any Clock<Duration>, scheduler: AnySchedulerOf<DispatchQueue>) {
    self.clock = clock
    let cancellable =
      queries
      .debounce(for: .milliseconds(300), scheduler: scheduler)
      .sink { [weak self] query in self?.state.withLock { $0.shown = query } }
    state.withLock { $0.cancellable = cancellable }
  }

  /// Sends each prefix of `text`, a tenth of a second apart, as a user types.
  func type(_ text: String) async throws {
    var typed = ""
    for character in text {
      try await clock.sleep(for: .milliseconds(100))
      typed.append(character)
      queries.send(typed)
    }
  }
}

@Suite(.leakChecked)
struct TestSchedulerClockTests {
  @Test func theClocksNowIsTheSchedulersNow() {
    let scheduler = DispatchQueue.test
    let clock = scheduler.clock
    let start = clock.now
    #expect(start.schedulerTime == scheduler.now)

    scheduler.advance(by: .milliseconds(1_500))
    #expect(clock.now.schedulerTime == scheduler.now)
    #expect(start.duration(to: clock.now) == .milliseconds(1_500))
    #expect(start.advanced(by: .milliseconds(1_500)) == clock.now)
    #expect(clock.minimumResolution == .nanoseconds(1))
  }

  @Test func sleepForEndsWhenTheSchedulersTimeReachesTheDeadline() async throws {
    let scheduler = DispatchQueue.test
    let log = Log()
    let sleeper = Task.immediate {
      try await scheduler.clock.sleep(for: .seconds(1))
      log.append("woke at \(scheduler.now.dispatchTime.uptimeNanoseconds)")
    }

    await scheduler.advance(by: .milliseconds(999))
    #expect(log.all.isEmpty)
    #expect(scheduler.pendingActionCount == 1)

    await scheduler.advance(by: .milliseconds(1))
    #expect(log.all == ["woke at 1000000001"])
    try await sleeper.value
  }

  @Test func sleepUntilEndsAtItsDeadline() async throws {
    let scheduler = DispatchQueue.test
    let clock = scheduler.clock
    let deadline = clock.now.advanced(by: .seconds(5))
    let log = Log()
    let sleeper = Task.immediate {
      try await clock.sleep(until: deadline)
      log.append("woke")
    }

    await scheduler.advance(to: deadline.schedulerTime.advanced(by: .nanoseconds(-1)))
    #expect(log.all.isEmpty)
    await scheduler.advance(to: deadline.schedulerTime)
    #expect(log.all == ["woke"])
    try await sleeper.value
  }

  @Test func aDeadlineAlreadyReachedReturnsAtOnce() async throws {
    let scheduler = DispatchQueue.test
    let clock = scheduler.clock
    try await clock.sleep(until: clock.now)
    try await clock.sleep(for: .seconds(-1))
    #expect(scheduler.scheduledActionCount == 0)
  }

  @Test func theSynchronousAdvanceWakesSleepersToo() async throws {
    let scheduler = DispatchQueue.test
    let sleeper = Task.immediate { try await scheduler.clock.sleep(for: .seconds(1)) }
    // In async code, `advance(by:)` is the async form; a synchronous function reaches the other.
    func advanceSynchronously() { scheduler.advance(by: .seconds(1)) }
    advanceSynchronously()
    #expect(scheduler.pendingActionCount == 0)
    try await sleeper.value
  }

  @Test func cancellingASleepingTaskThrowsCancellationErrorAndTakesItsSleepOffTheScheduler() async {
    let scheduler = DispatchQueue.test
    let sleeper = Task.immediate { try await scheduler.clock.sleep(for: .seconds(1)) }
    #expect(scheduler.pendingActionCount == 1)

    sleeper.cancel()
    await #expect(throws: CancellationError.self) { try await sleeper.value }
    #expect(scheduler.pendingActionCount == 0)
    await scheduler.run()
    #expect(scheduler.now == DispatchQueue.test.now)  // the withdrawn sleep did not move the clock
  }

  @Test func aCancelledTaskThatGoesToSleepThrowsAtOnce() async {
    let scheduler = DispatchQueue.test
    let sleeper = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await scheduler.clock.sleep(for: .seconds(1))
    }
    await #expect(throws: CancellationError.self) { try await sleeper.value }
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func sleepersAndPipelineActionsRunInDueOrderInOneAdvance() async throws {
    let scheduler = DispatchQueue.test
    let clock = scheduler.clock
    let log = Log()
    let start = scheduler.now
    func at(_ milliseconds: Int, _ entry: String) {
      scheduler.schedule(after: start.advanced(by: .milliseconds(milliseconds))) { log.append(entry) }
    }
    let sleeper = Task.immediate {
      try await clock.sleep(for: .seconds(1))
      log.append("task wakes at 1s")
      scheduler.schedule { log.append("the task's action at 1s") }
      try await clock.sleep(for: .milliseconds(250))
      log.append("task wakes at 1.25s")
    }
    at(500, "action at 0.5s")
    at(1_000, "action at 1s")
    at(1_500, "action at 1.5s")

    await scheduler.advance(by: .seconds(2))
    #expect(
      log.all == [
        "action at 0.5s", "task wakes at 1s", "action at 1s", "the task's action at 1s", "task wakes at 1.25s",
        "action at 1.5s",
      ])
    try await sleeper.value
  }

  /// Types "con" into a new model and advances once: what the model shows then.
  private func typeIntoAModelAndAdvanceOnce() async throws -> String? {
    let scheduler = DispatchQueue.test
    let model = TypingModel(clock: scheduler.clock, scheduler: scheduler.eraseToAnyScheduler())
    let typing = Task.immediate { try await model.type("con") }

    await scheduler.advance(by: .seconds(1))
    let shown = model.shown
    try await typing.value
    return shown
  }

  @Test func aModelsTaskAndItsDebouncedPipelineShowTheFinalValueAfterOneAdvance() async throws {
    for _ in 1...1_000 {
      #expect(try await typeIntoAModelAndAdvanceOnce() == "con")
    }
  }

  @Test func schedulersAdvancingAtOnceEachWaitForTheirOwnTasks() async throws {
    try await withThrowingTaskGroup { group in
      for _ in 1...4 {
        group.addTask {
          for _ in 1...100 {
            let shown = try await typeIntoAModelAndAdvanceOnce()
            #expect(shown == "con")
          }
        }
      }
      try await group.waitForAll()
    }
  }

  @Test func aTaskThatAWokenTaskCreatesRunsInTheSameAdvance() async throws {
    let scheduler = DispatchQueue.test
    let clock = scheduler.clock
    let log = Log()
    let parent = Task.immediate {
      try await clock.sleep(for: .seconds(1))
      log.append("parent wakes")
      return Task {
        log.append("child starts")
        try await clock.sleep(for: .seconds(1))
        log.append("child wakes")
      }
    }

    await scheduler.advance(by: .seconds(1))
    #expect(log.all == ["parent wakes", "child starts"])
    await scheduler.advance(by: .seconds(1))
    #expect(log.all == ["parent wakes", "child starts", "child wakes"])
    try await parent.value.value
  }

  @Test func aValuesLoopThatASendResumesIsWaitingAgainWhenTheAdvanceReturns() async {
    let scheduler = DispatchQueue.test
    let prices = PassthroughSubject<Int, Never>()
    let seen = Mutex<[Int]>([])
    let watcher = Task.immediate {
      for await price in prices.values {
        seen.withLock { $0.append(price) }
      }
    }
    // `values` asks for one value at a time: the second send finds demand only if the loop has
    // gone round before it.
    scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { prices.send(1) }
    scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { prices.send(2) }
    scheduler.schedule(after: scheduler.now.advanced(by: .seconds(2))) { prices.send(3) }

    await scheduler.advance(by: .seconds(2))
    #expect(seen.withLock { $0 } == [1, 2, 3])
    prices.send(completion: .finished)
    await watcher.value
  }

  @Test func theAsyncRunWakesEverySleeperInTurn() async throws {
    let scheduler = DispatchQueue.test
    let start = scheduler.now
    let sleeper = Task.immediate {
      try await scheduler.clock.sleep(for: .seconds(30))
      try await scheduler.clock.sleep(for: .seconds(30))
    }
    await scheduler.run()
    #expect(scheduler.now == start.advanced(by: .seconds(60)))
    try await sleeper.value
  }

  @Test func aWokenTaskThatNeverSettlesIsReportedByNameInsteadOfHanging() async throws {
    let scheduler = DispatchQueue.test
    let release = DispatchSemaphore(value: 0)
    let stuck = Task.immediate(name: "stuck reader") {
      try await scheduler.clock.sleep(for: .seconds(1))
      block(on: release)
    }

    await withKnownIssue {
      await scheduler.advance(by: .seconds(2), settlingTimeout: .milliseconds(100))
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined()
      return text.contains(
        "TestScheduler.advance(by:): work that this advance woke was still running after 0.1 seconds")
        && text.contains("\"stuck reader\", asleep until")
    }
    #expect(scheduler.now == DispatchQueue.test.now.advanced(by: .seconds(2)))

    release.signal()
    try await stuck.value
  }
}

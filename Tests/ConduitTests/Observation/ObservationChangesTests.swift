import ConduitTesting
import Dispatch
import Observation
import Synchronization
import Testing

@testable import Conduit

@Observable private final class Counter {
  var count = 0
  var name = "a"
}

@Observable private final class Editor {
  var document = "draft"
}

/// `changes(_:)` and `changes(on:options:_:)` of an `@Observable` model, in virtual time on
/// `DispatchQueue.test`, and in one integration test on a real queue.
@Suite(.leakChecked)
struct ObservationChangesTests {
  @Test func theCurrentValueIsReadOnTheSchedulerAfterSubscription() {
    let scheduler = DispatchQueue.test
    let model = Counter()
    model.count = 4
    let subscriber = TestSubscriber<Int, Never>()
    model.changes(on: scheduler) { $0.count }.subscribe(subscriber)
    #expect(subscriber.subscriptionCount == 1)
    #expect(subscriber.values.isEmpty)
    scheduler.advance()
    #expect(subscriber.values == [4])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func aChangeIsReadAfterItIsStored() {
    let scheduler = DispatchQueue.test
    let model = Counter()
    let subscriber = TestSubscriber<Int, Never>()
    model.changes(on: scheduler) { $0.count }.subscribe(subscriber)
    scheduler.advance()
    model.count = 1
    // Observation reported the change before storing it; the read waits for the scheduler.
    #expect(subscriber.values == [0])
    scheduler.advance()
    #expect(subscriber.values == [0, 1])
    model.count = 2
    scheduler.advance()
    #expect(subscriber.values == [0, 1, 2])
    subscriber.cancel()
  }

  @Test func changesMadeBeforeTheReadComeOutAsOneValue() {
    let scheduler = DispatchQueue.test
    let model = Counter()
    let subscriber = TestSubscriber<Int, Never>()
    model.changes(on: scheduler) { $0.count }.subscribe(subscriber)
    scheduler.advance()
    model.count = 1
    model.count = 2
    model.count = 3
    #expect(scheduler.pendingActionCount == 1)
    scheduler.advance()
    #expect(subscriber.values == [0, 3])
    subscriber.cancel()
  }

  @Test func aClosureThatReadsSeveralPropertiesTracksThemAll() {
    let scheduler = DispatchQueue.test
    let model = Counter()
    let subscriber = TestSubscriber<String, Never>()
    model.changes(on: scheduler) { "\($0.name)\($0.count)" }.subscribe(subscriber)
    scheduler.advance()
    model.name = "b"
    scheduler.advance()
    model.count = 1
    scheduler.advance()
    model.name = "c"
    model.count = 2
    scheduler.advance()
    #expect(subscriber.values == ["a0", "b0", "b1", "c2"])
    subscriber.cancel()
  }

  @Test func aChangeOfAPropertyNotReadPublishesNothing() {
    let scheduler = DispatchQueue.test
    let model = Counter()
    let subscriber = TestSubscriber<Int, Never>()
    model.changes(on: scheduler) { $0.count }.subscribe(subscriber)
    scheduler.advance()
    model.name = "b"
    #expect(scheduler.pendingActionCount == 0)
    scheduler.advance()
    #expect(subscriber.values == [0])
    subscriber.cancel()
  }

  @Test func withoutDemandTheLatestValueWaitsForIt() {
    let scheduler = DispatchQueue.test
    let model = Counter()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    model.changes(on: scheduler) { $0.count }.subscribe(subscriber)
    scheduler.advance()
    model.count = 1
    scheduler.advance()
    model.count = 2
    scheduler.advance()
    #expect(subscriber.values.isEmpty)
    subscriber.request(.max(1))
    // The value held goes out on the scheduler, too.
    #expect(subscriber.values.isEmpty)
    scheduler.advance()
    #expect(subscriber.values == [2])
    subscriber.request(.max(1))
    scheduler.advance()
    #expect(subscriber.values == [2])
    model.count = 3
    scheduler.advance()
    #expect(subscriber.values == [2, 3])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func demandReturnedFromReceiveIsHonoured() {
    let scheduler = DispatchQueue.test
    let model = Counter()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    model.changes(on: scheduler) { $0.count }.subscribe(subscriber)
    for value in 1...3 {
      scheduler.advance()
      model.count = value
    }
    scheduler.advance()
    #expect(subscriber.values == [0, 1, 2, 3])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func cancellingStopsTheTrackingAndReleasesTheModelAndTheClosure() {
    let scheduler = DispatchQueue.test
    var model: Counter? = Counter()
    weak let weakModel = model
    let closureReleased = Mutex(false)
    let subscriber = TestSubscriber<Int, Never>()
    model!.changes(on: scheduler) { [probe = DeinitProbe { closureReleased.withLock { $0 = true } }] in
      withExtendedLifetime(probe) {}
      return $0.count
    }.subscribe(subscriber)
    scheduler.advance()
    subscriber.cancel()
    #expect(closureReleased.withLock { $0 })
    model!.count = 5
    #expect(scheduler.pendingActionCount == 0)
    scheduler.advance()
    #expect(subscriber.values == [0])
    #expect(subscriber.completion == nil)
    model = nil
    #expect(weakModel == nil)
  }

  @Test func aSubscriptionDoesNotKeepTheModelAlive() {
    let scheduler = DispatchQueue.test
    var model: Counter? = Counter()
    weak let weakModel = model
    let subscriber = TestSubscriber<Int, Never>()
    model!.changes(on: scheduler) { $0.count }.subscribe(subscriber)
    scheduler.advance()
    model = nil
    #expect(weakModel == nil)
    scheduler.advance()
    subscriber.cancel()
  }

  @Test func aModelThatGoesAwayFinishesOnTheSchedulerWithoutAFurtherChange() {
    let scheduler = DispatchQueue.test
    var model: Counter? = Counter()
    let subscriber = TestSubscriber<Int, Never>()
    model!.changes(on: scheduler) { $0.count }.subscribe(subscriber)
    scheduler.advance()
    model = nil
    #expect(subscriber.completion == nil)
    #expect(scheduler.pendingActionCount == 1)
    scheduler.advance()
    #expect(subscriber.values == [0])
    #expect(subscriber.completion?.isFinished == true)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aModelThatGoesAwayWhileAValueWaitsForDemandFinishesWithoutIt() {
    let scheduler = DispatchQueue.test
    var model: Counter? = Counter()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    model!.changes(on: scheduler) { $0.count }.subscribe(subscriber)
    scheduler.advance()
    model = nil
    scheduler.advance()
    #expect(subscriber.values.isEmpty)
    #expect(subscriber.completion?.isFinished == true)
  }

  @Test func aModelGoneBeforeTheFirstReadFinishesWithoutAValue() {
    let scheduler = DispatchQueue.test
    var model: Counter? = Counter()
    let publisher = model!.changes(on: scheduler) { $0.count }
    model = nil
    #expect(publisher.model == nil)
    let subscriber = TestSubscriber<Int, Never>()
    publisher.subscribe(subscriber)
    scheduler.advance()
    #expect(subscriber.values.isEmpty)
    #expect(subscriber.completion?.isFinished == true)
  }

  @Test func aChangeMadeFromInsideReceiveIsReadInALaterRun() {
    let scheduler = DispatchQueue.test
    let model = Counter()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { value in
      if value < 2 { model.count = value + 1 }
    }
    model.changes(on: scheduler) { $0.count }.subscribe(subscriber)
    // `advance()` also runs what its actions schedule for now: each value in a run of its own.
    scheduler.advance()
    #expect(subscriber.values == [0, 1, 2])
    #expect(scheduler.performedActionCount == 3)
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func cancellingFromInsideReceiveStopsEverything() {
    let scheduler = DispatchQueue.test
    let model = Counter()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { _ in subscriber.cancel() }
    model.changes(on: scheduler) { $0.count }.subscribe(subscriber)
    scheduler.advance()
    model.count = 1
    scheduler.advance()
    #expect(subscriber.values == [0])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func eachSubscriberObservesOnItsOwn() {
    let scheduler = DispatchQueue.test
    let model = Counter()
    let publisher = model.changes(on: scheduler) { $0.count }
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    publisher.subscribe(first)
    scheduler.advance()
    model.count = 1
    publisher.subscribe(second)
    scheduler.advance()
    first.cancel()
    model.count = 2
    scheduler.advance()
    #expect(first.values == [0, 1])
    #expect(second.values == [1, 2])
    second.cancel()
  }

  @Test func theDebouncedAutoSaveSavesTheDocumentOnceEditingPauses() {
    let scheduler = DispatchQueue.test
    let editor = Editor()
    let saved = Mutex<[String]>([])
    // The seed's line, as written, type-checks against the main queue.
    _ = editor.changes { $0.document }.debounce(for: .seconds(1), scheduler: scheduler)
    let cancellable = editor.changes(on: scheduler) { $0.document }
      .debounce(for: .seconds(1), scheduler: scheduler)
      .sink { document in saved.withLock { $0.append(document) } }
    scheduler.advance(by: .milliseconds(500))
    editor.document = "d"
    scheduler.advance(by: .milliseconds(500))
    editor.document = "do"
    scheduler.advance(by: .milliseconds(500))
    editor.document = "doc"
    scheduler.advance(by: .milliseconds(999))
    #expect(saved.withLock { $0 }.isEmpty)
    scheduler.advance(by: .milliseconds(1))
    #expect(saved.withLock { $0 } == ["doc"])
    editor.document = "doc!"
    scheduler.advance(by: .seconds(1))
    #expect(saved.withLock { $0 } == ["doc", "doc!"])
    cancellable.cancel()
  }

  @Test func theDefaultSchedulerIsTheMainQueue() {
    let model = Counter()
    let publisher = model.changes { $0.count }
    #expect(publisher.scheduler.label == DispatchQueue.main.label)
    #expect(publisher.options == nil)
  }

  @Test func onARealQueueAChangeMadeThereIsPublished() async {
    let queue = DispatchQueue(label: "ObservationChangesTests.model")
    let model = UncheckedSendable(value: Counter())
    let subscriber = AwaitingSubscriber<Int, Never>()
    model.value.changes(on: queue) { $0.count }.subscribe(subscriber)
    await subscriber.values(count: 1)
    queue.async { model.value.count = 1 }
    await subscriber.values(count: 2)
    #expect(subscriber.values == [0, 1])
    subscriber.cancel()
  }

  @Test func theSubscriptionDescribesItself() {
    let scheduler = DispatchQueue.test
    let model = Counter()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    model.changes(on: scheduler) { $0.count }.subscribe(subscriber)
    let subscription = subscriber.subscription
    #expect(subscription.map { String(describing: $0) } == "ObservationChanges")
    scheduler.advance()
    let children = subscription.map { Mirror(reflecting: $0).children.map(\.label) }
    #expect(children == ["downstream", "demand", "currentValue"])
    subscriber.cancel()
  }

  @Test func anImmediateSchedulerStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Counter().changes(on: ImmediateScheduler.shared) { $0.count }
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("ImmediateScheduler would read the model inside the change"))
  }

  @Test func tenThousandModelsObservedAndReleasedLeaveNothingBehind() throws {
    let scheduler = DispatchQueue.test
    try withGrowthCheck(iterations: 10_000) { _ in
      var model: Counter? = Counter()
      let cancellable = model!.changes(on: scheduler) { $0.count }.sink { _ in }
      scheduler.advance()
      model!.count += 1
      scheduler.advance()
      cancellable.cancel()
      model = nil
    }
    try withGrowthCheck(iterations: 10_000) { _ in
      var model: Counter? = Counter()
      let finished = Mutex(false)
      let cancellable = model!.changes(on: scheduler) { $0.count }.sink(
        receiveCompletion: { _ in finished.withLock { $0 = true } }, receiveValue: { _ in })
      scheduler.advance()
      model = nil
      scheduler.advance()
      #expect(finished.withLock { $0 })
      withExtendedLifetime(cancellable) {}
    }
  }
}

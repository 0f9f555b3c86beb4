import ConduitTesting
import Dispatch
import Testing

@testable import ConduitSchedulers

@Suite(.leakChecked)
struct TimerTests {
  @Test func ticksOnlyOnceConnectedEmittingTheSchedulersTime() {
    let scheduler = DispatchQueue.test
    let timer = scheduler.timerPublisher(every: .seconds(1))
    let subscriber = TestSubscriber<DispatchQueue.SchedulerTimeType, Never>()
    timer.subscribe(subscriber)
    scheduler.advance(by: .seconds(3))
    #expect(subscriber.values.isEmpty)
    let start = scheduler.now
    let connection = timer.connect()
    scheduler.advance(by: .seconds(3))
    #expect(subscriber.values == [1, 2, 3].map { start.advanced(by: .seconds($0)) })
    connection.cancel()
    scheduler.advance(by: .seconds(3))
    #expect(subscriber.values.count == 3)
    #expect(scheduler.pendingActionCount == 0)
    subscriber.cancel()
  }

  @Test func aCancellableOfAnEarlierRunDoesNotStopALaterOne() {
    let scheduler = DispatchQueue.test
    let timer = scheduler.timerPublisher(every: .seconds(1))
    let subscriber = TestSubscriber<DispatchQueue.SchedulerTimeType, Never>()
    timer.subscribe(subscriber)
    let first = timer.connect()
    let joined = timer.connect()
    scheduler.advance(by: .seconds(1))
    first.cancel()
    scheduler.advance(by: .seconds(1))
    #expect(subscriber.values.count == 1)
    let second = timer.connect()
    first.cancel()
    joined.cancel()
    scheduler.advance(by: .seconds(2))
    #expect(subscriber.values.count == 3)
    second.cancel()
    scheduler.advance(by: .seconds(1))
    #expect(subscriber.values.count == 3)
    #expect(scheduler.pendingActionCount == 0)
    subscriber.cancel()
  }

  @Test func aConnectionCancelledBeforeItsTimerIsScheduledStopsIt() {
    var connection = TimerConnection()
    let (run, starts) = connection.connect()
    #expect(starts)
    #expect(connection.disconnect(run) == nil)
    let timer = Subscriptions.empty
    #expect(connection.started(run, timer) != nil)
    #expect(connection.isConnected == false)
  }

  @Test func autoconnectStartsWithTheFirstSubscriberAndStopsWhenItCancels() {
    let scheduler = DispatchQueue.test
    var ticks = 0
    let cancellable = scheduler.timerPublisher(every: .milliseconds(100)).autoconnect().sink { _ in ticks += 1 }
    scheduler.advance(by: .seconds(1))
    #expect(ticks == 10)
    cancellable.cancel()
    scheduler.advance(by: .seconds(1))
    #expect(ticks == 10)
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func everySubscriberGetsTheSameTicksAndOneWithoutDemandMissesThem() {
    let scheduler = DispatchQueue.test
    let timer = scheduler.timerPublisher(every: .seconds(1))
    let eager = TestSubscriber<DispatchQueue.SchedulerTimeType, Never>()
    let idle = TestSubscriber<DispatchQueue.SchedulerTimeType, Never>(initialDemand: .none)
    timer.subscribe(eager)
    timer.subscribe(idle)
    let connection = timer.connect()
    scheduler.advance(by: .seconds(2))
    idle.request(.max(1))
    scheduler.advance(by: .seconds(1))
    #expect(eager.values.count == 3)
    #expect(idle.values == [eager.values[2]])
    connection.cancel()
    eager.cancel()
    idle.cancel()
  }
}

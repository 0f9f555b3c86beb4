import Conduit
import ConduitSchedulers
import ConduitTesting
import Dispatch
import Foundation
import Synchronization
import Testing

private typealias TimeType = DispatchQueue.SchedulerTimeType
private typealias Stride = DispatchQueue.SchedulerTimeType.Stride

/// Generous bounds: these tests run real queues on a loaded machine.
private let patience = DispatchTimeInterval.seconds(10)

private func time(_ uptimeNanoseconds: UInt64) -> TimeType {
  TimeType(DispatchTime(uptimeNanoseconds: uptimeNanoseconds))
}

/// A serial queue that knows itself: `isCurrent` is true only in work it runs.
private final class TaggedQueue: Sendable {
  let queue = DispatchQueue(label: "DispatchQueueSchedulerTests")
  private let key = DispatchSpecificKey<Int>()

  init() { queue.setSpecific(key: key, value: 1) }

  var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == 1 }
}

/// Counts the runs of an action and lets the test wait for them.
private final class RunLog: Sendable {
  private let count = Atomic<Int>(0)
  private let offQueue = Atomic<Int>(0)
  private let runs = DispatchSemaphore(value: 0)

  var runCount: Int { count.load(ordering: .sequentiallyConsistent) }
  var runsOffQueue: Int { offQueue.load(ordering: .sequentiallyConsistent) }

  func record(onQueue: Bool = true) {
    count.wrappingAdd(1, ordering: .sequentiallyConsistent)
    if !onQueue { offQueue.wrappingAdd(1, ordering: .sequentiallyConsistent) }
    runs.signal()
  }

  /// Waits for `times` more runs; false if they do not come within `patience`.
  func waitForRuns(_ times: Int = 1) -> Bool {
    (0..<times).allSatisfy { _ in runs.wait(timeout: .now() + patience) == .success }
  }
}

/// Captured by an action, to see when the scheduler lets go of it.
private final class Captive {}

/// Holds the cancellable that an action cancels from inside.
private final class TokenBox: @unchecked Sendable {
  // Written before the timer's first run, read only on the timer's queue.
  var token: (any Cancellable)?
}

private struct KeyedWrapper<Value: Codable & Equatable>: Codable, Equatable {
  let value: Value
}

private func json<Value: Codable & Equatable>(_ value: Value) throws -> String {
  String(decoding: try JSONEncoder().encode(KeyedWrapper(value: value)), as: UTF8.self)
}

private func decoded<Value: Codable & Equatable>(_ text: String, as type: Value.Type) throws -> Value {
  try JSONDecoder().decode(KeyedWrapper<Value>.self, from: Data(text.utf8)).value
}

/// Compiles only if `interval` is the scheduler's stride: what `debounce(for:scheduler:)` needs.
private func schedulerStride<S: Scheduler>(
  _ interval: S.SchedulerTimeType.Stride, on scheduler: S
) -> S.SchedulerTimeType.Stride {
  interval
}

@Suite(.leakChecked)
struct DispatchQueueSchedulerTests {
  // MARK: - Stride

  @Test func literalsAreSeconds() {
    let fractional: Stride = 1.5
    let whole: Stride = 2
    #expect(fractional.magnitude == 1_500_000_000)
    #expect(whole.magnitude == 2_000_000_000)
    #expect(Stride(floatLiteral: 0.25).magnitude == 250_000_000)
    #expect(Stride(integerLiteral: -3).magnitude == -3_000_000_000)
  }

  @Test func exactlyIsSecondsAndNilWhenTooLarge() {
    #expect(Stride(exactly: 2 as UInt64)?.magnitude == 2_000_000_000)
    #expect(Stride(exactly: -1 as Int8)?.magnitude == -1_000_000_000)
    #expect(Stride(exactly: UInt64.max) == nil)
  }

  @Test func factoriesConvertToNanoseconds() {
    #expect(Stride.seconds(2).magnitude == 2_000_000_000)
    #expect(Stride.seconds(1.2).magnitude == 1_200_000_000)
    #expect(Stride.milliseconds(2).magnitude == 2_000_000)
    #expect(Stride.microseconds(2).magnitude == 2_000)
    #expect(Stride.nanoseconds(2).magnitude == 2)
    #expect(Stride.milliseconds(-300).magnitude == -300_000_000)
  }

  @Test func factoriesClampToTheRangeOfInt() {
    #expect(Stride.seconds(Int.max).magnitude == .max)
    #expect(Stride.seconds(Int.min).magnitude == .min)
    #expect(Stride.milliseconds(.max).magnitude == .max)
    #expect(Stride.microseconds(.min).magnitude == .min)
    #expect(Stride.nanoseconds(.max).magnitude == .max)
    #expect(Stride.seconds(Double.infinity).magnitude == .max)
    #expect(Stride.seconds(-Double.infinity).magnitude == .min)
    #expect(Stride.seconds(Double(Int.max) / 1_000_000_000).magnitude == .max)
    #expect(Stride.seconds(Double(Int.max) / 1_000_000_000 - 1).magnitude == 9_223_372_035_854_776_320)
  }

  @Test func convertsFromDispatchTimeIntervals() {
    #expect(Stride(.seconds(2)).magnitude == 2_000_000_000)
    #expect(Stride(.milliseconds(2)).magnitude == 2_000_000)
    #expect(Stride(.microseconds(2)).magnitude == 2_000)
    #expect(Stride(.nanoseconds(2)).magnitude == 2)
    #expect(Stride(.never).magnitude == .max)
    #expect(Stride(.seconds(.max)).magnitude == .max)
    #expect(Stride(.seconds(.min)).magnitude == .min)
    #expect(Stride(.milliseconds(.min)).magnitude == .min)
    #expect(Stride(.nanoseconds(.min)).magnitude == .min)
  }

  @Test func convertsToDispatchTimeIntervalsInNanoseconds() {
    #expect(Stride.seconds(2).timeInterval == .nanoseconds(2_000_000_000))
    #expect(Stride.microseconds(2).timeInterval == .nanoseconds(2_000))
    #expect(Stride.nanoseconds(.max).timeInterval == .nanoseconds(.max))
  }

  @Test func comparesByNanoseconds() {
    #expect(Stride.nanoseconds(1) < .nanoseconds(2))
    #expect(Stride.nanoseconds(-2) > .microseconds(-10))
    #expect(Stride.milliseconds(2) < .seconds(2))
    #expect(Stride.milliseconds(1_000) == .seconds(1))
    #expect(Stride.seconds(0.5) == .milliseconds(500))
    #expect(Set([Stride.seconds(1), .milliseconds(1_000), .nanoseconds(1)]).count == 2)
  }

  @Test func addsAndSubtracts() {
    #expect((Stride.nanoseconds(7) + .microseconds(2)).magnitude == 2_007)
    #expect((Stride.nanoseconds(7) - .nanoseconds(12)).magnitude == -5)
    #expect((-Stride.seconds(1)).magnitude == -1_000_000_000)
    #expect(Stride.zero.magnitude == 0)
    var stride = Stride.nanoseconds(7)
    stride += .nanoseconds(12)
    #expect(stride.magnitude == 19)
    stride -= .nanoseconds(20)
    #expect(stride.magnitude == -1)
  }

  // Pinned from the Combine-verified suite: Combine's product of two strides is always zero.
  @Test func multipliesToZeroAsCombineDoes() {
    #expect((Stride.nanoseconds(15) * .nanoseconds(2)).magnitude == 0)
    #expect((Stride.seconds(1) * 2).magnitude == 0)
    var stride = Stride.microseconds(-3)
    stride *= .nanoseconds(10)
    #expect(stride.magnitude == 0)
  }

  @Test func encodesInCombinesFormat() throws {
    let stride = Stride.nanoseconds(419_872)
    #expect(try json(stride) == #"{"value":{"_nanoseconds":419872}}"#)
    #expect(try decoded(#"{"value":{"_nanoseconds":-5}}"#, as: Stride.self) == .nanoseconds(-5))
    #expect(try decoded(json(Stride.seconds(1.5)), as: Stride.self) == 1.5)
  }

  @Test func intervalsResolveToTheQueuesStride() {
    // What `.debounce(for: .milliseconds(300), scheduler: queue)` relies on.
    let interval = schedulerStride(.milliseconds(300), on: DispatchQueue.main)
    #expect(interval.magnitude == 300_000_000)
    #expect(schedulerStride(0.3, on: DispatchQueue.global()) == .milliseconds(300))
    let erased: AnySchedulerOf<DispatchQueue> = DispatchQueue.main.eraseToAnyScheduler()
    #expect(schedulerStride(.seconds(1), on: erased) == .nanoseconds(1_000_000_000))
  }

  // MARK: - SchedulerTimeType

  @Test func distanceIsInNanosecondsBothWays() {
    #expect(time(10_000).distance(to: time(10_431)) == .nanoseconds(431))
    #expect(time(10_431).distance(to: time(10_000)) == .nanoseconds(-431))
    #expect(time(10_000).distance(to: time(UInt64(Int.max))) == .nanoseconds(.max - 10_000))
    #expect(time(UInt64(Int.max)).distance(to: time(10_000)) == .nanoseconds(-(.max - 10_000)))
    #expect(time(5).distance(to: time(5)) == .nanoseconds(0))
  }

  // Pinned from the Combine-verified suite: a gap wider than `Int` reads as never, whichever way.
  @Test func distanceBeyondIntIsMaxWhicheverWay() {
    let distantFuture = TimeType(.distantFuture)
    let notSoDistantFuture = time(DispatchTime.distantFuture.uptimeNanoseconds - 1_024)
    #expect(time(10_000).distance(to: distantFuture) == .nanoseconds(.max))
    #expect(distantFuture.distance(to: time(10_000)) == .nanoseconds(.max))
    #expect(time(10_000).distance(to: notSoDistantFuture) == .nanoseconds(.max))
    #expect(notSoDistantFuture.distance(to: time(10_000)) == .nanoseconds(.max))
    #expect(distantFuture.distance(to: distantFuture) == .nanoseconds(0))
  }

  @Test func advancesWithinTheClock() {
    #expect(time(10_000).advanced(by: .nanoseconds(431)) == time(10_431))
    #expect(time(10_000).advanced(by: .nanoseconds(-220)) == time(9_780))
    #expect(time(10_000).advanced(by: .seconds(1)) == time(1_000_010_000))
    #expect(time(10_000).advanced(by: .nanoseconds(.max)).dispatchTime == .distantFuture)
    #expect(time(10_000).advanced(by: Stride(.never)).dispatchTime == .distantFuture)
    // Dispatch does not go back beyond its first instant.
    #expect(time(1).advanced(by: .nanoseconds(-1_000)).dispatchTime == DispatchTime(uptimeNanoseconds: 1))
  }

  @Test func advancingThenMeasuringGivesTheStrideBack() {
    let start = DispatchQueue.main.now
    for stride: Stride in [.milliseconds(300), .seconds(-1), .nanoseconds(1), 2.5] {
      #expect(start.distance(to: start.advanced(by: stride)) == stride)
    }
  }

  @Test func timesCompareAndHashByTheirDispatchTime() {
    #expect(time(10_000) == time(10_000))
    #expect(time(10_000) != time(10_001))
    #expect(time(10_000) < time(10_001))
    #expect(time(10_001) > time(10_000))
    #expect(time(10_000).hashValue == DispatchTime(uptimeNanoseconds: 10_000).rawValue.hashValue)
    #expect(Set([time(1), time(1), time(2)]).count == 2)
  }

  @Test func timesEncodeAsUptimeNanoseconds() throws {
    #expect(try json(time(42)) == #"{"value":42}"#)
    #expect(try decoded(#"{"value":42}"#, as: TimeType.self) == time(42))
    let now = DispatchQueue.main.now
    #expect(try decoded(json(now), as: TimeType.self) == now)
  }

  // MARK: - Options

  @Test func optionsDefaultToNothing() {
    let options = DispatchQueue.SchedulerOptions()
    #expect(options.qos == .unspecified)
    #expect(options.flags == [])
    #expect(options.group == nil)
    let group = DispatchGroup()
    let chosen = DispatchQueue.SchedulerOptions(qos: .userInitiated, flags: .barrier, group: group)
    #expect(chosen.qos == .userInitiated)
    #expect(chosen.flags == .barrier)
    #expect(chosen.group === group)
  }

  // MARK: - Scheduler

  @Test func minimumToleranceIsZero() {
    #expect(DispatchQueue.main.minimumTolerance == .nanoseconds(0))
    #expect(DispatchQueue.global().minimumTolerance == .zero)
  }

  @Test func nowIsDispatchTimeNow() {
    let before = DispatchTime.now()
    let now = DispatchQueue.global().now
    let after = DispatchTime.now()
    #expect(before <= now.dispatchTime)
    #expect(now.dispatchTime <= after)
  }

  @Test func scheduleRunsLaterOnTheQueue() {
    let tagged = TaggedQueue()
    let log = RunLog()
    tagged.queue.sync {
      // The queue is busy running this block, so the action cannot have run when `schedule`
      // returns.
      tagged.queue.schedule { log.record(onQueue: tagged.isCurrent) }
      #expect(log.runCount == 0)
    }
    #expect(log.waitForRuns())
    #expect(log.runCount == 1)
    #expect(log.runsOffQueue == 0)
  }

  @Test func scheduleRunsTheActionInTheOptionsGroup() {
    let tagged = TaggedQueue()
    let group = DispatchGroup()
    let gate = DispatchSemaphore(value: 0)
    let log = RunLog()
    tagged.queue.async { gate.wait() }
    tagged.queue.schedule(options: .init(qos: .userInitiated, group: group)) { log.record(onQueue: tagged.isCurrent) }
    // Entered at once: the action is waiting behind the gate.
    #expect(group.wait(timeout: .now()) == .timedOut)
    gate.signal()
    #expect(group.wait(timeout: .now() + patience) == .success)
    #expect(log.runCount == 1)
    #expect(log.runsOffQueue == 0)
  }

  @Test func scheduleAfterRunsNoEarlierThanTheDate() {
    let tagged = TaggedQueue()
    let log = RunLog()
    let ranAt = Mutex<DispatchTime?>(nil)
    let date = tagged.queue.now.advanced(by: .milliseconds(50))
    tagged.queue.schedule(after: date, tolerance: .milliseconds(1), options: .init(qos: .utility)) {
      ranAt.withLock { $0 = .now() }
      log.record(onQueue: tagged.isCurrent)
    }
    #expect(log.waitForRuns())
    let ran = ranAt.withLock { $0 }
    #expect(ran.map { $0 >= date.dispatchTime } == true)
    #expect(log.runsOffQueue == 0)
  }

  @Test func scheduleAfterADatePassedRunsSoon() {
    let tagged = TaggedQueue()
    let log = RunLog()
    tagged.queue.schedule(after: tagged.queue.now.advanced(by: .seconds(-1))) { log.record(onQueue: tagged.isCurrent) }
    #expect(log.waitForRuns())
    #expect(log.runsOffQueue == 0)
  }

  @Test func repeatingRunsUntilCancelledThenReleasesItsAction() {
    let tagged = TaggedQueue()
    let log = RunLog()
    weak var weakCaptive: Captive?
    var token: (any Cancellable)?
    do {
      let captive = Captive()
      weakCaptive = captive
      token = tagged.queue.schedule(
        after: tagged.queue.now.advanced(by: .milliseconds(10)), interval: .milliseconds(10)
      ) {
        withExtendedLifetime(captive) { log.record(onQueue: tagged.isCurrent) }
      }
    }
    #expect(token is AnyCancellable)
    #expect(log.waitForRuns(3))
    #expect(weakCaptive != nil)
    // Cancelled on the queue, so that no run is under way.
    let runsAtCancel = tagged.queue.sync {
      token?.cancel()
      return log.runCount
    }
    #expect(weakCaptive == nil)
    token?.cancel()
    // Five intervals later, on the same queue, the timer has not run again.
    tagged.queue.schedule(after: tagged.queue.now.advanced(by: .milliseconds(50))) { log.record() }
    #expect(log.waitForRuns())
    #expect(log.runCount == runsAtCancel + 1)
    #expect(log.runsOffQueue == 0)
  }

  // Combine returns an `AnyCancellable`, which cancels when it goes.
  @Test func droppingTheCancellableStopsTheTimer() {
    let tagged = TaggedQueue()
    let log = RunLog()
    weak var weakCaptive: Captive?
    var token: (any Cancellable)?
    do {
      let captive = Captive()
      weakCaptive = captive
      token = tagged.queue.schedule(after: tagged.queue.now, interval: .milliseconds(10)) {
        withExtendedLifetime(captive) { log.record() }
      }
    }
    #expect(log.waitForRuns(2))
    let runsAtDrop = tagged.queue.sync {
      token = nil
      return log.runCount
    }
    #expect(token == nil)
    #expect(weakCaptive == nil)
    tagged.queue.schedule(after: tagged.queue.now.advanced(by: .milliseconds(50))) { log.record() }
    #expect(log.waitForRuns())
    #expect(log.runCount == runsAtDrop + 1)
  }

  @Test func repeatingActionMayCancelItsOwnTimer() {
    let tagged = TaggedQueue()
    let log = RunLog()
    let box = TokenBox()
    tagged.queue.sync {
      // Set before the first run can come: the queue is busy with this block.
      box.token = tagged.queue.schedule(after: tagged.queue.now, interval: .milliseconds(5)) {
        log.record()
        box.token?.cancel()
      }
    }
    #expect(log.waitForRuns())
    tagged.queue.schedule(after: tagged.queue.now.advanced(by: .milliseconds(50))) { log.record() }
    #expect(log.waitForRuns())
    #expect(log.runCount == 2)
    tagged.queue.sync { box.token = nil }
  }

  @Test func repeatingTimerJoinsTheCensus() throws {
    let queue = DispatchQueue(label: "DispatchQueueSchedulerTests.census")
    var token: (any Cancellable)?
    let failure = #expect(throws: LeakCheckFailure.self) {
      try withLeakCheck(timeout: .milliseconds(10)) { _ in
        token = queue.schedule(after: queue.now.advanced(by: .seconds(60)), interval: .seconds(60)) {}
      }
    }
    #expect(failure?.survivors.map(\.typeName) == ["DispatchRepeatingTimer"])
    token?.cancel()
    token = nil
  }
}

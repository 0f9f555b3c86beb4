import ConduitSchedulers
import ConduitTesting
import Dispatch
import Synchronization
import Testing

private typealias Time = DispatchQueue.SchedulerTimeType
private typealias Stride = DispatchQueue.SchedulerTimeType.Stride

private struct SpyOptions: Equatable, Sendable {
  let tag: Int
}

/// A call that reached the spy scheduler.
private enum SpyCall: Equatable {
  case now
  case minimumTolerance
  case schedule(SpyOptions?)
  case scheduleAfter(Time, Stride, SpyOptions?)
  case scheduleRepeating(Time, Stride, Stride, SpyOptions?)
  case cancel
}

/// Records every call and runs each action at once.
private final class SpyScheduler: Scheduler, Sendable {
  typealias SchedulerTimeType = Time
  typealias SchedulerOptions = SpyOptions

  private let log = Mutex<[SpyCall]>([])

  var calls: [SpyCall] { log.withLock { $0 } }

  private func record(_ call: SpyCall) {
    log.withLock { $0.append(call) }
  }

  var now: Time {
    record(.now)
    return Time(DispatchTime(uptimeNanoseconds: 1_000))
  }

  var minimumTolerance: Stride {
    record(.minimumTolerance)
    return .nanoseconds(7)
  }

  func schedule(options: SpyOptions?, _ action: @escaping () -> Void) {
    record(.schedule(options))
    action()
  }

  func schedule(after date: Time, tolerance: Stride, options: SpyOptions?, _ action: @escaping () -> Void) {
    record(.scheduleAfter(date, tolerance, options))
    action()
  }

  func schedule(
    after date: Time, interval: Stride, tolerance: Stride, options: SpyOptions?, _ action: @escaping () -> Void
  ) -> any Cancellable {
    record(.scheduleRepeating(date, interval, tolerance, options))
    action()
    return AnyCancellable { [self] in record(.cancel) }
  }
}

private func time(_ uptimeNanoseconds: UInt64) -> Time {
  Time(DispatchTime(uptimeNanoseconds: uptimeNanoseconds))
}

/// The bytes of a value: for an `AnyScheduler`, the functions and contexts of its closures, equal
/// only when it holds the very same closures.
private func bytes<T>(of value: T) -> [UInt8] {
  withUnsafeBytes(of: value) { Array($0) }
}

@Suite(.leakChecked)
struct AnySchedulerTests {
  @Test func forwardsNowAndMinimumTolerance() {
    let spy = SpyScheduler()
    let erased = spy.eraseToAnyScheduler()
    #expect(erased.now == time(1_000))
    #expect(erased.minimumTolerance == .nanoseconds(7))
    #expect(spy.calls == [.now, .minimumTolerance])
  }

  @Test func forwardsEachScheduleWithItsArguments() {
    let spy = SpyScheduler()
    let erased = AnyScheduler(spy)
    var runs: [String] = []
    erased.schedule(options: SpyOptions(tag: 1)) { runs.append("now") }
    erased.schedule(after: time(5), tolerance: .nanoseconds(2), options: SpyOptions(tag: 2)) { runs.append("after") }
    let token = erased.schedule(
      after: time(9), interval: .seconds(1), tolerance: .nanoseconds(3), options: SpyOptions(tag: 3)
    ) { runs.append("repeating") }
    #expect(runs == ["now", "after", "repeating"])
    #expect(
      spy.calls == [
        .schedule(SpyOptions(tag: 1)),
        .scheduleAfter(time(5), .nanoseconds(2), SpyOptions(tag: 2)),
        .scheduleRepeating(time(9), .seconds(1), .nanoseconds(3), SpyOptions(tag: 3)),
      ])
    token.cancel()
    #expect(spy.calls.last == .cancel)
  }

  @Test func defaultedOverloadsReachTheWrappedScheduler() {
    let spy = SpyScheduler()
    let erased = spy.eraseToAnyScheduler()
    erased.schedule {}
    erased.schedule(after: time(5)) {}
    let token = erased.schedule(after: time(9), interval: .milliseconds(1)) {}
    #expect(
      spy.calls == [
        .schedule(nil),
        .minimumTolerance, .scheduleAfter(time(5), .nanoseconds(7), nil),
        .minimumTolerance, .scheduleRepeating(time(9), .milliseconds(1), .nanoseconds(7), nil),
      ])
    token.cancel()
  }

  @Test func erasingAnErasedSchedulerDoesNotWrapItAgain() {
    let spy = SpyScheduler()
    let erased = spy.eraseToAnyScheduler()
    let twice = erased.eraseToAnyScheduler()
    let wrapped = AnyScheduler(erased)
    #expect(bytes(of: twice) == bytes(of: erased))
    #expect(bytes(of: wrapped) == bytes(of: erased))
    // A second wrapper would hold closures of its own.
    #expect(bytes(of: AnyScheduler(spy)) != bytes(of: erased))
    _ = twice.now
    #expect(spy.calls == [.now])
  }

  @Test func closuresStandInForAScheduler() {
    let calls = Mutex<[String]>([])
    let scheduler = AnyScheduler<Time, SpyOptions>(
      minimumTolerance: { .nanoseconds(1) },
      now: { time(3) },
      scheduleImmediately: { options, action in
        calls.withLock { $0.append("now \(options?.tag ?? 0)") }
        action()
      },
      delayed: { date, _, _, action in
        calls.withLock { $0.append("after \(date.dispatchTime.uptimeNanoseconds)") }
        action()
      },
      interval: { _, interval, _, _, action in
        calls.withLock { $0.append("every \(interval.magnitude)") }
        action()
        return AnyCancellable {}
      })
    var runs = 0
    scheduler.schedule(options: SpyOptions(tag: 4)) { runs += 1 }
    scheduler.schedule(after: scheduler.now.advanced(by: .nanoseconds(2))) { runs += 1 }
    _ = scheduler.schedule(after: scheduler.now, interval: .nanoseconds(8)) { runs += 1 }
    #expect(runs == 3)
    #expect(scheduler.minimumTolerance == .nanoseconds(1))
    #expect(calls.withLock { $0 } == ["now 4", "after 5", "every 8"])
  }

  @Test func erasesADispatchQueue() {
    let queue = DispatchQueue(label: "AnySchedulerTests")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 1)
    let scheduler: AnySchedulerOf<DispatchQueue> = queue.eraseToAnyScheduler()
    #expect(scheduler.minimumTolerance == .zero)
    let before = DispatchTime.now()
    #expect(scheduler.now.dispatchTime >= before)

    let ran = DispatchSemaphore(value: 0)
    let onQueue = Atomic<Int>(0)
    let record = {
      if DispatchQueue.getSpecific(key: key) == 1 { onQueue.wrappingAdd(1, ordering: .sequentiallyConsistent) }
      ran.signal()
    }
    let group = DispatchGroup()
    scheduler.schedule(options: .init(group: group)) { record() }
    #expect(group.wait(timeout: .now() + 10) == .success)
    scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(5))) { record() }
    let ticks = scheduler.schedule(after: scheduler.now, interval: .milliseconds(5)) { record() }
    for _ in 0..<4 { #expect(ran.wait(timeout: .now() + 10) == .success) }
    queue.sync { ticks.cancel() }
    #expect(onQueue.load(ordering: .sequentiallyConsistent) >= 4)
  }
}

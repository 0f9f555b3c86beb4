import Conduit
import ConduitTesting
import Dispatch
import Testing
import ThirdPartySchedulers

/// A module that imports Conduit beside a library declaring `AnyScheduler`, `AnySchedulerOf`,
/// `eraseToAnyScheduler()` and `Publishers.Timer` (as combine-schedulers and CombineExt do) names
/// them without qualification: `import Conduit` declares none of them, so none is ambiguous.
@Suite(.leakChecked)
struct ThirdPartySchedulersTests {
  @Test func theLibrarysAnySchedulerOfDrivesConduitsOperators() {
    let scheduler = DispatchQueue.test
    let erased: AnySchedulerOf<DispatchQueue> = scheduler.eraseToAnyScheduler()
    typealias LibraryScheduler = ThirdPartySchedulers.AnyScheduler<
      DispatchQueue.SchedulerTimeType, DispatchQueue.SchedulerOptions
    >
    #expect(type(of: erased) == LibraryScheduler.self)
    let queries = PassthroughSubject<String, Never>()
    let subscriber = TestSubscriber<String, Never>()
    queries.debounce(for: .milliseconds(300), scheduler: erased).subscribe(subscriber)
    queries.send("co")
    queries.send("con")
    scheduler.advance(by: .milliseconds(299))
    #expect(subscriber.values.isEmpty)
    scheduler.advance(by: .milliseconds(1))
    #expect(subscriber.values == ["con"])
    subscriber.cancel()
  }

  @Test func theLibrarysAnySchedulerWrapsAScheduler() {
    let scheduler = DispatchQueue.test
    let erased = AnyScheduler(scheduler)
    var ran = false
    erased.schedule(after: erased.now.advanced(by: .seconds(1))) { ran = true }
    scheduler.advance(by: .seconds(1))
    #expect(ran)
    #expect(erased.now == scheduler.now)
  }

  @Test func theLibrarysPublishersTimerTicksThroughConduit() {
    let scheduler = DispatchQueue.test
    let timer: Publishers.Timer<AnySchedulerOf<DispatchQueue>> = libraryTimer(every: .seconds(1), on: scheduler)
    let subscriber = TestSubscriber<DispatchQueue.SchedulerTimeType, Never>()
    timer.subscribe(subscriber)
    let start = scheduler.now
    let connection = timer.connect()
    scheduler.advance(by: .seconds(2))
    #expect(subscriber.values == [start.advanced(by: .seconds(1)), start.advanced(by: .seconds(2))])
    connection.cancel()
    scheduler.advance(by: .seconds(2))
    #expect(subscriber.values.count == 2)
    subscriber.cancel()
  }
}

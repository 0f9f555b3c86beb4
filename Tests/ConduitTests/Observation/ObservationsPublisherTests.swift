import ConduitTesting
import Observation
import Testing

@testable import Conduit

/// A model that `Observations`' `@Sendable` closure may capture; the tests change it from one
/// task at a time.
@Observable private final class SharedCounter: @unchecked Sendable {
  var count = 0
}

/// `Observations`, Observation's own asynchronous sequence of changes, consumed as a publisher
/// through `AsyncSequence.publisher`: nothing in Conduit is specific to it.
@Suite(.leakChecked(timeout: .seconds(3)))
struct ObservationsPublisherTests {
  @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
  @Test func theCurrentValueAndEachChangeAreEmitted() async {
    let model = SharedCounter()
    let subscriber = AwaitingSubscriber<Int, Never>()
    Observations { model.count }.publisher.subscribe(subscriber)
    await subscriber.values(count: 1)
    model.count = 1
    await subscriber.values(count: 2)
    model.count = 2
    await subscriber.values(count: 3)
    #expect(subscriber.values == [0, 1, 2])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
  @Test func cancellingEndsTheIterationAndLetsGoOfTheModel() async {
    var model: SharedCounter? = SharedCounter()
    weak let weakModel = model
    let subscriber = AwaitingSubscriber<Int, Never>()
    Observations { [model = model!] in model.count }.publisher.subscribe(subscriber)
    await subscriber.values(count: 1)
    subscriber.cancel()
    model!.count = 1
    model = nil
    // The task ends, and lets go of the sequence and its closure, once cancelled.
    let deadline = ContinuousClock.now.advanced(by: .seconds(2))
    while weakModel != nil && ContinuousClock.now < deadline { await Task.yield() }
    #expect(weakModel == nil)
    #expect(subscriber.values == [0])
  }
}

import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct ShareReplayTests {
  @Test func lateSubscriberGetsTheLastValues() {
    let source = PassthroughSubject<Int, Never>()
    let shared = source.share(replay: 2)
    let early = TestSubscriber<Int, Never>()
    shared.subscribe(early)
    source.send(1)
    source.send(2)
    source.send(3)
    let late = TestSubscriber<Int, Never>()
    shared.subscribe(late)
    #expect(late.values == [2, 3])
    source.send(4)
    #expect(early.values == [1, 2, 3, 4])
    #expect(late.values == [2, 3, 4])
    early.cancel()
    late.cancel()
  }

  @Test func replayWaitsForDemand() {
    let source = PassthroughSubject<Int, Never>()
    let shared = source.share(replay: 3)
    let early = TestSubscriber<Int, Never>()
    shared.subscribe(early)
    source.send(1)
    source.send(2)
    let late = TestSubscriber<Int, Never>(initialDemand: .none)
    shared.subscribe(late)
    #expect(late.values.isEmpty)
    late.request(.max(1))
    #expect(late.values == [1])
    late.request(.max(5))
    #expect(late.values == [1, 2])
    source.send(3)
    #expect(late.values == [1, 2, 3])
    #expect(late.violations.isEmpty)
    early.cancel()
    late.cancel()
  }

  @Test func subscriberAfterCompletionGetsReplayThenCompletion() {
    let shared = [1, 2, 3].publisher.share(replay: 1)
    let first = TestSubscriber<Int, Never>()
    shared.subscribe(first)
    #expect(first.values == [1, 2, 3])
    let late = TestSubscriber<Int, Never>()
    shared.subscribe(late)
    #expect(late.values == [3])
    #expect(late.completion == .finished)
  }

  @Test func upstreamRunsOnce() {
    var runs = 0
    let source = PassthroughSubject<Int, Never>()
    let shared = Deferred { () -> PassthroughSubject<Int, Never> in
      runs += 1
      return source
    }.share(replay: 1)
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    shared.subscribe(first)
    shared.subscribe(second)
    source.send(1)
    #expect(runs == 1)
    #expect(first.values == [1] && second.values == [1])
    first.cancel()
    second.cancel()
  }

  @Test func cancelStopsDelivery() {
    let source = PassthroughSubject<Int, Never>()
    let shared = source.share(replay: 1)
    let subscriber = TestSubscriber<Int, Never>()
    shared.subscribe(subscriber)
    source.send(1)
    subscriber.cancel()
    source.send(2)
    #expect(subscriber.values == [1])
  }
}

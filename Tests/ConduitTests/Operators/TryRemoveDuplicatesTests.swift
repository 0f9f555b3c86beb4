import Conduit
import ConduitTesting
import Testing

private struct TryRemoveDuplicatesTestError: Error, Equatable {
  var code = 0
}

@Suite(.leakChecked)
struct TryRemoveDuplicatesTests {
  @Test func dropsConsecutiveDuplicates() {
    let subscriber = TestSubscriber<String, any Error>()
    let publisher: Publishers.TryRemoveDuplicates<AnyPublisher<String, Never>> = ["a", "A", "b", "B", "a"].publisher
      .eraseToAnyPublisher()
      .tryRemoveDuplicates { $0.lowercased() == $1.lowercased() }
    publisher.subscribe(subscriber)
    #expect(subscriber.values == ["a", "b", "a"])
    #expect(isFinished(subscriber))
  }

  @Test func upstreamFailureBecomesAnyError() {
    let subject = PassthroughSubject<Int, TryRemoveDuplicatesTestError>()
    let subscriber = TestSubscriber<Int, any Error>()
    subject.tryRemoveDuplicates(by: ==).subscribe(subscriber)
    subject.send(1)
    subject.send(completion: .failure(TryRemoveDuplicatesTestError(code: 6)))
    #expect(subscriber.values == [1])
    #expect(failure(of: subscriber, as: TryRemoveDuplicatesTestError.self) == TryRemoveDuplicatesTestError(code: 6))
  }

  @Test func thrownErrorCancelsUpstreamAndFailsDownstream() {
    let upstream = HandDrivenUpstream<Int, Never>()
    upstream.conduct = .ignoresCancel
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryRemoveDuplicates { previous, current -> Bool in
      if current < 0 { throw TryRemoveDuplicatesTestError(code: previous) }
      return previous == current
    }
    .subscribe(subscriber)
    upstream.send(1)
    upstream.send(1)
    upstream.send(-1)
    #expect(upstream.cancelCount == 1)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(subscriber.values == [1])
    #expect(failure(of: subscriber, as: TryRemoveDuplicatesTestError.self) == TryRemoveDuplicatesTestError(code: 1))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func firstValueIsNotCompared() {
    var calls = 0
    let subscriber = TestSubscriber<Int, any Error>()
    [5].publisher.eraseToAnyPublisher()
      .tryRemoveDuplicates { _, _ in
        calls += 1
        throw TryRemoveDuplicatesTestError()
      }
      .subscribe(subscriber)
    #expect(calls == 0)
    #expect(subscriber.values == [5])
    #expect(isFinished(subscriber))
  }

  @Test func droppedDuplicateIsReplacedByUpstreamDemand() {
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .max(2))
    [1, 1, 2, 2, 3].publisher.eraseToAnyPublisher().tryRemoveDuplicates(by: ==).subscribe(subscriber)
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion == nil)
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2, 3])
    #expect(isFinished(subscriber))
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelGoesStraightUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, any Error>()
    upstream.tryRemoveDuplicates(by: ==).subscribe(subscriber)
    upstream.send(1)
    subscriber.cancel()
    #expect(upstream.cancelCount == 1)
    upstream.send(2)
    #expect(subscriber.values == [1])
  }

  // MARK: Its own subscription, as Combine's

  @Test func theSubscriberGetsTheOperatorsOwnSubscription() {
    expectOwnSubscription(named: "TryRemoveDuplicates", mirrorLabels: ["downstream", "last"]) {
      $0.tryRemoveDuplicates { $0 == $1 }
    }
  }

  @Test func afterTheStreamEndsRequestsAndCancelsStayHere() {
    expectEndedStreamPassesNothingUpstream(
      after: [.cancelled], { $0.tryRemoveDuplicates { _, _ in throw TryRemoveDuplicatesTestError() } }
    ) {
      $0.send(1)
      $0.send(2)
    }
    expectEndedStreamPassesNothingUpstream(after: [], { $0.tryRemoveDuplicates { $0 == $1 } }) {
      $0.send(completion: .finished)
    }
  }

  @Test func cancelReachesUpstreamOnceAndEndsTheStream() {
    expectCancelEndsTheStream(named: "TryRemoveDuplicates", sending: 1) { $0.tryRemoveDuplicates { $0 == $1 } }
  }

  @Test func whatComesBeforeTheSubscriptionIsHandledAsInCombine() {
    expectEarlyEvents(.cancelEnds, named: "TryRemoveDuplicates") { $0.tryRemoveDuplicates { $0 == $1 } }
  }

  @Test func aValueBeforeTheSubscriptionStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless, sendsSubscription: false)
      upstream.tryRemoveDuplicates { $0 == $1 }.subscribe(TestSubscriber<Int, any Error>(initialDemand: .none))
      upstream.send(1)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Subscriber.receive(_:) before receive(subscription:)"))
  }
}

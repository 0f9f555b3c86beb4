import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct OutputTests {
  // MARK: Ranges

  @Test func operatorsTranslateToCountableRanges() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    #expect(upstream.output(at: 89).range == 89..<90)
    #expect(upstream.output(in: 4..<5).range == 4..<5)
    #expect(upstream.output(in: 4...5).range == 4..<6)
    #expect(upstream.output(in: ..<8).range == 0..<8)
    #expect(upstream.output(in: ...8).range == 0..<9)
    #expect(upstream.output(in: 8...).range == 8..<Int.max)
  }

  // MARK: Values and completion

  @Test func outputAtPublishesTheIndexedValueThenFinishesOnTheNext() {
    let upstream = HandDrivenUpstream<String, Never>(conduct: .careless)
    let output: Publishers.Output<HandDrivenUpstream<String, Never>> = upstream.output(at: 1)
    let subscriber = TestSubscriber<String, Never>()
    output.subscribe(subscriber)

    upstream.send("a")
    upstream.send("b")
    #expect(subscriber.events == [.subscription, .value("b")])
    #expect(upstream.cancelCount == 0)

    // As in Combine, the range is known to be over when the next element arrives.
    upstream.send("c")
    #expect(subscriber.events == [.subscription, .value("b"), .completion(.finished)])
    #expect(upstream.cancelCount == 1)

    upstream.send("d")
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value("b"), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func outputInPublishesTheRangeFromASynchronousSequence() {
    let numbers = sequence(first: 0) { $0 < 99 ? $0 + 1 : nil }
    let subscriber = TestSubscriber<Int, Never>()
    numbers.publisher.output(in: 3..<6).subscribe(subscriber)

    #expect(subscriber.events == [.subscription, .value(3), .value(4), .value(5), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func anUpstreamCompletionBeforeTheRangeEndsPassesThrough() {
    let upstream = HandDrivenUpstream<Int, ReducingError>(conduct: .careless)
    let subscriber = TestSubscriber<Int, ReducingError>()
    upstream.output(in: 1...5).subscribe(subscriber)

    upstream.send(0)
    upstream.send(1)
    upstream.send(completion: .failure(.upstream))
    upstream.send(2)

    #expect(subscriber.events == [.subscription, .value(1), .completion(.failure(.upstream))])
    #expect(upstream.cancelCount == 0)
  }

  @Test func anEmptyRangeFinishesOnTheFirstElementInIt() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>()
    upstream.output(in: 2..<2).subscribe(subscriber)

    upstream.send(0)
    upstream.send(1)
    #expect(subscriber.events == [.subscription])
    upstream.send(2)

    #expect(subscriber.events == [.subscription, .completion(.finished)])
    #expect(upstream.cancelCount == 1)
  }

  // MARK: Demand

  @Test func demandGoesStraightUpstreamAndSkippedValuesAreAskedForAgain() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none, demandPerValue: .max(3))
    upstream.output(in: 2..<4).subscribe(subscriber)
    #expect(upstream.requests.isEmpty)

    subscriber.request(.max(2))
    #expect(upstream.requests == [.max(2)])

    #expect(upstream.send(0) == .max(1))
    #expect(upstream.send(1) == .max(1))
    #expect(upstream.send(2) == .max(3))
    #expect(upstream.send(3) == .max(3))
    #expect(upstream.send(4) == .none)

    #expect(subscriber.events == [.subscription, .value(2), .value(3), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func requestsOneAtATimeFromASequence() {
    let numbers = sequence(first: 0) { $0 < 99 ? $0 + 1 : nil }
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    numbers.publisher.output(in: 10..<13).subscribe(subscriber)
    #expect(subscriber.values == [10])

    subscriber.request(.max(1))
    #expect(subscriber.values == [10, 11])
    subscriber.request(.max(1))
    #expect(subscriber.values == [10, 11, 12])
    #expect(subscriber.completion == nil)

    subscriber.request(.max(1))
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  // MARK: Cancellation

  @Test func cancelGoesStraightUpstream() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.output(in: 0..<10).subscribe(subscriber)

    subject.send(0)
    subscriber.cancel()
    subject.send(1)
    subject.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value(0)])
  }

  @Test func cancelReachesAHandWrittenUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>()
    upstream.output(at: 3).subscribe(subscriber)

    subscriber.cancel()

    #expect(upstream.cancelCount == 1)
    #expect(upstream.requests == [.unlimited])
  }

  @Test func aSecondSubscriptionIsCancelled() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>()
    upstream.output(at: 0).subscribe(subscriber)
    let second = SpySubscription()

    upstream.sendSubscription(second)

    #expect(second.cancelCount == 1)
    #expect(subscriber.subscriptionCount == 1)
    subscriber.cancel()
  }

  // MARK: Equatable and preconditions

  @Test func isEquatableWhenItsUpstreamIs() {
    #expect(Publishers.Output(upstream: Just(1), range: 0..<2) == Publishers.Output(upstream: Just(1), range: 0..<2))
    #expect(Publishers.Output(upstream: Just(1), range: 0..<2) != Publishers.Output(upstream: Just(1), range: 0..<3))
    #expect(Publishers.Output(upstream: Just(1), range: 0..<2) != Publishers.Output(upstream: Just(2), range: 0..<2))
  }

  @Test func aNegativeIndexStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = PassthroughSubject<Int, Never>().output(at: -1)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("output(at: -1)"))
  }

  @Test func aRangeStartingBelowZeroStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = PassthroughSubject<Int, Never>().output(in: (-1)...)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("must not start below 0"))
  }

  // MARK: Its own subscription, as Combine's

  @Test func theSubscriberGetsTheOperatorsOwnSubscription() {
    expectOwnSubscription(named: "Output", mirrorLabels: []) { $0.output(in: 0..<3) }
  }

  @Test func afterTheStreamEndsRequestsAndCancelsStayHere() {
    expectEndedStreamPassesNothingUpstream(after: [.cancelled], { $0.output(at: 0) }) {
      $0.send(1)
      $0.send(2)
    }
    expectEndedStreamPassesNothingUpstream(after: [], { $0.output(at: 0) }) { $0.send(completion: .finished) }
  }

  @Test func cancelReachesUpstreamOnceAndEndsTheStream() {
    expectCancelEndsTheStream(named: "Output", sending: 1) { $0.output(in: 0..<3) }
  }

  @Test func whatComesBeforeTheSubscriptionIsHandledAsInCombine() {
    expectEarlyEvents(.ignored, named: "Output") { $0.output(in: 0..<3) }
  }

  @Test func valuesBeforeTheSubscriptionAreCountedAfterAnIgnoredCompletion() {
    // As in Combine: the completion is ignored, and values are counted and passed on.
    let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, ParityError>(demandPerValue: .max(42))
    upstream.output(in: 1..<3).subscribe(subscriber)
    upstream.send(completion: .failure(ParityError()))
    #expect(upstream.send(1) == .max(1))
    #expect(upstream.send(2) == .max(42))
    #expect(upstream.send(3) == .max(42))
    // The range is over, but as in Combine the stream ends only once the subscription is there.
    #expect(upstream.send(4) == .none)
    #expect(subscriber.history == ["value(2)", "value(3)"])
    upstream.sendSubscription()
    #expect(upstream.send(5) == .none)
    #expect(upstream.events == [.cancelled])
    #expect(subscriber.history == ["value(2)", "value(3)", "subscription(Output)", "finished"])
    subscriber.forget()
    upstream.detach()
  }

  @Test func requestingNonePassesUpstream() {
    let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless)
    let subscriber = RecordingSubscriber<Int, ParityError>()
    upstream.output(in: 0..<3).subscribe(subscriber)
    subscriber.subscription?.request(.none)
    #expect(upstream.events == [.requested(.none)])
    subscriber.forget()
    upstream.detach()
  }

  @Test func aCancelFreesASubscriberThatKeepsItsSubscription() {
    expectCancelFreesASubscriberThatKeepsItsSubscription { subject, _ in subject.output(in: 0..<5) }
  }
}

/// output(in:)'s subscription takes no lock: cancels and requests from other threads race values.
@Suite(.leakChecked)
struct OutputStressTests {
  @Test func cancelRacingValuesStopsDelivery() {
    expectCancelRacingValuesStopsDelivery { subject, subscriber in subject.output(in: 0...).subscribe(subscriber) }
  }

  @Test func requestAndCancelFromInsideReceiveStopAtTheCancel() {
    expectRequestAndCancelFromInsideReceiveStopsAtTheCancel { subject, subscriber in
      subject.output(in: 0...).subscribe(subscriber)
    }
  }
}

import Conduit
import ConduitTesting
import Testing

private struct RemoveDuplicatesTestError: Error, Equatable {}

@Suite(.leakChecked)
struct RemoveDuplicatesTests {
  @Test func dropsConsecutiveDuplicates() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    let publisher: Publishers.RemoveDuplicates<PassthroughSubject<Int, Never>> = subject.removeDuplicates()
    publisher.subscribe(subscriber)
    for value in [1, 1, 2, 2, 2, 3, 1] { subject.send(value) }
    subject.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3), .value(1), .completion(.finished)])
  }

  @Test func comparesWithTheElementReceivedLast() {
    // The predicate sees the previous element received, not the previous one published.
    var pairs: [[Int]] = []
    let subscriber = TestSubscriber<Int, Never>()
    [1, 2, 3, 10].publisher.eraseToAnyPublisher()
      .removeDuplicates { previous, current in
        pairs.append([previous, current])
        return current - previous == 1
      }
      .subscribe(subscriber)
    #expect(pairs == [[1, 2], [2, 3], [3, 10]])
    #expect(subscriber.values == [1, 10])
  }

  @Test func forwardsFailure() {
    let subject = PassthroughSubject<Int, RemoveDuplicatesTestError>()
    let subscriber = TestSubscriber<Int, RemoveDuplicatesTestError>()
    subject.removeDuplicates().subscribe(subscriber)
    subject.send(1)
    subject.send(1)
    subject.send(completion: .failure(RemoveDuplicatesTestError()))
    #expect(subscriber.events == [.subscription, .value(1), .completion(.failure(RemoveDuplicatesTestError()))])
  }

  @Test func droppedDuplicateIsReplacedByUpstreamDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    [1, 1, 1, 2, 2, 3, 4].publisher.eraseToAnyPublisher().removeDuplicates().subscribe(subscriber)
    #expect(subscriber.values == [1, 2])
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == nil)
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2, 3, 4])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelStopsValues() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.removeDuplicates().subscribe(subscriber)
    subject.send(1)
    subscriber.cancel()
    subject.send(2)
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  @Test func reentrantSendIsComparedInOrder() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { value in
      if value == 1 {
        subject.send(1)
        subject.send(2)
      }
    }
    subject.removeDuplicates().subscribe(subscriber)
    subject.send(1)
    subject.send(2)
    subject.send(3)
    subject.send(completion: .finished)
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func eachSubscriptionHasItsOwnMemory() {
    let publisher = [1, 1, 2].publisher.eraseToAnyPublisher().removeDuplicates()
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    publisher.subscribe(first)
    publisher.subscribe(second)
    #expect(first.values == [1, 2])
    #expect(second.values == [1, 2])
  }

  // MARK: Its own subscription, as Combine's

  @Test func theSubscriberGetsTheOperatorsOwnSubscription() {
    expectOwnSubscription(named: "RemoveDuplicates", mirrorLabels: ["downstream", "last"]) { $0.removeDuplicates() }
  }

  @Test func afterTheStreamEndsRequestsAndCancelsStayHere() {
    expectEndedStreamPassesNothingUpstream(after: [], { $0.removeDuplicates() }) {
      $0.send(completion: .finished)
    }
  }

  @Test func cancelReachesUpstreamOnceAndEndsTheStream() {
    expectCancelEndsTheStream(named: "RemoveDuplicates", sending: 1) { $0.removeDuplicates() }
  }

  @Test func whatComesBeforeTheSubscriptionIsHandledAsInCombine() {
    expectEarlyEvents(.cancelEnds, named: "RemoveDuplicates") { $0.removeDuplicates() }
  }

  @Test func aValueBeforeTheSubscriptionStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless, sendsSubscription: false)
      upstream.removeDuplicates().subscribe(TestSubscriber<Int, ParityError>(initialDemand: .none))
      upstream.send(1)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Subscriber.receive(_:) before receive(subscription:)"))
  }

  @Test func aCompletionBeforeTheSubscriptionStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless, sendsSubscription: false)
      upstream.removeDuplicates().subscribe(TestSubscriber<Int, ParityError>(initialDemand: .none))
      upstream.send(completion: .finished)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Subscriber.receive(completion:) before receive(subscription:)"))
  }

  @Test func aRequestBeforeTheSubscriptionStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless, sendsSubscription: false)
      upstream.removeDuplicates().subscribe(TestSubscriber<Int, ParityError>(initialDemand: .none))
      upstream.subscriberAsSubscription?.request(.max(1))
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Subscription.request(_:) before the subscriber received the subscription"))
  }

  @Test func requestingNoneStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = HandDrivenUpstream<Int, ParityError>(conduct: .careless)
      let subscriber = TestSubscriber<Int, ParityError>(initialDemand: .none)
      upstream.removeDuplicates().subscribe(subscriber)
      subscriber.subscription?.request(.none)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Subscription.request(.none)"))
  }

  @Test func aCancelFreesASubscriberThatKeepsItsSubscription() {
    expectCancelFreesASubscriberThatKeepsItsSubscription { subject, captured in
      subject.removeDuplicates { _, _ in withExtendedLifetime(captured) { false } }
    }
  }
}

/// removeDuplicates' subscription takes no lock: cancels and requests from other threads race
/// values.
@Suite(.leakChecked)
struct RemoveDuplicatesStressTests {
  @Test func cancelRacingValuesStopsDelivery() {
    expectCancelRacingValuesStopsDelivery { subject, subscriber in subject.removeDuplicates().subscribe(subscriber) }
  }

  @Test func requestAndCancelFromInsideReceiveStopAtTheCancel() {
    expectRequestAndCancelFromInsideReceiveStopsAtTheCancel { subject, subscriber in
      subject.removeDuplicates().subscribe(subscriber)
    }
  }
}

import Conduit
import ConduitTesting
import Dispatch
import Testing

private struct DropUntilOutputTestError: Error, Equatable {}

@Suite(.leakChecked)
struct DropUntilOutputTests {
  @Test func dropsUntilTheOtherPublisherEmits() {
    let values = PassthroughSubject<Int, Never>()
    let start = PassthroughSubject<String, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    values.drop(untilOutputFrom: start).subscribe(subscriber)
    values.send(1)
    values.send(2)
    start.send("go")
    values.send(3)
    values.send(4)
    values.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(3), .value(4), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func theTriggerIsAskedForOneValueAndThenCancelled() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let trigger = HandDrivenPublisher<String, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
    #expect(trigger.link?.requests == [.max(1)])
    #expect(trigger.send("go") == .none)
    #expect(trigger.link?.isCancelled == true)
    upstream.send(1)
    #expect(subscriber.values == [1])
    upstream.send(completion: .finished)
  }

  @Test func subscribesDownstreamThenTheOtherPublisherThenUpstream() {
    var order: [String] = []
    let upstream = HandDrivenPublisher<Int, Never>()
    let trigger = HandDrivenPublisher<Void, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.handleEvents(receiveSubscription: { _ in order.append("upstream") })
      .drop(untilOutputFrom: trigger.handleEvents(receiveSubscription: { _ in order.append("other") }))
      .subscribe(subscriber)
    #expect(order == ["other", "upstream"])
    #expect(subscriber.subscriptionCount == 1)
    subscriber.cancel()
  }

  @Test func droppedValuesSpendTheDemandTheyAnswered() {
    // As in Combine: requests go straight upstream, and values dropped before the trigger are
    // not asked for again.
    let upstream = HandDrivenPublisher<Int, Never>()
    let trigger = PassthroughSubject<Void, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
    upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
    #expect(upstream.link?.requests == [.max(3)])
    #expect(upstream.send(1) == .none)
    trigger.send()
    #expect(upstream.send(2) == .none)
    #expect(upstream.link?.requests == [.max(3)])
    #expect(subscriber.values == [2])
    upstream.send(completion: .finished)
  }

  @Test func neverDeliversBeyondDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    (1...5).publisher.drop(untilOutputFrom: Just(())).subscribe(subscriber)
    #expect(subscriber.values == [1, 2])
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2, 3])
    subscriber.cancel()
    #expect(subscriber.violations.isEmpty)
  }

  @Test func theOtherPublisherFinishingFirstFinishesTheStream() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let trigger = PassthroughSubject<Void, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
    upstream.send(1)
    trigger.send(completion: .finished)
    #expect(upstream.link?.isCancelled == true)
    upstream.send(2)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func theOtherPublisherFailingFirstFailsTheStream() {
    let values = PassthroughSubject<Int, DropUntilOutputTestError>()
    let trigger = PassthroughSubject<Void, DropUntilOutputTestError>()
    let subscriber = TestSubscriber<Int, DropUntilOutputTestError>()
    values.drop(untilOutputFrom: trigger).subscribe(subscriber)
    trigger.send(completion: .failure(DropUntilOutputTestError()))
    values.send(1)
    #expect(subscriber.events == [.subscription, .completion(.failure(DropUntilOutputTestError()))])
  }

  @Test func theOtherPublisherEndingAfterItsValueChangesNothing() {
    let values = PassthroughSubject<Int, DropUntilOutputTestError>()
    let trigger = HandDrivenPublisher<Void, DropUntilOutputTestError>()
    let subscriber = TestSubscriber<Int, DropUntilOutputTestError>()
    values.drop(untilOutputFrom: trigger).subscribe(subscriber)
    trigger.send(())
    trigger.link?.send(completion: .failure(DropUntilOutputTestError()))
    values.send(1)
    values.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func upstreamCompletionPassesThroughAndCancelsTheTrigger() {
    let upstream = HandDrivenPublisher<Int, DropUntilOutputTestError>()
    let trigger = HandDrivenPublisher<Void, DropUntilOutputTestError>()
    let subscriber = TestSubscriber<Int, DropUntilOutputTestError>()
    upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
    upstream.send(completion: .failure(DropUntilOutputTestError()))
    #expect(trigger.link?.isCancelled == true)
    #expect(subscriber.events == [.subscription, .completion(.failure(DropUntilOutputTestError()))])
  }

  @Test func cancelReachesBothPublishers() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let trigger = HandDrivenPublisher<Void, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    #expect(trigger.link?.isCancelled == true)
    trigger.send(())
    upstream.send(1)
    #expect(subscriber.events == [.subscription])
  }

  @Test func reentrantRequestFromInsideAValue() {
    let values = PassthroughSubject<Int, Never>()
    let start = PassthroughSubject<Void, Never>()
    // The dropped 1 spends one of the two.
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    subscriber.onValue { value in
      if value < 4 { subscriber.request(.max(1)) }
    }
    values.drop(untilOutputFrom: start).subscribe(subscriber)
    values.send(1)
    start.send()
    values.send(2)
    values.send(3)
    values.send(4)
    values.send(5)
    #expect(subscriber.values == [2, 3, 4])
    subscriber.cancel()
    #expect(subscriber.violations.isEmpty)
  }

  @Test func exposesItsPartsAndIsEquatable() {
    let dropped = Publishers.DropUntilOutput(upstream: Just(1), other: Just(2))
    #expect(dropped.upstream == Just(1))
    #expect(dropped.other == Just(2))
    #expect(dropped == Just(1).drop(untilOutputFrom: Just(2)))
  }
}

@Suite(.leakChecked)
struct DropUntilOutputStressTests {
  @Test func completionsRacingOnTwoThreadsDeliverOneCompletion() {
    for _ in 0..<200 {
      let values = PassthroughSubject<Int, Never>()
      let start = PassthroughSubject<Void, Never>()
      let subscriber = TestSubscriber<Int, Never>()
      values.drop(untilOutputFrom: start).subscribe(subscriber)
      let group = DispatchGroup()
      DispatchQueue.global().async(group: group) {
        for value in 0..<100 { values.send(value) }
        values.send(completion: .finished)
      }
      DispatchQueue.global().async(group: group) {
        start.send(completion: .finished)
      }
      group.wait()
      #expect(subscriber.values.isEmpty)
      #expect(subscriber.completion == .finished)
      #expect(subscriber.violations.isEmpty)
    }
  }

  @Test func cancelRacingValuesOnAnotherThread() {
    for _ in 0..<200 {
      let values = PassthroughSubject<Int, Never>()
      let subscriber = TestSubscriber<Int, Never>()
      values.drop(untilOutputFrom: Just(())).subscribe(subscriber)
      let group = DispatchGroup()
      DispatchQueue.global().async(group: group) {
        for value in 0..<200 { values.send(value) }
      }
      DispatchQueue.global().async(group: group) {
        subscriber.cancel()
      }
      group.wait()
      #expect(subscriber.values == Array(0..<subscriber.values.count))
      #expect(subscriber.violations.isEmpty)
    }
  }
}

import Conduit
import ConduitTesting
import Testing

private struct DropTestError: Error, Equatable {}

@Suite(.leakChecked)
struct DropTests {
  @Test func dropsTheFirstValues() {
    let subscriber = TestSubscriber<Int, Never>()
    [1, 2, 3, 4].publisher.eraseToAnyPublisher().dropFirst(2).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(3), .value(4), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func dropsOneByDefaultAndNoneForZero() {
    let one = TestSubscriber<Int, Never>()
    let none = TestSubscriber<Int, Never>()
    [1, 2, 3].publisher.eraseToAnyPublisher().dropFirst().subscribe(one)
    [1, 2, 3].publisher.eraseToAnyPublisher().dropFirst(0).subscribe(none)
    #expect(one.values == [2, 3])
    #expect(none.values == [1, 2, 3])
  }

  @Test func finishesWhenUpstreamHasFewerValues() {
    let subscriber = TestSubscriber<Int, Never>()
    [1, 2].publisher.eraseToAnyPublisher().dropFirst(5).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func forwardsFailure() {
    let upstream = HandDrivenUpstream<Int, DropTestError>()
    let subscriber = TestSubscriber<Int, DropTestError>()
    upstream.dropFirst().subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .failure(DropTestError()))
    #expect(subscriber.events == [.subscription, .value(2), .completion(.failure(DropTestError()))])
  }

  // As in Combine: the upstream is asked at once for the subscriber's demand plus the elements
  // to drop, and a dropped element asks for nothing more.
  @Test func asksUpstreamForTheDroppedElementsWithTheFirstDemand() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(42), demandPerValue: .max(3))
    upstream.dropFirst(2).subscribe(subscriber)
    #expect(upstream.link?.requests == [.max(44)])
    #expect(upstream.send(1) == .none)
    #expect(upstream.send(2) == .none)
    #expect(upstream.send(3) == .max(3))
    #expect(subscriber.values == [3])
    subscriber.request(.max(2))
    #expect(upstream.link?.requests == [.max(44), .max(2)])
    upstream.send(completion: .finished)
    #expect(subscriber.violations.isEmpty)
  }

  // Combine asks for the elements to drop even before the subscriber asks for anything.
  @Test func asksUpstreamForTheDroppedElementsEvenWithoutDemand() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.dropFirst(3).subscribe(subscriber)
    #expect(upstream.link?.requests == [.max(3)])
    upstream.send(1)
    upstream.send(2)
    upstream.send(3)
    #expect(subscriber.values.isEmpty)
    subscriber.request(.max(1))
    #expect(upstream.link?.requests == [.max(3), .max(1)])
    upstream.send(4)
    #expect(subscriber.values == [4])
    subscriber.cancel()
  }

  @Test func dropFirstZeroAsksForExactlyWhatTheSubscriberAsks() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.dropFirst(0).subscribe(subscriber)
    #expect(upstream.link?.requests == [])
    subscriber.request(.max(2))
    #expect(upstream.link?.requests == [.max(2)])
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
  }

  @Test func describesItsSubscriptionAsDrop() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.dropFirst().subscribe(subscriber)
    #expect((subscriber.subscription as? any CustomStringConvertible)?.description == "Drop")
    subscriber.cancel()
  }

  @Test func neverDeliversBeyondDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    (1...10).publisher.eraseToAnyPublisher().dropFirst(3).subscribe(subscriber)
    #expect(subscriber.values == [4, 5])
    #expect(subscriber.completion == nil)
    subscriber.request(.max(1))
    #expect(subscriber.values == [4, 5, 6])
    subscriber.cancel()
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelReachesUpstreamAndStopsValues() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.dropFirst().subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    upstream.send(3)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(2)])
  }

  @Test func oneValueAtATimeDoesNotGrowTheStack() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (1...100_000).publisher.eraseToAnyPublisher().dropFirst(50_000).subscribe(subscriber)
    #expect(subscriber.values.count == 50_000)
    #expect(subscriber.values.first == 50_001)
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  // As in Combine (DropTests.testDropNegativeNumberOfItemsCrash): a negative count stops the
  // process when the publisher is subscribed to, not when it is made.
  @Test func aNegativeCountStopsTheProcessOnSubscribe() async {
    let made = Publishers.Drop(upstream: Just(1), count: -1)
    #expect(made.count == -1)
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let drop = PassthroughSubject<Int, Never>().dropFirst(-1)
      drop.subscribe(TestSubscriber<Int, Never>())
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("dropFirst(-1)"))
  }

  // As in Combine (DropTests.testDropReceiveValueBeforeSubscription): the subscriber already has
  // its subscription, so a value before upstream's passes on, after the ones to drop.
  @Test func aValueBeforeTheSubscriptionPassesOnAfterTheDroppedOnes() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let recorder = RecordingSubscriber<Int, Never>(demandPerValue: .max(42))
    upstream.dropFirst(1).subscribe(recorder)

    #expect(upstream.send(1) == .none)
    #expect(upstream.send(2) == .max(42))
    #expect(recorder.history == ["subscription(Drop)", "value(2)"])
    recorder.forget()
    upstream.detach()
  }

  // Unlike Combine (DropTests.testDropCancelBeforeSubscription), which leaves it alone and keeps
  // the subscriber attached, a subscription arriving after the subscriber cancelled is
  // cancelled: the subscriber has its subscription before upstream answers, so this is a cancel
  // Combine would lose, leaving upstream running.
  @Test func aSubscriptionAfterAnEarlyCancelIsCancelled() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(5))
    upstream.dropFirst(2).subscribe(recorder)
    recorder.subscription?.cancel()

    upstream.sendSubscription()
    #expect(upstream.events == [.cancelled])
    for value in 1...4 { upstream.send(value) }
    upstream.send(completion: .finished)
    #expect(recorder.history == ["subscription(Drop)"])
    recorder.forget()
    upstream.detach()
  }

  // DropTests.testDropReflection.
  @Test func describesItselfAsCombineDoes() throws {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.dropFirst(42).subscribe(subscriber)
    let subscription = try #require(subscriber.subscription)

    #expect(String(describing: subscription) == "Drop")
    #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Drop")
    let mirror = try #require((subscription as? any CustomReflectable)?.customMirror)
    #expect(mirror.children.isEmpty)
    #expect(!(subscription is any CustomDebugStringConvertible))
    subscriber.cancel()
  }

  @Test func exposesItsPartsAndIsEquatable() {
    let drop = Publishers.Drop(upstream: Just(1), count: 2)
    #expect(drop.upstream == Just(1))
    #expect(drop.count == 2)
    #expect(Publishers.Drop(upstream: Just(1), count: 2) == Publishers.Drop(upstream: Just(1), count: 2))
    #expect(Publishers.Drop(upstream: Just(1), count: 2) != Publishers.Drop(upstream: Just(1), count: 3))
  }
}

@Suite(.leakChecked)
struct DropStressTests {
  @Test func cancelRacingValuesStopsDelivery() {
    expectCancelRacingValuesStopsDelivery { subject, subscriber in subject.dropFirst(3).subscribe(subscriber) }
  }

  @Test func requestAndCancelFromInsideReceiveStopAtTheCancel() {
    expectRequestAndCancelFromInsideReceiveStopsAtTheCancel { subject, subscriber in
      subject.dropFirst(3).subscribe(subscriber)
    }
  }
}

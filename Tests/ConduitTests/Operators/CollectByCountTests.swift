import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct CollectByCountTests {
  @Test func publishesEachArrayAsItFillsAndTheRemainderOnFinish() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let collect: Publishers.CollectByCount<HandDrivenUpstream<Int, Never>> = upstream.collect(2)
    let subscriber = TestSubscriber<[Int], Never>()
    collect.subscribe(subscriber)

    upstream.send(1)
    #expect(subscriber.values.isEmpty)
    upstream.send(2)
    #expect(subscriber.values == [[1, 2]])
    upstream.send(3)
    upstream.send(4)
    upstream.send(5)
    #expect(subscriber.values == [[1, 2], [3, 4]])
    upstream.send(completion: .finished)

    #expect(
      subscriber.events == [
        .subscription, .value([1, 2]), .value([3, 4]), .value([5]), .completion(.finished),
      ])
    #expect(collect.count == 2)
  }

  @Test func finishesWithoutAnEmptyRemainder() {
    let subscriber = TestSubscriber<[Int], Never>()
    (1...4).publisher.collect(2).subscribe(subscriber)

    #expect(subscriber.events == [.subscription, .value([1, 2]), .value([3, 4]), .completion(.finished)])
  }

  @Test func countsDemandInArrays() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<[Int], Never>(initialDemand: .none, demandPerValue: .max(2))
    upstream.collect(3).subscribe(subscriber)
    #expect(upstream.requests.isEmpty)

    subscriber.request(.max(2))
    #expect(upstream.requests == [.max(6)])

    #expect(upstream.send(1) == .none)
    #expect(upstream.send(2) == .none)
    // The subscriber answers each array with two more: six more elements.
    #expect(upstream.send(3) == .max(6))
    #expect(subscriber.values == [[1, 2, 3]])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func unlimitedDemandStaysUnlimited() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<[Int], Never>()
    upstream.collect(1_000).subscribe(subscriber)

    #expect(upstream.requests == [.unlimited])
    subscriber.cancel()
  }

  @Test func aFailureDropsThePartialBuffer() {
    let upstream = HandDrivenUpstream<Int, ReducingError>(conduct: .careless)
    let subscriber = TestSubscriber<[Int], ReducingError>()
    upstream.collect(3).subscribe(subscriber)

    upstream.send(1)
    upstream.send(2)
    upstream.send(3)
    upstream.send(4)
    upstream.send(completion: .failure(.upstream))

    #expect(subscriber.events == [.subscription, .value([1, 2, 3]), .completion(.failure(.upstream))])
  }

  @Test func ignoresEverythingAfterTheCompletion() {
    let upstream = HandDrivenUpstream<Int, ReducingError>(conduct: .careless)
    let subscriber = TestSubscriber<[Int], ReducingError>()
    upstream.collect(1).subscribe(subscriber)

    upstream.send(completion: .finished)
    #expect(upstream.send(1) == .none)
    upstream.send(completion: .failure(.upstream))

    #expect(subscriber.events == [.subscription, .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelCancelsUpstreamAndSilences() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<[Int], Never>()
    upstream.collect(2).subscribe(subscriber)
    let subscription = subscriber.subscription

    upstream.send(1)
    subscriber.cancel()
    #expect(upstream.cancelCount == 1)

    upstream.send(2)
    upstream.send(3)
    upstream.send(completion: .finished)
    subscription?.request(.max(1))

    #expect(subscriber.events == [.subscription])
    #expect(upstream.requests == [.unlimited])
    #expect(upstream.cancelCount == 1)
  }

  @Test func cancelFromInsideTheRemainderSuppressesTheCompletion() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<[Int], Never>()
    subscriber.onValue { [unowned subscriber] _ in subscriber.cancel() }
    upstream.collect(2).subscribe(subscriber)

    upstream.send(1)
    upstream.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value([1])])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aSecondSubscriptionIsCancelled() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<[Int], Never>()
    upstream.collect(2).subscribe(subscriber)
    let second = SpySubscription()

    upstream.sendSubscription(second)

    #expect(second.cancelCount == 1)
    #expect(subscriber.subscriptionCount == 1)
    subscriber.cancel()
  }

  @Test func requestsOneAtATimeFromASequence() {
    let subscriber = TestSubscriber<[Int], Never>(initialDemand: .max(1))
    (1...7).publisher.collect(3).subscribe(subscriber)
    #expect(subscriber.values == [[1, 2, 3]])

    subscriber.request(.max(1))
    #expect(subscriber.values == [[1, 2, 3], [4, 5, 6]])
    #expect(subscriber.completion == nil)

    subscriber.request(.max(1))
    #expect(subscriber.values == [[1, 2, 3], [4, 5, 6], [7]])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  // As in Combine (CollectByCountTests.testCollectByCountReceiveValueBeforeSubscription and
  // testCollectByCountReceiveCompletionBeforeSubscription): a value before upstream's
  // subscription is ignored, a completion passes on.
  @Test func beforeTheSubscriptionAValueIsIgnoredAndACompletionPassesOn() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = TestSubscriber<[Int], Never>()
    upstream.collect(2).subscribe(subscriber)

    #expect(upstream.send(1) == .none)
    upstream.sendSubscription()
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value([2]), .completion(.finished)])

    let early = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let earlySubscriber = TestSubscriber<[Int], Never>()
    early.collect(2).subscribe(earlySubscriber)
    early.send(completion: .finished)
    early.send(completion: .finished)
    #expect(earlySubscriber.events == [.completion(.finished)])
    early.sendSubscription()
    #expect(early.cancelCount == 1)
  }

  // As in Combine (CollectByCountTests.testCollectByCountCancelBeforeSubscription): a cancel
  // before upstream's subscription changes nothing; the subscription arriving later is taken.
  @Test func aCancelBeforeTheSubscriptionChangesNothing() throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = TestSubscriber<[Int], Never>(initialDemand: .none)
    upstream.collect(2).subscribe(subscriber)

    try #require(upstream.subscriberAsSubscription).cancel()
    upstream.sendSubscription()
    #expect(upstream.requests.isEmpty)
    #expect(upstream.cancelCount == 0)
    subscriber.request(.max(1))
    #expect(upstream.requests == [.max(2)])
    upstream.send(1)
    upstream.send(2)
    #expect(subscriber.events == [.subscription, .value([1, 2])])
    subscriber.cancel()
  }

  // CollectByCountTests.testCollectByCountReflection.
  @Test func describesItselfAsCombineDoes() throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = TestSubscriber<[Int], Never>()
    upstream.collect(53).subscribe(subscriber)
    let inner = try #require(upstream.subscriberAsSubscription)

    #expect(String(describing: inner) == "CollectByCount")
    #expect((inner as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "CollectByCount")
    #expect(!(inner is any CustomDebugStringConvertible))
    func children() throws -> [String] {
      let mirror = try #require((inner as? any CustomReflectable)?.customMirror)
      #expect(mirror.children.map(\.label) == ["downstream", "upstreamSubscription", "buffer", "count"])
      return mirror.children.map { String(describing: $0.value) }
    }
    let waiting = try children()
    #expect(waiting[0].contains("TestSubscriber"))
    #expect(waiting[1] == "nil")
    #expect(waiting[2...] == ["[]", "53"])

    upstream.sendSubscription()
    #expect(try children()[2] == "[]")
    upstream.send(1)
    upstream.send(2)
    #expect(try children()[2] == "[1, 2]")
    subscriber.cancel()
    #expect(try children()[0...1] == ["nil", "nil"])
  }

  @Test func isEquatableWhenItsUpstreamIs() {
    #expect(Just(1).collect(2) == Just(1).collect(2))
    #expect(Just(1).collect(2) != Just(1).collect(3))
    #expect(Just(1).collect(2) != Just(2).collect(2))
  }

  @Test func collectZeroStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Just(1).collect(0)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("collect(0): the count must be at least 1"))
  }

  @Test func requestingNoneStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let subscriber = TestSubscriber<[Int], Never>(initialDemand: .none)
      PassthroughSubject<Int, Never>().collect(2).subscribe(subscriber)
      subscriber.request(.none)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("request(.none)"))
  }

  /// collect(4): a request for 2 arrays asks upstream for 8 values; a value that fills the
  /// buffer answers the subscriber's demand times 4, the others `.none`; the rest goes out
  /// on finish.
  /// Evidence (OpenCombine): CollectByCountTests.swift `testBasicBehavior` (`[.requested(.max(8))]`,
  /// `send(4) == .max(12)`, `.value([9, 10])` before `.completion(.finished)`).
  @Test func collectByCountCountsDemandInArrays() {
    let upstream = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
    let recorder = RecordingSubscriber<[Int], ParityFailure>(initialDemand: .max(2), demandPerValue: .max(3))
    upstream.collect(4).subscribe(recorder)
    #expect(upstream.subscriberDescription == "CollectByCount")
    #expect(upstream.events == [.requested(.max(8))])
    for value in 1...3 { #expect(upstream.send(value) == .none) }
    #expect(upstream.send(4) == .max(12))
    for value in 5...7 { #expect(upstream.send(value) == .none) }
    #expect(upstream.send(8) == .max(12))
    #expect(upstream.send(9) == .none)
    #expect(upstream.send(10) == .none)
    upstream.send(completion: .finished)
    #expect(
      recorder.history == [
        "subscription(CollectByCount)", "value([1, 2, 3, 4])", "value([5, 6, 7, 8])", "value([9, 10])", "finished",
      ])
    #expect(upstream.events == [.requested(.max(8))])
    release(upstream, recorder)
  }

  /// collect(4) failing drops the partial buffer; later values answer `.none`; after a cancel a
  /// new subscription is cancelled and further requests and cancels stay put.
  /// Evidence (OpenCombine): CollectByCountTests.swift `testFailureWithNonEmptyBuffer`,
  /// `testCancelAlreadyCancelled` (`subscription2.history == [.cancelled]`, upstream
  /// `[.requested(.unlimited), .cancelled]`).
  @Test func collectByCountFailureAndCancel() {
    let upstream = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
    let recorder = RecordingSubscriber<[Int], ParityFailure>(initialDemand: .unlimited, demandPerValue: .max(3))
    upstream.collect(4).subscribe(recorder)
    #expect(upstream.send(1) == .none)
    #expect(upstream.send(2) == .none)
    upstream.send(completion: .failure(.oops))
    #expect(upstream.send(5) == .none)
    recorder.subscription?.request(.max(2))
    #expect(recorder.history == ["subscription(CollectByCount)", "failure(oops)"])
    #expect(upstream.events == [.requested(.unlimited)])
    release(upstream, recorder)

    let cancelled = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
    let cancelledRecorder = RecordingSubscriber<[Int], ParityFailure>(
      initialDemand: .unlimited, demandPerValue: .max(3))
    cancelled.collect(4).subscribe(cancelledRecorder)
    cancelledRecorder.subscription?.cancel()
    let second = SpySubscription()
    cancelled.sendSubscription(second)
    #expect(second.events == [.cancelled])
    cancelledRecorder.subscription?.request(.max(2))
    cancelledRecorder.subscription?.cancel()
    #expect(cancelled.events == [.requested(.unlimited), .cancelled])
    release(cancelled, cancelledRecorder)
  }
}

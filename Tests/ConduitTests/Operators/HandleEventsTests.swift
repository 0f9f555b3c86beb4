import Conduit
import ConduitTesting
import Synchronization
import Testing

private struct HandleEventsTestError: Error, Equatable {}

/// Records every closure call of `handleEvents` in `log`.
private func logEvents<Upstream: Publisher>(
  of upstream: Upstream, into log: EventLog
) -> Publishers.HandleEvents<Upstream> {
  upstream.handleEvents(
    receiveSubscription: { log.append("subscription \($0)") },
    receiveOutput: { log.append("output \($0)") },
    receiveCompletion: { log.append("completion \($0)") },
    receiveCancel: { log.append("cancel") },
    receiveRequest: { log.append("request \($0)") })
}

private final class EventLog {
  private(set) var entries: [String] = []
  func append(_ entry: String) { entries.append(entry) }
}

@Suite(.leakChecked)
struct HandleEventsTests {
  @Test func callsEachClosureAtItsMoment() {
    let log = EventLog()
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: .max(1))
    logEvents(of: upstream, into: log).subscribe(subscriber)
    #expect(log.entries == ["subscription HandDriven", "request max(2)"])
    #expect(upstream.link?.requests == [.max(2)])
    upstream.send(1)
    subscriber.request(.max(3))
    upstream.send(completion: .finished)
    #expect(
      log.entries == [
        "subscription HandDriven", "request max(2)", "output 1", "request max(1)", "request max(3)",
        "completion finished",
      ])
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    #expect(upstream.link?.requests == [.max(2), .max(3)])
  }

  @Test func closuresRunBeforeTheSubscriberSeesTheEvent() {
    let log = EventLog()
    let upstream = HandDrivenUpstream<Int, HandleEventsTestError>()
    let subscriber = TestSubscriber<Int, HandleEventsTestError>()
    subscriber.onValue { log.append("subscriber \($0)") }
    upstream.handleEvents(receiveOutput: { log.append("output \($0)") }).subscribe(subscriber)
    upstream.send(1)
    upstream.send(completion: .failure(HandleEventsTestError()))
    #expect(log.entries == ["output 1", "subscriber 1"])
    #expect(subscriber.completion == .failure(HandleEventsTestError()))
  }

  @Test func reportsFailure() {
    let log = EventLog()
    let upstream = HandDrivenUpstream<Int, HandleEventsTestError>()
    let subscriber = TestSubscriber<Int, HandleEventsTestError>()
    logEvents(of: upstream, into: log).subscribe(subscriber)
    upstream.send(completion: .failure(HandleEventsTestError()))
    #expect(log.entries.last?.hasPrefix("completion failure(") == true)
    #expect(subscriber.events == [.subscription, .completion(.failure(HandleEventsTestError()))])
  }

  @Test func cancelRunsTheClosureThenCancelsUpstream() {
    let log = EventLog()
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    logEvents(of: upstream, into: log).subscribe(subscriber)
    upstream.send(1)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    upstream.send(2)
    upstream.send(completion: .finished)
    subscriber.cancel()
    #expect(log.entries == ["subscription HandDriven", "request unlimited", "output 1", "cancel"])
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  @Test func neverDeliversBeyondDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    (1...5).publisher.handleEvents().subscribe(subscriber)
    #expect(subscriber.values == [1])
    subscriber.request(.max(2))
    #expect(subscriber.values == [1, 2, 3])
    subscriber.cancel()
    #expect(subscriber.violations.isEmpty)
  }

  @Test func releasesTheClosuresWhenTheStreamEnds() {
    for ending in ["finish", "cancel"] {
      weak var weakCaptured: CapturedProbe?
      let upstream = HandDrivenUpstream<Int, Never>()
      let subscriber = TestSubscriber<Int, Never>()
      do {
        let captured = CapturedProbe()
        weakCaptured = captured
        upstream.handleEvents(receiveOutput: { _ in withExtendedLifetime(captured) {} }).subscribe(subscriber)
      }
      upstream.send(1)
      #expect(weakCaptured != nil)
      if ending == "finish" {
        upstream.send(completion: .finished)
      } else {
        subscriber.cancel()
      }
      #expect(weakCaptured == nil, "after \(ending)")
    }
  }

  @Test func reentrantRequestFromInsideAValue() {
    let log = EventLog()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subscriber.onValue { value in
      if value < 3 { subscriber.request(.max(1)) }
    }
    (1...5).publisher.handleEvents(receiveRequest: { log.append("request \($0)") }).subscribe(subscriber)
    #expect(subscriber.values == [1, 2, 3])
    #expect(log.entries == ["request max(1)", "request max(1)", "request max(1)"])
    subscriber.cancel()
    #expect(subscriber.violations.isEmpty)
  }

  @Test func exposesItsClosures() {
    var handled = Publishers.HandleEvents(upstream: Just(1), receiveOutput: { _ in }, receiveRequest: nil)
    #expect(handled.upstream == Just(1))
    #expect(handled.receiveOutput != nil)
    #expect(handled.receiveRequest == nil)
    handled.receiveRequest = { _ in }
    #expect(handled.receiveRequest != nil)
  }

  /// `receiveRequest` sees each request the subscriber makes and each positive demand its
  /// `receive(_:)` returns (not `.none`), after the value has gone downstream. After a cancel,
  /// later requests and cancels are neither passed on nor reported. (Matches.)
  /// Evidence (OpenCombine): Tests/OpenCombineTests/PublisherTests/HandleEventsTests.swift `testBasicBehavior`,
  /// `testCancelAlreadyCancelled`.
  @Test func handleEventsReportsRequestsAndReturnedDemand() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    var log: [String] = []
    let subscriber = RecordingSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: .max(5))
    upstream
      .handleEvents(
        receiveSubscription: { _ in log.append("subscription") },
        receiveOutput: { log.append("output \($0)") },
        receiveCompletion: { _ in log.append("completion") },
        receiveCancel: { log.append("cancel") },
        receiveRequest: { log.append("request \($0)") }
      )
      .subscribe(subscriber)
    #expect(subscriber.subscription.map { "\($0)" } == "HandleEvents")
    #expect(upstream.send(1) == .max(5))
    subscriber.subscription?.cancel()
    subscriber.subscription?.request(.max(1))
    subscriber.subscription?.cancel()
    #expect(upstream.events == [.requested(.max(2)), .cancelled])
    #expect(log == ["subscription", "request max(2)", "output 1", "request max(5)", "cancel"])
    upstream.detach()
  }
}

/// Cancellation racing values on other threads (DESIGN.md §2.4, §2.5, §2.7): the closures and the
/// downstream see nothing after the value in flight when cancel returned, `receiveCancel` runs
/// once, and the closures are released once the last call has returned.
@Suite(.leakChecked, .serialized)
struct HandleEventsStressTests {
  /// Counts the closures' calls from any thread.
  private final class Calls: Sendable {
    let outputs = Atomic<Int>(0)
    let cancels = Atomic<Int>(0)
    let requests = Atomic<Int>(0)
    let completions = Atomic<Int>(0)
  }

  /// Subscribes `subscriber` through a `handleEvents` whose closures count into `calls` and
  /// capture an object, returned weakly so that a test can see when the closures are released.
  private func subscribe(
    _ subscriber: StressSubscriber, to subject: PassthroughSubject<Int, Never>, counting calls: Calls
  ) -> () -> AnyObject? {
    let captured = CapturedProbe()
    subject.handleEvents(
      receiveOutput: { _ in withExtendedLifetime(captured) { _ = calls.outputs.wrappingAdd(1, ordering: .relaxed) } },
      receiveCompletion: { _ in calls.completions.wrappingAdd(1, ordering: .relaxed) },
      receiveCancel: { calls.cancels.wrappingAdd(1, ordering: .relaxed) },
      receiveRequest: { _ in calls.requests.wrappingAdd(1, ordering: .relaxed) }
    )
    .subscribe(subscriber)
    return { [weak captured] in captured }
  }

  @Test func cancelsFromTwoThreadsWhileTwoSendStopDeliveryAndReleaseTheClosures() {
    for _ in 0..<200 {
      let subject = PassthroughSubject<Int, Never>()
      let subscriber = StressSubscriber()
      let calls = Calls()
      let captured = subscribe(subscriber, to: subject, counting: calls)
      let sendersDone = Atomic<Int>(0)
      runOnThreads(4) { thread in
        if thread < 2 {
          for index in 0..<500 { subject.send(index) }
          sendersDone.wrappingAdd(1, ordering: .releasing)
          return
        }
        while subscriber.count < 100 && sendersDone.load(ordering: .acquiring) < 2 {}
        subscriber.cancelAndRecord()
      }
      subject.send(completion: .finished)

      #expect(subscriber.count <= subscriber.countWhenCancelReturned + 1)
      #expect(calls.outputs.load(ordering: .relaxed) == subscriber.count)
      #expect(calls.cancels.load(ordering: .relaxed) == 1)
      #expect(calls.requests.load(ordering: .relaxed) == 1)
      #expect(calls.completions.load(ordering: .relaxed) == 0)
      #expect(subscriber.overlaps == 0)
      #expect(!subscriber.completed)
      #expect(captured() == nil)
    }
  }

  @Test func requestingAndCancellingFromInsideReceiveWhileTwoSendStopsAtTheCancel() {
    for _ in 0..<200 {
      let subject = PassthroughSubject<Int, Never>()
      let subscriber = StressSubscriber(demand: .max(1), cancelAt: 150)
      let calls = Calls()
      let captured = subscribe(subscriber, to: subject, counting: calls)
      runOnThreads(2) { _ in
        for index in 0..<1_000 { subject.send(index) }
      }
      // Subjects drop what comes without demand: a slow run may not reach the count that cancels.
      subscriber.cancelAndRecord()

      #expect(subscriber.count <= 150)
      #expect(calls.outputs.load(ordering: .relaxed) == subscriber.count)
      #expect(calls.cancels.load(ordering: .relaxed) == 1)
      // The first request, then one from inside each value but the one that cancelled.
      #expect(calls.requests.load(ordering: .relaxed) == min(subscriber.count, 149) + 1)
      #expect(subscriber.overlaps == 0)
      #expect(!subscriber.completed)
      #expect(captured() == nil)
    }
  }

  @Test func completionRacingCancelEndsTheStreamOnce() {
    for _ in 0..<500 {
      let subject = PassthroughSubject<Int, Never>()
      let subscriber = StressSubscriber()
      let calls = Calls()
      let captured = subscribe(subscriber, to: subject, counting: calls)
      runOnThreads(2) { thread in
        if thread == 0 {
          for index in 0..<50 { subject.send(index) }
          subject.send(completion: .finished)
        } else {
          subscriber.cancelAndRecord()
        }
      }

      let cancels = calls.cancels.load(ordering: .relaxed)
      let completions = calls.completions.load(ordering: .relaxed)
      #expect(cancels + completions == 1)
      #expect(subscriber.completed == (completions == 1))
      #expect(calls.outputs.load(ordering: .relaxed) == subscriber.count)
      #expect(subscriber.overlaps == 0)
      #expect(captured() == nil)
    }
  }

  // MARK: As Combine (OpenCombine's HandleEventsTests.swift)

  // `testBasicBehavior`, `testAccumulatesDemandUntilSubscriptionArrives`: any demand, `.none`
  // too, is reported and passed on.
  @Test func aRequestForNothingIsReportedAndPassedOn() {
    let log = EventLog()
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    logEvents(of: upstream, into: log).subscribe(subscriber)
    subscriber.subscription?.request(.max(2))
    subscriber.subscription?.request(.none)
    #expect(upstream.requests == [.max(2), .none])
    #expect(Array(log.entries.dropFirst()) == ["request max(2)", "request max(0)"])
    subscriber.cancel()
  }

  // `testHandleEventsRequestBeforeSubscription`, `testHandleEventsCancelBeforeSubscription`: a
  // request or a cancel before the subscription only runs its closure; the subscription, when it
  // comes, is taken and handed on.
  @Test func aRequestOrCancelBeforeTheSubscriptionOnlyRunsItsClosure() throws {
    let log = EventLog()
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    logEvents(of: upstream, into: log).subscribe(subscriber)
    let early = try #require(upstream.subscriberAsSubscription)
    early.request(.max(1))
    early.cancel()
    #expect(log.entries == ["request max(1)", "cancel"])
    upstream.sendSubscription()
    #expect(log.entries.count == 3)
    #expect(upstream.requests.isEmpty)
    #expect(upstream.cancelCount == 0)
    #expect(subscriber.events == [.subscription])
    subscriber.cancel()
    #expect(upstream.cancelCount == 1)
  }

  // `testHandleEventsReceiveValueBeforeSubscription`,
  // `testHandleEventsReceiveCompletionBeforeSubscription`: a value or a completion that comes
  // before the subscription passes through, with its closures.
  @Test func aValueOrCompletionBeforeTheSubscriptionPassesThrough() {
    let log = EventLog()
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, Never>(demandPerValue: .max(42))
    logEvents(of: upstream, into: log).subscribe(subscriber)
    #expect(upstream.send(144) == .max(42))
    upstream.send(completion: .finished)
    #expect(subscriber.history == ["value(144)", "finished"])
    #expect(log.entries == ["output 144", "request max(42)", "completion finished"])
    upstream.sendSubscription()
    #expect(upstream.cancelCount == 1)
    #expect(log.entries.count == 3)
  }

  // `testHandleEventsReceiveSubscriptionTwice`: every subscription that arrives runs the
  // closure, a rejected one too, until the stream ends.
  @Test func aRejectedSubscriptionRunsTheClosureToo() {
    let log = EventLog()
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    logEvents(of: upstream, into: log).subscribe(subscriber)
    let second = SpySubscription()
    upstream.sendSubscription(second)
    #expect(second.cancelCount == 1)
    #expect(log.entries.count == 2)
    subscriber.cancel()
    let third = SpySubscription()
    upstream.sendSubscription(third)
    #expect(third.cancelCount == 1)
    #expect(log.entries.count == 3)
    #expect(log.entries.last == "cancel")
  }

  // `testHandleEventsReflection`.
  @Test func reflectsAsCombineDoes() throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    upstream.handleEvents().subscribe(TestSubscriber<Int, Never>())
    let inner = try #require(upstream.subscriberObject)
    #expect((inner as? any CustomStringConvertible)?.description == "HandleEvents")
    #expect((inner as? any CustomReflectable)?.customMirror.children.isEmpty == true)
    #expect((inner as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "HandleEvents")
    upstream.send(completion: .finished)
  }
}

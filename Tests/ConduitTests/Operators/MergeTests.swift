import ConduitTesting
import Dispatch
import Synchronization
import Testing

@testable import Conduit

private struct MergeError: Error, Equatable {}

@Suite(.leakChecked)
struct MergeTests {
  @Test func interleavesValuesAsTheyArrive() {
    let letters = PassthroughSubject<String, Never>()
    let more = PassthroughSubject<String, Never>()
    let subscriber = TestSubscriber<String, Never>()
    Publishers.Merge(letters, more).subscribe(subscriber)

    letters.send("a")
    more.send("b")
    more.send("c")
    letters.send("d")
    letters.send(completion: .finished)
    more.send(completion: .finished)

    #expect(subscriber.values == ["a", "b", "c", "d"])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func synchronousUpstreamsAreDeliveredOneAfterTheOther() {
    let subscriber = TestSubscriber<Int, Never>()
    [1, 2, 3].publisher.merge(with: [4, 5, 6].publisher).subscribe(subscriber)

    #expect(subscriber.events == [.subscription] + (1...6).map { .value($0) } + [.completion(.finished)])
  }

  @Test func finishesOnlyWhenEveryUpstreamHasFinished() {
    let first = PassthroughSubject<Int, MergeError>()
    let second = PassthroughSubject<Int, MergeError>()
    let subscriber = TestSubscriber<Int, MergeError>()
    Publishers.Merge(first, second).subscribe(subscriber)

    first.send(completion: .finished)
    second.send(1)
    #expect(subscriber.completion == nil)
    second.send(completion: .finished)

    #expect(subscriber.values == [1])
    #expect(subscriber.completion == .finished)
  }

  // Combine cancels the failed upstream too (OpenCombine MergeTests.swift
  // `testBCancelledAfterAFailed`).
  @Test func failsAtTheFirstFailureAndCancelsEveryUpstream() {
    let first = CombiningProbe<Int, MergeError>()
    let second = CombiningProbe<Int, MergeError>()
    let third = CombiningProbe<Int, MergeError>()
    let subscriber = TestSubscriber<Int, MergeError>()
    first.merge(with: second, third).subscribe(subscriber)

    first.send(1)
    second.send(completion: .failure(MergeError()))
    first.send(2)

    #expect(subscriber.values == [1])
    #expect(subscriber.completion == .failure(MergeError()))
    #expect(first.cancelled)
    #expect(third.cancelled)
    #expect(second.cancelled)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func asksEachUpstreamForOneValueAtATimeUntilTheDownstreamIsUnlimited() {
    let first = CombiningProbe<Int, Never>()
    let second = CombiningProbe<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(5))
    Publishers.Merge(first, second).subscribe(subscriber)
    #expect(first.requests == [.max(1)])
    #expect(second.requests == [.max(1)])

    first.send(1)
    #expect(first.requests == [.max(1), .max(1)])
    subscriber.request(.unlimited)

    #expect(first.requests == [.max(1), .max(1), .unlimited])
    #expect(second.requests == [.max(1), .unlimited])
    first.send(2)
    #expect(first.requests.count == 3)
    subscriber.cancel()
  }

  @Test func keepsAValueTheDownstreamHasNoDemandForUntilItAsks() {
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    Publishers.Merge(first, second).subscribe(subscriber)

    first.send(1)
    second.send(2)
    first.send(3)
    second.send(4)  // `second` was asked for one value only: its subject drops this one.
    #expect(subscriber.values == [1])

    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2])
    subscriber.request(.max(2))
    #expect(subscriber.values == [1, 2, 3])
    second.send(5)
    #expect(subscriber.values == [1, 2, 3, 5])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func deliversWaitingValuesBeforeTheCompletion() {
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Publishers.Merge(first, second).subscribe(subscriber)

    first.send(1)
    second.send(2)
    first.send(completion: .finished)
    second.send(completion: .finished)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1)])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func dropsWaitingValuesWhenAnUpstreamFails() {
    let first = PassthroughSubject<Int, MergeError>()
    let second = PassthroughSubject<Int, MergeError>()
    let subscriber = TestSubscriber<Int, MergeError>(initialDemand: .none)
    Publishers.Merge(first, second).subscribe(subscriber)

    first.send(1)
    second.send(completion: .failure(MergeError()))

    #expect(subscriber.events == [.subscription, .completion(.failure(MergeError()))])
  }

  @Test func cancellingCancelsEveryUpstreamAndStopsDelivery() {
    let first = CombiningProbe<Int, Never>()
    let second = CombiningProbe<Int, Never>()
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    first.merge(with: second, subject).subscribe(subscriber)

    subject.send(1)
    let subscription = subscriber.subscription
    subscription?.cancel()
    subscription?.cancel()
    subject.send(2)
    first.send(3)

    #expect(first.cancelled)
    #expect(second.cancelled)
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == nil)
  }

  @Test func aValueSentFromInsideReceiveIsDeliveredAfterTheCurrentOne() {
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { value in
      if value == 1 {
        second.send(10)
        first.send(2)
      }
    }
    Publishers.Merge(first, second).subscribe(subscriber)

    first.send(1)
    second.send(20)

    #expect(subscriber.values == [1, 10, 2, 20])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func cancellingFromInsideReceiveStopsAtOnce() {
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { _ in
      second.send(10)
      subscriber.cancel()
    }
    Publishers.Merge(first, second).subscribe(subscriber)

    first.send(1)
    second.send(2)

    #expect(subscriber.values == [1])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func oneValueAtATimeOverLongSynchronousUpstreamsDoesNotGrowTheStack() {
    let count = 100_000
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (0..<count).publisher.merge(with: (count..<2 * count).publisher).subscribe(subscriber)

    let values = subscriber.values
    #expect(values.count == 2 * count)
    #expect(values.filter { $0 < count } == Array(0..<count))
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func mergesUpToEightPublishers() {
    let three = TestSubscriber<Int, Never>()
    let eight = TestSubscriber<Int, Never>()
    let merge3: Publishers.Merge3<Just<Int>, Just<Int>, Just<Int>> = Just(1).merge(with: Just(2), Just(3))
    merge3.subscribe(three)
    let merge8:
      Publishers.Merge8<Just<Int>, Just<Int>, Just<Int>, Just<Int>, Just<Int>, Just<Int>, Just<Int>, Just<Int>> =
        Just(1).merge(with: Just(2), Just(3), Just(4), Just(5), Just(6), Just(7), Just(8))
    merge8.subscribe(eight)

    #expect(three.values == [1, 2, 3])
    #expect(eight.values == Array(1...8))
    #expect(eight.completion == .finished)
    #expect(merge8.h == Just(8))
  }

  @Test func everyArityMergesItsUpstreamsInOrder() {
    func values<P: Publisher>(_ publisher: P) -> [Int] where P.Output == Int, P.Failure == Never {
      let subscriber = TestSubscriber<Int, Never>()
      publisher.subscribe(subscriber)
      #expect(subscriber.completion == .finished)
      return subscriber.values
    }
    let j = Just<Int>.init
    #expect(values(Just(1).merge(with: j(2), j(3), j(4))) == [1, 2, 3, 4])
    #expect(values(Just(1).merge(with: j(2), j(3), j(4), j(5))) == [1, 2, 3, 4, 5])
    #expect(values(Just(1).merge(with: j(2), j(3), j(4), j(5), j(6))) == Array(1...6))
    #expect(values(Just(1).merge(with: j(2), j(3), j(4), j(5), j(6), j(7))) == Array(1...7))
  }

  @Test func mergeTypesFlattenWhenMergedFurther() {
    let pair = Publishers.Merge(Just(1), Just(2))
    let three: Publishers.Merge3<Just<Int>, Just<Int>, Just<Int>> = pair.merge(with: Just(3))
    let four: Publishers.Merge4<Just<Int>, Just<Int>, Just<Int>, Just<Int>> = three.merge(with: Just(4))
    let six: Publishers.Merge6<Just<Int>, Just<Int>, Just<Int>, Just<Int>, Just<Int>, Just<Int>> =
      four.merge(with: Just(5), Just(6))
    let seven = six.merge(with: Just(7))
    let eight:
      Publishers.Merge8<Just<Int>, Just<Int>, Just<Int>, Just<Int>, Just<Int>, Just<Int>, Just<Int>, Just<Int>> =
        seven.merge(with: Just(8))
    let fromPair = pair.merge(with: Just(3), Just(4), Just(5), Just(6), Just(7), Just(8))
    let fromFive = Publishers.Merge5(Just(1), Just(2), Just(3), Just(4), Just(5)).merge(with: Just(6), Just(7), Just(8))

    #expect(eight == fromPair)
    #expect(eight == fromFive)
    let subscriber = TestSubscriber<Int, Never>()
    eight.subscribe(subscriber)
    #expect(subscriber.values == Array(1...8))
  }

  @Test func mergingWithTheSameTypeMakesAMergeMany() {
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let merged: Publishers.MergeMany<PassthroughSubject<Int, Never>> = first.merge(with: second)

    #expect(merged.publishers.count == 2)
  }

  @Test func equalWhenTheUpstreamsAreEqual() {
    #expect(Publishers.Merge(Just(1), Just(2)) == Publishers.Merge(Just(1), Just(2)))
    #expect(Publishers.Merge(Just(1), Just(2)) != Publishers.Merge(Just(1), Just(3)))
    #expect(Publishers.Merge3(Just(1), Just(2), Just(3)) != Publishers.Merge3(Just(0), Just(2), Just(3)))
    #expect(
      Publishers.Merge4(Just(1), Just(2), Just(3), Just(4)) == Publishers.Merge4(Just(1), Just(2), Just(3), Just(4)))
  }

  /// A failure cancels every upstream, the one that failed included, at every arity.
  /// Evidence (OpenCombine): MergeTests.swift `testBCancelledAfterAFailed` (child1 history
  /// `[.requested(.unlimited), .cancelled]`, child2 `[.requested(.unlimited), .cancelled]`).
  @Test func mergeFailureCancelsEveryUpstreamIncludingTheFailedOne() {
    for arity in 2...10 {
      for failing in [0, arity - 1] {
        let (children, merged) = mergeOf(arity)
        let subscriber = TestSubscriber<Int, ParityFailure>()
        merged.subscribe(subscriber)
        children[failing].send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription, .completion(.failure(.oops))], "arity \(arity)")
        for child in children {
          #expect(child.events == [.requested(.unlimited), .cancelled], "arity \(arity) failing \(failing)")
          child.detach()
        }
      }
    }
  }

  /// One upstream finishing, with or without having sent, neither completes the merge nor
  /// cancels anything. Evidence (OpenCombine): MergeTests.swift
  /// `testImmediateFinishWhenOneChildFinishesWithNoSurplus` (history `[.subscription("Merge")]`,
  /// every child `[.requested(.unlimited)]`, arities 2…10) and
  /// `testDelayedFinishWhenOneChildFinishesWithSurplus`.
  @Test func mergeKeepsGoingWhenOneUpstreamFinishes() {
    for arity in 2...10 {
      for finishing in 0..<arity {
        let (children, merged) = mergeOf(arity)
        let subscriber = RecordingSubscriber<Int, ParityFailure>(initialDemand: .unlimited)
        merged.subscribe(subscriber)
        #expect(children[finishing].send(666) == .none)
        children[finishing].send(completion: .finished)
        #expect(subscriber.history == ["subscription(Merge)", "value(666)"], "arity \(arity)")
        #expect(subscriber.subscription.map { "\($0)" } == "Merge", "arity \(arity)")
        for child in children where child !== children[finishing] {
          child.send(completion: .finished)
        }
        #expect(subscriber.history == ["subscription(Merge)", "value(666)", "finished"], "arity \(arity)")
        for child in children {
          #expect(child.events == [.requested(.unlimited)], "arity \(arity)")
          child.detach()
        }
      }
    }
  }

  /// Demand requested inside `receive(subscription:)` is what each upstream is first asked
  /// for when it is unlimited; demand added from inside `receive(_:)` is returned to the
  /// sending upstream, or not needed when unlimited.
  /// Evidence (OpenCombine): MergeTests.swift `testDownstreamDemandRequestedWhileSendingValue` (unlimited:
  /// `send(1) == .max(0)`, histories `[.requested(.unlimited)]`; `.max(1)` and `.max(10)`:
  /// `send(1) == .max(1)`, histories `[.requested(.max(1))]`).
  @Test func mergeDemandRequestedDuringSubscriptionAndDuringAValue() {
    for initial in [Subscribers.Demand.unlimited, .max(1), .max(10)] {
      let (children, merged) = mergeOf(2)
      let subscriber = TestSubscriber<Int, ParityFailure>(initialDemand: initial)
      subscriber.onValue { _ in subscriber.request(.max(666)) }
      merged.subscribe(subscriber)
      let answer: Subscribers.Demand = initial == .unlimited ? .none : .max(1)
      #expect(children[0].send(1) == answer, "initial \(initial)")
      #expect(children[1].send(1) == answer, "initial \(initial)")
      let first: Subscribers.Demand = initial == .unlimited ? .unlimited : .max(1)
      #expect(children[0].events == [.requested(first)], "initial \(initial)")
      #expect(children[1].events == [.requested(first)], "initial \(initial)")
      #expect(subscriber.values == [1, 1])
      subscriber.cancel()
      for child in children { child.detach() }
    }
  }

  /// A second subscription from one upstream is cancelled, even when it is the same object as
  /// the first; cancelling the merge then cancels the first again.
  /// Evidence (OpenCombine): MergeTests.swift `testMergeReceiveSubscriptionTwice` (second `[.cancelled]`;
  /// first `[.requested(.max(1)), .cancelled]`, then `[.requested(.max(1)), .cancelled,
  /// .cancelled]` after the downstream cancels).
  @Test func mergeCancelsASecondSubscription() {
    let first = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
    let other = PassthroughSubject<Int, ParityFailure>()
    let subscriber = RecordingSubscriber<Int, ParityFailure>(initialDemand: .none)
    first.merge(with: other).subscribe(subscriber)
    #expect(first.events == [.requested(.max(1))])
    let second = SpySubscription()
    first.sendSubscription(second)
    #expect(second.events == [.cancelled])
    first.sendSubscription()
    #expect(first.events == [.requested(.max(1)), .cancelled])
    subscriber.subscription?.cancel()
    #expect(first.events == [.requested(.max(1)), .cancelled, .cancelled])
    first.detach()
  }

  /// After a failure, or after the merge finished, nothing more reaches the subscriber.
  /// Evidence (OpenCombine): MergeTests.swift `testValueAfterFailed`, `testFinishAfterFailed`,
  /// `testFailedAfterFinished`, `testFailedAfterFailed`, `testFinishAfterFinished`,
  /// `testAValueAfterAChildFinishedWithoutSurplus`.
  @Test func mergeIsSilentAfterItCompletes() {
    let first = PassthroughSubject<Int, ParityFailure>()
    let second = PassthroughSubject<Int, ParityFailure>()
    let failed = TestSubscriber<Int, ParityFailure>()
    first.merge(with: second).subscribe(failed)
    first.send(100)
    first.send(completion: .failure(.oops))
    second.send(1)
    second.send(completion: .finished)
    #expect(failed.events == [.subscription, .value(100), .completion(.failure(.oops))])

    let third = PassthroughSubject<Int, ParityFailure>()
    let fourth = PassthroughSubject<Int, ParityFailure>()
    let finished = TestSubscriber<Int, ParityFailure>()
    third.merge(with: fourth).subscribe(finished)
    third.send(completion: .finished)
    third.send(200)
    fourth.send(1)
    fourth.send(completion: .finished)
    third.send(completion: .failure(.oops))
    #expect(finished.events == [.subscription, .value(1), .completion(.finished)])
    #expect(failed.violations.isEmpty && finished.violations.isEmpty)
  }

  /// Combine asks each upstream for one value on subscription, even before any downstream
  /// demand, and returns `.max(1)` for a value it delivers.
  /// Evidence (OpenCombine): MergeTests.swift `testChildDemand`, `testMergeReceiveSubscriptionTwice`.
  @Test func mergeAsksEachUpstreamForOneBeforeDemandAndOneMorePerDeliveredValue() {
    let first = HandDrivenUpstream<Int, Never>()
    let second = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    first.merge(with: second).subscribe(subscriber)
    #expect(first.link?.requests == [.max(1)])
    subscriber.request(.max(1))
    #expect(first.link?.requests == [.max(1)])
    #expect(first.send(1) == .max(1))
    #expect(second.send(2) == .none)
    subscriber.request(.unlimited)
    #expect(subscriber.values == [1, 2])
    #expect(first.link?.requests == [.max(1), .unlimited])
    #expect(second.link?.requests == [.max(1), .unlimited])
    subscriber.cancel()
  }
}

/// Contract 3 under load: two upstreams sending on two threads never overlap calls into the
/// downstream, and nothing goes beyond its demand.
@Suite(.leakChecked, .serialized)
struct MergeStressTests {
  private static let valuesPerSender = 20_000

  @Test func twoSendersOnTwoThreadsNeverOverlapAndLoseNothing() {
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    Publishers.Merge(first, second).subscribe(subscriber)

    sendFromTwoThreads(first, second, count: Self.valuesPerSender)
    first.send(completion: .finished)
    second.send(completion: .finished)

    let values = subscriber.values
    #expect(values.count == 2 * Self.valuesPerSender)
    #expect(values.filter { $0 >= 0 } == Array(0..<Self.valuesPerSender))
    #expect(values.filter { $0 < 0 } == (0..<Self.valuesPerSender).map { -1 - $0 })
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func oneValueAtATimeWithTwoSendersStaysWithinDemand() {
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    Publishers.Merge(first, second).subscribe(subscriber)

    sendFromTwoThreads(first, second, count: Self.valuesPerSender)
    subscriber.cancel()

    let values = subscriber.values
    #expect(!values.isEmpty)
    let nonNegative = values.filter { $0 >= 0 }
    #expect(nonNegative == nonNegative.sorted())
    #expect(subscriber.violations.isEmpty)
  }

  /// Two threads request one value at a time while each upstream emits on its own thread: the
  /// downstream gets exactly what it asked for, each upstream's values in order.
  @Test func oneAtATimeRequestsFromTwoThreadsWhileBothUpstreamsEmitAreMetExactly() {
    let count = 20_000
    let first = HandDrivenUpstream<Int, Never>(pumping: 0..<count, emitsOnRequest: false)
    let second = HandDrivenUpstream<Int, Never>(pumping: 1_000_000..<1_000_000 + count, emitsOnRequest: false)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    first.merge(with: second).subscribe(subscriber)
    let requesters = 2
    let perRequester = 2_000
    let granted = requesters * perRequester

    pumpBothWhileRequestingOneAtATime(first, second, requesters: requesters, perRequester: perRequester) {
      subscriber.request(.max(1))
    }

    let values = subscriber.values
    #expect(subscriber.violations.isEmpty)
    #expect(values.count == granted)
    let fromFirst = values.filter { $0 < 1_000_000 }
    let fromSecond = values.filter { $0 >= 1_000_000 }.map { $0 - 1_000_000 }
    #expect(fromFirst == Array(0..<fromFirst.count))
    #expect(fromSecond == Array(0..<fromSecond.count))
    subscriber.cancel()
  }

  /// Each upstream sends its values and finishes on its own thread: every value arrives once,
  /// then a single completion.
  @Test func upstreamsFinishingOnTwoThreadsDeliverEveryValueThenOneCompletion() {
    for _ in 0..<200 {
      let first = HandDrivenUpstream<Int, Never>(pumping: 0..<200, emitsOnRequest: false, finishes: true)
      let second = HandDrivenUpstream<Int, Never>(pumping: 1_000..<1_200, emitsOnRequest: false, finishes: true)
      let subscriber = TestSubscriber<Int, Never>()
      first.merge(with: second).subscribe(subscriber)
      runOnThreads(2) { thread in
        let source = thread == 0 ? first : second
        while !source.isFinished { source.pump() }
      }
      #expect(subscriber.values.sorted() == Array(0..<200) + Array(1_000..<1_200))
      #expect(subscriber.completion == .finished)
      #expect(subscriber.violations.isEmpty)
    }
  }

  /// A cancel from a third thread while two threads send: nothing after the value in flight
  /// when cancel returned, no completion, no overlap, and both subjects forget the merge.
  @Test func cancelFromAThirdThreadWhileTwoSendStopsDeliveryAndCancelsBothUpstreams() {
    for _ in 0..<200 {
      let first = PassthroughSubject<Int, Never>()
      let second = PassthroughSubject<Int, Never>()
      let subscriber = StressSubscriber()
      first.merge(with: second).subscribe(subscriber)
      let sendersDone = Atomic<Int>(0)
      runOnThreads(3) { thread in
        switch thread {
        case 0:
          for index in 0..<500 { first.send(index) }
          sendersDone.wrappingAdd(1, ordering: .releasing)
        case 1:
          for index in 0..<500 { second.send(index) }
          sendersDone.wrappingAdd(1, ordering: .releasing)
        default:
          while subscriber.count < 100 && sendersDone.load(ordering: .acquiring) < 2 {}
          subscriber.cancelAndRecord()
        }
      }
      #expect(subscriber.count <= subscriber.countWhenCancelReturned + 1)
      #expect(subscriber.overlaps == 0)
      #expect(!subscriber.completed)
      #expect(first.core.memberCount == 0)
      #expect(second.core.memberCount == 0)
    }
  }

  /// A subscriber that asks for one value at a time and cancels from inside `receive`, while two
  /// threads send: it never gets past the value it cancelled at, and calls never overlap.
  @Test func requestingAndCancellingFromInsideReceiveWhileTwoThreadsSendStopsAtTheCancel() {
    for _ in 0..<200 {
      let first = PassthroughSubject<Int, Never>()
      let second = PassthroughSubject<Int, Never>()
      let subscriber = StressSubscriber(demand: .max(1), cancelAt: 150)
      first.merge(with: second).subscribe(subscriber)
      runOnThreads(2) { thread in
        let subject = thread == 0 ? first : second
        for index in 0..<1_000 { subject.send(index) }
      }
      #expect(subscriber.count <= 150)
      #expect(subscriber.overlaps == 0)
      #expect(!subscriber.completed)
      // Subjects drop what comes without demand: a slow run may not reach the count that cancels.
      subscriber.cancelAndRecord()
    }
  }

  /// The downstream switches from one value at a time to unlimited while one upstream emits on
  /// its own thread and the other inside each request: every value of both arrives.
  @Test func switchingToUnlimitedWhileOneAtATimeRequestsAndValuesFlowDeliversEverything() {
    for _ in 0..<50 {
      let first = HandDrivenUpstream<Int, Never>(pumping: 0..<2_000, emitsOnRequest: true)
      let second = HandDrivenUpstream<Int, Never>(pumping: 1_000_000..<1_002_000, emitsOnRequest: false)
      let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
      first.merge(with: second).subscribe(subscriber)
      runOnThreads(4) { thread in
        switch thread {
        case 0: while !second.isExhausted { second.pump() }
        case 2:
          while subscriber.values.count < 20 {}
          subscriber.request(.unlimited)
        default: for _ in 0..<200 { subscriber.request(.max(1)) }
        }
      }
      for _ in 0..<3 { second.pump() }
      let values = subscriber.values
      #expect(subscriber.violations.isEmpty)
      #expect(values.count == 4_000)
      #expect(values.filter { $0 < 1_000_000 } == Array(0..<2_000))
      #expect(values.filter { $0 >= 1_000_000 } == Array(1_000_000..<1_002_000))
      subscriber.cancel()
    }
  }

  /// An upstream that subscribes on another thread while requests arrive is asked for its first
  /// value, and every value of both upstreams arrives, then one completion.
  @Test func anUpstreamSubscribingLateWhileRequestsArriveIsAskedAndDeliversEverything() {
    for _ in 0..<300 {
      let first = HandDrivenUpstream<Int, Never>(pumping: 0..<100, emitsOnRequest: true, finishes: true)
      let late = HandDrivenUpstream<Int, Never>(
        pumping: 1_000..<1_100, emitsOnRequest: true, finishes: true, sendsSubscription: false)
      let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
      first.merge(with: late).subscribe(subscriber)
      runOnThreads(3) { thread in
        switch thread {
        case 0: late.sendSubscription()
        default: for _ in 0..<100 { subscriber.request(.max(1)) }
        }
      }
      #expect(subscriber.violations.isEmpty)
      #expect(subscriber.values.sorted() == Array(0..<100) + Array(1_000..<1_100))
      #expect(subscriber.completion == .finished)
    }
  }
}

/// Sends 0, 1, 2 … on `first` and -1, -2, -3 … on `second`, each from its own thread.
func sendFromTwoThreads(_ first: PassthroughSubject<Int, Never>, _ second: PassthroughSubject<Int, Never>, count: Int) {
  let group = DispatchGroup()
  for (subject, sign) in [(first, 1), (second, -1)] {
    DispatchQueue.global().async(group: group) {
      for index in 0..<count { subject.send(sign > 0 ? index : -1 - index) }
    }
  }
  group.wait()
}

/// `arity` hand-driven upstreams and their merge, built with `merge(with:)` up to eight and
/// `MergeMany` beyond, as MergeTests.swift's `getChildrenAndMergeForArity` does.
private func mergeOf(_ arity: Int) -> ([HandDrivenUpstream<Int, ParityFailure>], AnyPublisher<Int, ParityFailure>) {
  let c = (0..<arity).map { _ in HandDrivenUpstream<Int, ParityFailure>(conduct: .careless) }
  let merged: AnyPublisher<Int, ParityFailure>
  switch arity {
  case 2: merged = c[0].merge(with: c[1]).eraseToAnyPublisher()
  case 3: merged = c[0].merge(with: c[1], c[2]).eraseToAnyPublisher()
  case 4: merged = c[0].merge(with: c[1], c[2], c[3]).eraseToAnyPublisher()
  case 5: merged = c[0].merge(with: c[1], c[2], c[3], c[4]).eraseToAnyPublisher()
  case 6: merged = c[0].merge(with: c[1], c[2], c[3], c[4], c[5]).eraseToAnyPublisher()
  case 7: merged = c[0].merge(with: c[1], c[2], c[3], c[4], c[5], c[6]).eraseToAnyPublisher()
  case 8: merged = c[0].merge(with: c[1], c[2], c[3], c[4], c[5], c[6], c[7]).eraseToAnyPublisher()
  default: merged = Publishers.MergeMany(c).eraseToAnyPublisher()
  }
  return (c, merged)
}

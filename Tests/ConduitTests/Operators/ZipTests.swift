import Conduit
import ConduitTesting
import Dispatch
import Synchronization
import Testing

private struct ZipError: Error, Equatable {}

@Suite(.leakChecked)
struct ZipTests {
  @Test func pairsTheOldestUnpairedValueOfEachUpstream() {
    let numbers = PassthroughSubject<Int, Never>()
    let letters = PassthroughSubject<String, Never>()
    let subscriber = TestSubscriber<(Int, String), Never>()
    numbers.zip(letters).subscribe(subscriber)

    numbers.send(1)
    numbers.send(2)
    #expect(subscriber.values.isEmpty)
    letters.send("a")
    letters.send("b")
    letters.send("c")
    numbers.send(3)

    #expect(described(subscriber.values) == [#"(1, "a")"#, #"(2, "b")"#, #"(3, "c")"#])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  // As in Combine: every upstream is subscribed before the subscriber has its subscription, so an
  // upstream that sends as it is subscribed (an autoconnecting multicast) is seen without demand.
  @Test func subscribesEveryUpstreamBeforeHandingDownItsSubscription() {
    let multicast = CurrentValueSubject<Int, Never>(3).multicast(subject: CurrentValueSubject(8)).autoconnect()
    let subscriber = TestSubscriber<Int, Never>()
    multicast.zip([2, 1].publisher).map { $0 * 100 + $1 }.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(302)])
    subscriber.cancel()
  }

  @Test func aCompletionBeforeTheSubscriptionComesRightAfterIt() {
    let subscriber = TestSubscriber<Int, ZipError>(initialDemand: .none)
    Empty<Int, ZipError>().zip(Just(1).setFailureType(to: ZipError.self)).map { $0 + $1 }.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
    let failing = TestSubscriber<Int, ZipError>(initialDemand: .none)
    Just(1).setFailureType(to: ZipError.self).zip(Fail(error: ZipError())).map { $0 + $1 }.subscribe(failing)
    #expect(failing.events == [.subscription, .completion(.failure(ZipError()))])
  }

  @Test func aRequestFromInsideReceiveSubscriptionIsHonouredOnceTheUpstreamsAreAttached() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    [1, 2, 3].publisher.zip([10, 20, 30].publisher).map { $0 + $1 }.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(11), .value(22)])
    subscriber.request(.max(5))
    #expect(subscriber.events == [.subscription, .value(11), .value(22), .value(33), .completion(.finished)])
  }

  @Test func finishesOnceAFinishedUpstreamHasNothingLeftToPair() {
    let numbers = CombiningProbe<Int, Never>()
    let letters = CombiningProbe<String, Never>()
    let subscriber = TestSubscriber<(Int, String), Never>()
    numbers.zip(letters).subscribe(subscriber)

    numbers.send(1)
    numbers.send(2)
    letters.send("a")
    numbers.send(completion: .finished)
    #expect(subscriber.completion == nil)
    letters.send("b")

    #expect(described(subscriber.values) == [#"(1, "a")"#, #"(2, "b")"#])
    #expect(subscriber.completion == .finished)
    #expect(letters.cancelled)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func finishesAtOnceWhenAnUpstreamFinishesWithNothingQueuedLeavingTheSurplusUnpaired() {
    let numbers = CombiningProbe<Int, Never>()
    let letters = CombiningProbe<String, Never>()
    let subscriber = TestSubscriber<(Int, String), Never>()
    numbers.zip(letters).subscribe(subscriber)

    numbers.send(1)
    numbers.send(2)
    letters.send("a")
    letters.send(completion: .finished)

    #expect(described(subscriber.values) == [#"(1, "a")"#])
    #expect(subscriber.completion == .finished)
    #expect(numbers.cancelled)
  }

  @Test func finishesAtOnceWhenAnUpstreamFinishesWithoutPublishing() {
    let subscriber = TestSubscriber<(Int, Int), Never>()
    Empty<Int, Never>().zip(PassthroughSubject<Int, Never>()).subscribe(subscriber)

    #expect(subscriber.values.isEmpty)
    #expect(subscriber.completion == .finished)
  }

  // Combine's zip cancels the upstream that failed too (its combineLatest does not).
  @Test func failsAtTheFirstFailureAndCancelsEveryUpstream() {
    let first = CombiningProbe<Int, ZipError>()
    let second = CombiningProbe<Int, ZipError>()
    let third = CombiningProbe<Int, ZipError>()
    let subscriber = TestSubscriber<(Int, Int, Int), ZipError>()
    first.zip(second, third).subscribe(subscriber)

    first.send(1)
    third.send(completion: .failure(ZipError()))
    second.send(2)

    #expect(subscriber.values.isEmpty)
    #expect(subscriber.completion == .failure(ZipError()))
    #expect(first.cancelled)
    #expect(second.cancelled)
    #expect(third.cancelled)
  }

  // Demand the subscriber adds from inside `receive(_:)` goes back to the upstream whose value
  // completed the tuple, as what its `receive(_:)` returns, and to the others as a request.
  @Test func returnsDemandAddedDuringReceiveToTheUpstreamWhoseValueWentDown() {
    let first = HandDrivenUpstream<Int, Never>()
    let second = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10))
    subscriber.onValue { _ in subscriber.request(.max(666)) }
    first.zip(second) { $0 + $1 }.subscribe(subscriber)

    #expect(first.send(1) == .none)
    #expect(second.send(1) == .max(666))

    #expect(first.link?.requests == [.max(10), .max(666)])
    #expect(second.link?.requests == [.max(10)])
    subscriber.cancel()
  }

  @Test func passesEveryRequestToEveryUpstream() {
    let first = CombiningProbe<Int, Never>()
    let second = CombiningProbe<Int, Never>()
    let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .max(1), demandPerValue: .max(2))
    first.zip(second).subscribe(subscriber)
    #expect(first.requests == [.max(1)])
    #expect(second.requests == [.max(1)])

    first.send(1)
    second.send(1)
    subscriber.request(.max(3))

    // The demand the pair brought back goes to the upstream that completed the pair as the return
    // value of its `receive(_:)`, and to the other as a request.
    #expect(first.requests == [.max(1), .max(2), .max(3)])
    #expect(second.requests == [.max(1), .max(2), .max(3)])
    subscriber.cancel()
  }

  @Test func sendsNothingBeyondDemand() {
    let numbers = PassthroughSubject<Int, Never>()
    let letters = PassthroughSubject<String, Never>()
    let subscriber = TestSubscriber<(Int, String), Never>(initialDemand: .max(1))
    numbers.zip(letters).subscribe(subscriber)

    numbers.send(1)
    numbers.send(2)  // `numbers` was asked for one value: its subject drops this one.
    letters.send("a")
    letters.send("b")
    #expect(described(subscriber.values) == [#"(1, "a")"#])

    subscriber.request(.max(1))
    numbers.send(3)
    letters.send("c")
    #expect(described(subscriber.values) == [#"(1, "a")"#, #"(3, "c")"#])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  // Unlike Combine (ZipTests.testUpstreamExceedsDemand, testIncreasedDemand), which sends a
  // tuple completed by upstreams that sent more than they were asked for even without demand,
  // zip keeps it until the subscriber asks: only upstreams breaking their contract can tell.
  @Test func aTupleFromUpstreamsSendingBeyondTheirDemandWaitsForDemand() {
    let first = HandDrivenUpstream<Int, Never>()
    let second = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    first.zip(second) { $0 + $1 }.subscribe(subscriber)

    #expect(first.send(1) == .none)
    #expect(second.send(1) == .none)
    #expect(subscriber.values.isEmpty)

    subscriber.request(.max(1))
    #expect(subscriber.values == [2])
    first.send(200)
    first.send(300)
    second.send(2)
    second.send(3)
    #expect(subscriber.values == [2])
    subscriber.request(.max(1))
    #expect(subscriber.values == [2, 202])
    subscriber.request(.max(1))
    #expect(subscriber.values == [2, 202, 303])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func cancellingCancelsEveryUpstreamAndStopsDelivery() {
    let first = CombiningProbe<Int, Never>()
    let second = CombiningProbe<Int, Never>()
    let subscriber = TestSubscriber<(Int, Int), Never>()
    first.zip(second).subscribe(subscriber)

    first.send(1)
    subscriber.cancel()
    second.send(1)

    #expect(first.cancelled)
    #expect(second.cancelled)
    #expect(subscriber.values.isEmpty)
    #expect(subscriber.completion == nil)
  }

  @Test func valuesSentFromInsideReceiveArePairedAfterTheCurrentPair() {
    let numbers = PassthroughSubject<Int, Never>()
    let letters = PassthroughSubject<String, Never>()
    let subscriber = TestSubscriber<(Int, String), Never>()
    subscriber.onValue { pair in
      if pair.0 == 1 {
        numbers.send(2)
        letters.send("b")
        numbers.send(3)
      }
    }
    numbers.zip(letters).subscribe(subscriber)

    numbers.send(1)
    letters.send("a")
    letters.send("c")

    #expect(described(subscriber.values) == [#"(1, "a")"#, #"(2, "b")"#, #"(3, "c")"#])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func oneValueAtATimeOverLongSynchronousUpstreamsDoesNotGrowTheStack() {
    let count = 100_000
    let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (0..<count).publisher.zip((0..<count).publisher.map { -$0 }).subscribe(subscriber)

    let values = subscriber.values
    #expect(values.count == count)
    #expect(values.allSatisfy { $0.0 == -$0.1 })
    #expect(values.last?.0 == count - 1)
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func zipsThreeAndFourUpstreams() {
    let three = TestSubscriber<(Int, String, Bool), Never>()
    [1, 2].publisher.zip(["a", "b", "c"].publisher, [true, false].publisher).subscribe(three)
    let four = TestSubscriber<(Int, Int, Int, Int), Never>()
    let zip4: Publishers.Zip4<Just<Int>, Just<Int>, Just<Int>, Just<Int>> = Just(1).zip(Just(2), Just(3), Just(4))
    zip4.subscribe(four)

    #expect(described(three.values) == [#"(1, "a", true)"#, #"(2, "b", false)"#])
    #expect(three.completion == .finished)
    #expect(described(four.values) == ["(1, 2, 3, 4)"])
    #expect(four.completion == .finished)
  }

  @Test func fourSubjectsPairEachValueWithItsOwnUpstream() {
    let a = PassthroughSubject<Int, Never>()
    let b = PassthroughSubject<Int, Never>()
    let c = PassthroughSubject<Int, Never>()
    let d = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<(Int, Int, Int, Int), Never>()
    a.zip(b, c, d).subscribe(subscriber)

    d.send(4)
    b.send(2)
    a.send(1)
    d.send(40)
    #expect(subscriber.values.isEmpty)
    c.send(3)
    c.send(30)
    b.send(20)
    a.send(10)

    #expect(described(subscriber.values) == ["(1, 2, 3, 4)", "(10, 20, 30, 40)"])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func threeSubjectsPairEachValueWithItsOwnUpstream() {
    let a = PassthroughSubject<Int, Never>()
    let b = PassthroughSubject<Int, Never>()
    let c = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<(Int, Int, Int), Never>()
    a.zip(b, c).subscribe(subscriber)

    c.send(3)
    a.send(1)
    b.send(2)
    b.send(20)

    #expect(described(subscriber.values) == ["(1, 2, 3)"])
    subscriber.cancel()
  }

  @Test func transformsEachTuple() {
    let two = TestSubscriber<String, Never>()
    let zipped: Publishers.Map<Publishers.Zip<Publishers.Sequence<[Int], Never>, Just<String>>, String> =
      [1, 2].publisher.zip(Just("a")) { "\($0)\($1)" }
    zipped.subscribe(two)
    let three = TestSubscriber<Int, Never>()
    [1, 2].publisher.zip([10, 20].publisher, [100, 200].publisher) { $0 + $1 + $2 }.subscribe(three)
    let four = TestSubscriber<Int, Never>()
    Just(1).zip(Just(2), Just(3), Just(4)) { $0 * $1 * $2 * $3 }.subscribe(four)

    #expect(two.values == ["1a"])
    #expect(three.values == [111, 222])
    #expect(four.values == [24])
  }

  @Test func equalWhenTheUpstreamsAreEqual() {
    #expect(Publishers.Zip(Just(1), Just(2)) == Publishers.Zip(Just(1), Just(2)))
    #expect(Publishers.Zip(Just(1), Just(2)) != Publishers.Zip(Just(1), Just(3)))
    #expect(Publishers.Zip3(Just(1), Just(2), Just(3)) == Publishers.Zip3(Just(1), Just(2), Just(3)))
    #expect(Publishers.Zip4(Just(1), Just(2), Just(3), Just(4)) != Publishers.Zip4(Just(1), Just(2), Just(3), Just(5)))
  }

  /// Zip with a surplus on the finished side keeps going until that surplus is used up, then
  /// finishes right after the last value. Evidence (OpenCombine): ZipTests.swift
  /// `testZipCompletesOnlyAfterAllChildrenComplete`.
  @Test func zipFinishesOnceTheFinishedSidesSurplusIsUsedUp() {
    let first = HandDrivenUpstream<Int, Never>()
    let second = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    first.zip(second) { $0 + $1 }.subscribe(subscriber)
    first.send(100)
    first.send(200)
    first.send(300)
    second.send(1)
    first.send(completion: .finished)
    #expect(subscriber.values == [101])
    #expect(subscriber.completion == nil)
    second.send(2)
    second.send(3)
    #expect(subscriber.events == [.subscription, .value(101), .value(202), .value(303), .completion(.finished)])
    #expect(second.link?.isCancelled == true)
  }
}

/// Contract 3 under load: two upstreams sending on two threads never overlap calls into the
/// downstream, and pairs stay in order.
@Suite(.leakChecked, .serialized)
struct ZipStressTests {
  @Test func twoSendersOnTwoThreadsPairInOrder() {
    let count = 20_000
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<(Int, Int), Never>()
    first.zip(second).subscribe(subscriber)

    sendFromTwoThreads(first, second, count: count)
    first.send(completion: .finished)

    let values = subscriber.values
    #expect(values.count == count)
    #expect(values.map(\.0) == Array(0..<count))
    #expect(values.allSatisfy { $0.1 == -1 - $0.0 })
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  /// Requests arrive on a third thread while both upstreams send: the owner of the subscription
  /// changes hands between all three, and the downstream still gets no more than it asked for.
  @Test func demandFromAThirdThreadWhileTwoSendStaysWithinItAndInOrder() {
    let count = 5_000
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    // One pair asked for before the senders start: each subject then delivers its sender's first
    // value, so at least one pair forms however late the requesting thread runs.
    let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .max(1))
    first.zip(second).subscribe(subscriber)

    let requests = DispatchGroup()
    DispatchQueue.global().async(group: requests) {
      for _ in 0..<count / 2 { subscriber.request(.max(1)) }
    }
    sendFromTwoThreads(first, second, count: count)
    requests.wait()
    first.send(completion: .finished)
    second.send(completion: .finished)

    // A subject drops what is sent to a subscriber without demand, so how many pairs form depends
    // on the interleaving; their order and the demand do not.
    let values = subscriber.values
    #expect(described(Array(values.prefix(1))) == ["(0, -1)"])
    #expect(values.count <= count / 2 + 1)
    #expect(values.map(\.0) == values.map(\.0).sorted())
    #expect(values.map(\.1) == values.map(\.1).sorted(by: >))
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  /// Two threads request one pair at a time while each upstream emits on its own thread: the
  /// downstream never gets more than it asked for, pairs line up, and no demand is lost.
  @Test func zipWithBoundedDemandFromSeveralThreadsNeverExceedsDemand() {
    let count = 20_000
    let first = HandDrivenUpstream<Int, Never>(pumping: 0..<count, emitsOnRequest: false)
    let second = HandDrivenUpstream<Int, Never>(pumping: 0..<count, emitsOnRequest: false)
    let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .none)
    first.zip(second).subscribe(subscriber)
    let requesters = 2
    let perRequester = 2_000
    let granted = requesters * perRequester

    pumpBothWhileRequestingOneAtATime(first, second, requesters: requesters, perRequester: perRequester) {
      subscriber.request(.max(1))
    }

    let values = subscriber.values
    #expect(subscriber.violations.isEmpty)
    #expect(first.totalRequested == .max(granted))
    #expect(second.totalRequested == .max(granted))
    #expect(values.count == granted)
    #expect(values.enumerated().allSatisfy { $0.element.0 == $0.offset && $0.element.1 == $0.offset })
    subscriber.cancel()
  }

  /// Four threads request one pair at a time from upstreams that emit from inside `request`, on
  /// whichever thread asks: every pair requested arrives, in order.
  @Test func requestsFromFourThreadsToUpstreamsThatEmitWhenAskedPairEverythingInOrder() {
    let count = 20_000
    let first = HandDrivenUpstream<Int, Never>(pumping: 0..<count, emitsOnRequest: true)
    let second = HandDrivenUpstream<Int, Never>(pumping: 0..<count, emitsOnRequest: true)
    let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .none)
    first.zip(second).subscribe(subscriber)
    let requesters = 4
    let perRequester = 1_000
    let granted = requesters * perRequester

    runOnThreads(requesters) { _ in
      for _ in 0..<perRequester { subscriber.request(.max(1)) }
    }

    let values = subscriber.values
    #expect(subscriber.violations.isEmpty)
    #expect(values.count == granted)
    #expect(values.enumerated().allSatisfy { $0.element.0 == $0.offset && $0.element.1 == $0.offset })
    subscriber.cancel()
  }

  /// An upstream that subscribes on another thread while the downstream requests is asked for
  /// everything requested so far, exactly once.
  @Test func anUpstreamSubscribingLateWhileRequestsArriveIsAskedForEverythingRequested() {
    for _ in 0..<300 {
      let first = HandDrivenUpstream<Int, Never>(pumping: 0..<1_000, emitsOnRequest: true)
      let late = HandDrivenUpstream<Int, Never>(pumping: 0..<1_000, emitsOnRequest: true, sendsSubscription: false)
      let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .max(1))
      first.zip(late).subscribe(subscriber)
      runOnThreads(3) { thread in
        if thread == 0 {
          late.sendSubscription()
        } else {
          for _ in 0..<50 { subscriber.request(.max(1)) }
        }
      }
      #expect(late.totalRequested == .max(101))
      #expect(first.totalRequested == .max(101))
      #expect(subscriber.values.count == 101)
      #expect(subscriber.violations.isEmpty)
      subscriber.cancel()
    }
  }

  /// Each upstream sends and finishes on its own thread, one of them with a surplus: every pair
  /// arrives, then a single completion.
  @Test func upstreamsFinishingOnTwoThreadsPairEveryValueThenFinishOnce() {
    for round in 0..<300 {
      let first = HandDrivenUpstream<Int, Never>(pumping: 0..<100, emitsOnRequest: false, finishes: true)
      let second = HandDrivenUpstream<Int, Never>(pumping: 0..<100 + round % 3, emitsOnRequest: false, finishes: true)
      let subscriber = TestSubscriber<(Int, Int), Never>()
      first.zip(second).subscribe(subscriber)
      runOnThreads(2) { thread in
        let source = thread == 0 ? first : second
        while !source.isFinished && !source.isCancelled { source.pump() }
      }
      let values = subscriber.values
      #expect(values.count == 100)
      #expect(values.enumerated().allSatisfy { $0.element.0 == $0.offset && $0.element.1 == $0.offset })
      #expect(subscriber.completion == .finished)
      #expect(subscriber.violations.isEmpty)
    }
  }

  /// A failure sent on one thread while values flow in on two others: pairs stay in order and the
  /// downstream completes exactly once.
  @Test func aFailureOnOneThreadWhileTwoSendEndsThePairingOnce() {
    for _ in 0..<300 {
      let first = PassthroughSubject<Int, ZipError>()
      let second = PassthroughSubject<Int, ZipError>()
      let subscriber = TestSubscriber<(Int, Int), ZipError>()
      first.zip(second).subscribe(subscriber)
      runOnThreads(3) { thread in
        switch thread {
        case 0: for index in 0..<200 { first.send(index) }
        case 1: for index in 0..<200 { second.send(index) }
        default: second.send(completion: .failure(ZipError()))
        }
      }
      let values = subscriber.values
      #expect(subscriber.violations.isEmpty)
      #expect(subscriber.completion == .failure(ZipError()))
      #expect(values.enumerated().allSatisfy { $0.element.0 == $0.offset && $0.element.1 == $0.offset })
      first.send(completion: .finished)
    }
  }

  /// Zip3 fed on three threads, with one-at-a-time demand from two more, cancelled from a sixth:
  /// nothing after the triple in flight when cancel returned, and every upstream cancelled.
  @Test func zip3CancelledWhileDemandAndValuesFlowStopsAndCancelsEveryUpstream() {
    for _ in 0..<30 {
      let sources = (0..<3).map { _ in HandDrivenUpstream<Int, Never>(pumping: 0..<5_000, emitsOnRequest: false) }
      let subscriber = TestSubscriber<(Int, Int, Int), Never>(initialDemand: .none)
      Publishers.Zip3(sources[0], sources[1], sources[2]).subscribe(subscriber)
      let stop = Atomic<Bool>(false)
      let atCancel = Atomic<Int>(-1)
      runOnThreads(6) { thread in
        switch thread {
        case 0, 1, 2:
          while !stop.load(ordering: .acquiring) { sources[thread].pump() }
        case 3, 4:
          for _ in 0..<300 { subscriber.request(.max(1)) }
        default:
          while subscriber.values.count < 50 {}
          subscriber.cancel()
          atCancel.store(subscriber.values.count, ordering: .releasing)
          stop.store(true, ordering: .releasing)
        }
      }
      let values = subscriber.values
      #expect(subscriber.violations.isEmpty)
      #expect(values.count <= atCancel.load(ordering: .acquiring) + 1)
      #expect(values.enumerated().allSatisfy { $0.element == ($0.offset, $0.offset, $0.offset) })
      #expect(sources.allSatisfy { $0.isCancelled })
    }
  }
}

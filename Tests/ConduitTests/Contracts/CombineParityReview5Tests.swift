import Conduit
import ConduitTesting
import Testing

// Review 5 of operator semantics against Combine: the aggregates (reduce, min/max, contains,
// allSatisfy, first/last, count), concatenation (prepend/append), merge of every arity,
// multicast, makeConnectable, autoconnect and print.
//
// Each test pins what Combine does and cites where that is recorded. OpenCombine's tests were
// run against Combine (`OPENCOMBINE_COMPATIBILITY_TEST`), so their expected histories are the
// oracle; paths below are in the OpenCombine/OpenCombine repository, under
// Tests/OpenCombineTests/PublisherTests.

private enum Review5Error: Error, Equatable {
  case oops
  case thrown
}

@Suite(.leakChecked)
struct CombineParityReview5Tests {
  // MARK: - Aggregates

  /// Every aggregate hands its subscriber a subscription of its own, named after the operator.
  /// Evidence: the `…Reflection` tests of ReduceTests.swift ("Reduce", "TryReduce"),
  /// ComparisonTests.swift ("Comparison", "TryComparison"), ContainsTests.swift ("Contains",
  /// "ContainsWhere", "TryContainsWhere"), AllSatisfyTests.swift ("AllSatisfy",
  /// "TryAllSatisfy"), LastTests.swift ("Last", "LastWhere", "TryLastWhere"), FirstTests.swift
  /// ("First"), CountTests.swift ("Count").
  @Test func aggregateSubscriptionsAreNamedAsInCombine() {
    let upstream = PassthroughSubject<Int, Never>()
    #expect(subscriptionName(upstream.reduce(0, +)) == "Reduce")
    #expect(subscriptionName(upstream.tryReduce(0, +)) == "TryReduce")
    #expect(subscriptionName(upstream.max()) == "Comparison")
    #expect(subscriptionName(upstream.min(by: <)) == "Comparison")
    #expect(subscriptionName(upstream.tryMax(by: <)) == "TryComparison")
    #expect(subscriptionName(upstream.tryMin(by: <)) == "TryComparison")
    #expect(subscriptionName(upstream.contains(1)) == "Contains")
    #expect(subscriptionName(upstream.contains { $0 > 1 }) == "ContainsWhere")
    #expect(subscriptionName(upstream.tryContains { $0 > 1 }) == "TryContainsWhere")
    #expect(subscriptionName(upstream.allSatisfy { $0 > 1 }) == "AllSatisfy")
    #expect(subscriptionName(upstream.tryAllSatisfy { $0 > 1 }) == "TryAllSatisfy")
    #expect(subscriptionName(upstream.first()) == "First")
    #expect(subscriptionName(upstream.last()) == "Last")
    #expect(subscriptionName(upstream.last { $0 > 1 }) == "LastWhere")
    #expect(subscriptionName(upstream.tryLast { $0 > 1 }) == "TryLastWhere")
    #expect(subscriptionName(upstream.count()) == "Count")
  }

  /// `max(by:)` calls the ordering as (kept, new) and `min(by:)` as (new, kept), once per value
  /// after the first, and keeps the new value only when the call returns `true`.
  /// Evidence: ComparisonTests.swift `testBasicBehavior` (max: `[(2, 1), (2, 4), (4, 6),
  /// (4, 15), (4, 8), (8, 12)]`; min: `[(1, 2), (4, 1), (6, 1), (15, 1), (8, 1), (12, 1)]`;
  /// results 8 and 1; values after `.finished` are ignored), used by `testComparisonBasicBehavior`
  /// and `testTryComparisonBasicBehavior`.
  @Test func minAndMaxByCallTheOrderingAsCombineDoes() {
    let sent = [2, 1, 4, 6, 15, 8, 12]
    let maxCalls = [[2, 1], [2, 4], [4, 6], [4, 15], [4, 8], [8, 12]]
    let minCalls = [[1, 2], [4, 1], [6, 1], [15, 1], [8, 1], [12, 1]]

    let (maxValue, maxSeen) = compare(sent) { upstream, ordering in upstream.max(by: ordering) }
    #expect(maxValue == 8)
    #expect(maxSeen == maxCalls)
    let (minValue, minSeen) = compare(sent) { upstream, ordering in upstream.min(by: ordering) }
    #expect(minValue == 1)
    #expect(minSeen == minCalls)
    let (tryMaxValue, tryMaxSeen) = compare(sent) { upstream, ordering in
      upstream.tryMax(by: ordering).assertNoFailure()
    }
    #expect(tryMaxValue == 8)
    #expect(tryMaxSeen == maxCalls)
    let (tryMinValue, tryMinSeen) = compare(sent) { upstream, ordering in
      upstream.tryMin(by: ordering).assertNoFailure()
    }
    #expect(tryMinValue == 1)
    #expect(tryMinSeen == minCalls)
  }

  /// A throwing closure cancels upstream before the failure reaches the subscriber, without
  /// demand; a later request reaches nobody.
  /// Evidence: ReduceTests.swift `testFailureBecauseOfThrow` (in `onFailure` the upstream
  /// history is already `[.requested(.unlimited), .cancelled]`; nothing changes after
  /// `request(.max(1))`), used by `testTryReduceFailureBecauseOfThrow`,
  /// ComparisonTests.swift `testTryComparisonFailureBecauseOfThrow`, ContainsTests.swift
  /// `testFailureBecauseOfThrow`, LastTests.swift `testTryLastWhereFinishesWhenErrorThrown`.
  @Test func aThrowCancelsUpstreamBeforeTheFailureArrives() {
    func check<P: Publisher>(_ name: String, _ make: (RecordingUpstream<Int, Never>) -> P)
    where P.Failure == any Error {
      let upstream = RecordingUpstream<Int, Never>()
      let subscriber = RecordingSubscriber<P.Output, any Error>(initialDemand: .none)
      subscriber.onCompletion = { _ in subscriber.note("cancelled: \(upstream.events.contains(.cancelled))") }
      make(upstream).subscribe(subscriber)
      for value in 1...5 { #expect(upstream.send(value) == .none) }
      #expect(subscriber.history == ["subscription(\(name))", "cancelled: true", "failure(thrown)"])
      subscriber.subscription?.request(.max(1))
      #expect(subscriber.history == ["subscription(\(name))", "cancelled: true", "failure(thrown)"])
      #expect(upstream.events == [.requested(.unlimited), .cancelled])
      upstream.detach()
    }
    let throwAtThree: (Int) throws -> Bool = { value in
      if value == 3 { throw Review5Error.thrown }
      return value < 3
    }
    check("TryReduce") { $0.tryReduce(1) { total, value in try throwAtThree(value) ? total * value : total } }
    check("TryComparison") { $0.tryMax { lhs, rhs in try throwAtThree(lhs) && lhs < rhs } }
    check("TryComparison") { $0.tryMin { lhs, rhs in try throwAtThree(lhs) && lhs < rhs } }
    check("TryContainsWhere") { $0.tryContains { try throwAtThree($0) && $0 > 3 } }
    check("TryAllSatisfy") { $0.tryAllSatisfy { try throwAtThree($0) || true } }
    check("TryLastWhere") { $0.tryLast { try throwAtThree($0) } }
  }

  /// An upstream failure goes down at once, without demand and without cancelling upstream;
  /// whatever upstream sends afterwards is ignored and answered with `.none`.
  /// Evidence: ReduceTests.swift `testUpstreamFinishesWithError` (history stays
  /// `[.requested(.unlimited)]`; a second failure, `send(73) == .none` and `.finished` change
  /// nothing), used by the `…FinishesWithError` tests of Reduce, Count, Comparison, Contains,
  /// AllSatisfy and Last.
  @Test func anUpstreamFailureIsFinalAndCancelsNothing() {
    func check<P: Publisher>(_ make: (RecordingUpstream<Int, Review5Error>) -> P) where P.Output: Equatable {
      let upstream = RecordingUpstream<Int, Review5Error>()
      let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: .max(3), demandPerValue: .max(1))
      make(upstream).subscribe(subscriber)
      upstream.send(completion: .failure(.oops))
      upstream.send(completion: .failure(.oops))
      #expect(upstream.send(73) == .none)
      upstream.send(completion: .finished)
      #expect(subscriber.values == [])
      #expect(subscriber.events.count == 2)
      #expect(subscriber.violations.isEmpty)
      #expect(upstream.events == [.requested(.unlimited)])
      upstream.detach()
    }
    check { $0.reduce(1, *) }
    check { $0.tryReduce(1, *) }
    check { $0.count() }
    check { $0.max() }
    check { $0.tryMin(by: <) }
    check { $0.contains(0) }
    check { $0.allSatisfy { $0 > 0 } }
    check { $0.last() }
    check { $0.tryLast { $0 > 2 } }
  }

  /// Once the answer is known, the predicate is not called again, upstream is cancelled, and
  /// later values are ignored.
  /// Evidence: AllSatisfyTests.swift `testContainsElementNotSatisfyingPredicate` (predicate
  /// called 5 times for -2, 0, 2, 4, 7 and still 5 after 8 and 3; history
  /// `[.requested(.unlimited), .cancelled]`), used by `testAllSatisfy…`, `testTryAllSatisfy…`
  /// and ContainsTests.swift `testContainsWhere…`, `testTryContainsWhere…`.
  @Test func aDecidedAnswerStopsThePredicateAndCancelsUpstream() {
    func check<P: Publisher>(expected: Bool, _ make: (RecordingUpstream<Int, Never>, @escaping (Int) -> Bool) -> P)
    where P.Output == Bool {
      let upstream = RecordingUpstream<Int, Never>()
      let calls = ParityBox(0)
      let subscriber = TestSubscriber<Bool, P.Failure>(initialDemand: .max(1))
      make(upstream) { value in
        calls.value += 1
        return value.isMultiple(of: 2)
      }
      .subscribe(subscriber)
      for value in [-2, 0, 2, 4] { #expect(upstream.send(value) == .none) }
      #expect(calls.value == 4)
      #expect(subscriber.values == [])
      #expect(upstream.send(7) == .none)
      #expect(calls.value == 5)
      #expect(upstream.events == [.requested(.unlimited), .cancelled])
      #expect(upstream.send(8) == .none)
      #expect(upstream.send(3) == .none)
      #expect(calls.value == 5)
      #expect(subscriber.values == [expected])
      #expect(subscriber.completion != nil)
      #expect(subscriber.violations.isEmpty)
      upstream.detach()
    }
    check(expected: false) { upstream, predicate in upstream.allSatisfy(predicate) }
    check(expected: false) { upstream, predicate in upstream.tryAllSatisfy(predicate) }
    check(expected: true) { upstream, predicate in upstream.contains { !predicate($0) } }
    check(expected: true) { upstream, predicate in upstream.tryContains { !predicate($0) } }
  }

  /// A second subscription is cancelled, while folding and again after the result has gone
  /// down; the first subscription is left alone.
  /// Evidence: ReduceTests.swift `testReceiveSubscriptionTwice` (second subscription
  /// `[.cancelled]`, then `[.cancelled, .cancelled]` after completion; the first keeps
  /// `[.requested(.unlimited)]`, plus `.cancelled` for an early answer), used by
  /// `testContainsReceiveSubscriptionTwice` and the other aggregates.
  @Test func aSecondSubscriptionIsCancelledBeforeAndAfterTheResult() {
    let upstream = RecordingUpstream<Int, Never>()
    let subscriber = TestSubscriber<Bool, Never>(initialDemand: .max(1))
    upstream.contains(0).subscribe(subscriber)
    let second = RecordingSubscription()
    upstream.sendSubscription(second)
    #expect(second.events == [.cancelled])
    #expect(upstream.send(0) == .none)
    upstream.send(completion: .finished)
    upstream.sendSubscription(second)
    #expect(second.events == [.cancelled, .cancelled])
    #expect(upstream.events == [.requested(.unlimited), .cancelled])
    #expect(subscriber.events == [.subscription, .value(true), .completion(.finished)])
    upstream.detach()

    let counted = RecordingUpstream<Int, Never>()
    let countSubscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    counted.count().subscribe(countSubscriber)
    let extra = RecordingSubscription()
    #expect(counted.send(0) == .none)
    counted.send(completion: .finished)
    counted.sendSubscription(extra)
    #expect(extra.events == [.cancelled])
    #expect(counted.events == [.requested(.unlimited)])
    #expect(countSubscriber.events == [.subscription, .value(1), .completion(.finished)])
    counted.detach()
  }

  /// After the result has gone down, the subscriber's requests and cancel do not reach
  /// upstream. Evidence: LastTests.swift `testLastWhereDemand` and `testTryLastWhereDemand`
  /// (predicate called 4 times; `request(.unlimited)`, `request(.max(1))` forwarded nowhere;
  /// value 2 and `.finished` on upstream's completion; history stays `[.requested(.unlimited)]`
  /// after `cancel()`).
  @Test func afterTheResultRequestsAndCancelStayDownstream() {
    func check<P: Publisher>(_ name: String, _ make: (RecordingUpstream<Int, Never>, @escaping (Int) -> Bool) -> P)
    where P.Output == Int {
      let upstream = RecordingUpstream<Int, Never>()
      let calls = ParityBox(0)
      let subscriber = RecordingSubscriber<Int, P.Failure>(initialDemand: .none)
      make(upstream) { value in
        calls.value += 1
        return value > 1
      }
      .subscribe(subscriber)
      for value in [3, 2, 1, 0] { #expect(upstream.send(value) == .none) }
      #expect(calls.value == 4)
      subscriber.subscription?.request(.unlimited)
      subscriber.subscription?.request(.max(1))
      #expect(upstream.events == [.requested(.unlimited)])
      #expect(subscriber.history == ["subscription(\(name))"])
      upstream.send(completion: .finished)
      #expect(subscriber.history == ["subscription(\(name))", "value(2)", "finished"])
      subscriber.subscription?.cancel()
      #expect(upstream.events == [.requested(.unlimited)])
      upstream.detach()
    }
    check("LastWhere") { upstream, predicate in upstream.last(where: predicate) }
    check("TryLastWhere") { upstream, predicate in upstream.tryLast(where: predicate) }
  }

  /// Cancelling twice, or requesting after a cancel, reaches upstream once, as one cancel.
  /// Evidence: ReduceTests.swift `testCancelAlreadyCancelled` (history
  /// `[.requested(.unlimited), .cancelled]`), used by the `…CancelAlreadyCancelled` tests of
  /// Comparison, TryComparison, Contains, ContainsWhere, TryContainsWhere, Count and Last.
  @Test func aSecondCancelAndALateRequestDoNotReachUpstream() {
    func check<P: Publisher>(_ name: String, _ make: (RecordingUpstream<Int, Never>) -> P) {
      let upstream = RecordingUpstream<Int, Never>()
      let subscriber = RecordingSubscriber<P.Output, P.Failure>(initialDemand: .none)
      make(upstream).subscribe(subscriber)
      let subscription = subscriber.subscription
      subscription?.cancel()
      subscription?.request(.unlimited)
      subscription?.cancel()
      #expect(upstream.events == [.requested(.unlimited), .cancelled])
      #expect(upstream.send(1) == .none)
      #expect(subscriber.history == ["subscription(\(name))"])
      upstream.detach()
    }
    check("Comparison") { $0.max() }
    check("Comparison") { $0.min() }
    check("TryComparison") { $0.tryMax(by: <) }
    check("Contains") { $0.contains(0) }
    check("ContainsWhere") { $0.contains { $0 == 0 } }
    check("TryContainsWhere") { $0.tryContains { $0 == 0 } }
    check("Count") { $0.count() }
    check("Last") { $0.last() }
    check("LastWhere") { $0.last { $0 > 2 } }
    check("Reduce") { $0.reduce(0, +) }
  }

  /// A value or completion that arrives before the upstream's subscription is ignored: the
  /// subscriber hears nothing and the value is answered with `.none`.
  /// Evidence: ReduceTests.swift `testReduceReceiveValueBeforeSubscription`
  /// (`.history([], demand: .none)`), `testReduceReceiveCompletionBeforeSubscription`
  /// (`.history([])`), and the same tests for Count, Comparison, Contains, AllSatisfy and Last.
  @Test func eventsBeforeTheSubscriptionAreIgnored() {
    func check<P: Publisher>(_ make: (RecordingUpstream<Int, Never>) -> P) {
      let upstream = RecordingUpstream<Int, Never>(sendsSubscription: false)
      let subscriber = RecordingSubscriber<P.Output, P.Failure>(initialDemand: .unlimited)
      make(upstream).subscribe(subscriber)
      #expect(upstream.send(0) == .none)
      upstream.send(completion: .finished)
      #expect(subscriber.history == [])
      upstream.detach()
    }
    check { $0.reduce(0, +) }
    check { $0.count() }
    check { $0.max() }
    check { $0.contains(0) }
    check { $0.allSatisfy { $0 > 0 } }
    check { $0.last() }
  }

  // MARK: - Concatenate (prepend, append)

  /// The subscriber is handed the `Concatenate` subscription when the prefix hands over its
  /// subscription, not before the prefix is subscribed; anything the prefix sends before that
  /// is ignored.
  /// Evidence: ConcatenateTests.swift `testAppendReceiveValueBeforeSubscription`
  /// (`.history([], demand: .none)`), `testAppendReceiveCompletionBeforeSubscription`
  /// (`.history([])`), `testSubscribesToUpstreamThenSendsSubscriptionDownstream` (the
  /// subscriber has `.subscription("Concatenate")` once the prefix has handed over its own).
  @Test func concatenateSubscribesDownstreamWhenThePrefixSubscribes() {
    let prefix = RecordingUpstream<Int, Never>(sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, Never>(initialDemand: .max(2))
    prefix.append(1, 2, 3).subscribe(subscriber)
    #expect(subscriber.history == [])
    #expect(prefix.send(12) == .none)
    prefix.send(completion: .finished)
    #expect(subscriber.history == [])

    prefix.sendSubscription()
    #expect(subscriber.history == ["subscription(Concatenate)"])
    #expect(subscriber.subscription.map { "\($0)" } == "Concatenate")
    #expect(prefix.events == [.requested(.max(2))])
    #expect(prefix.send(5) == .none)
    prefix.send(completion: .finished)
    #expect(subscriber.history == ["subscription(Concatenate)", "value(5)", "value(1)"])
    subscriber.subscription?.cancel()
    prefix.detach()
  }

  /// With a prefix that finishes at once, the subscriber has its subscription before the
  /// suffix (the operator's upstream here) hands over one.
  /// Evidence: ConcatenateTests.swift `testPrependReceiveValueBeforeSubscription`
  /// (`.history([.subscription("Concatenate")], demand: .none)`).
  @Test func prependingAnEmptyPublisherSubscribesDownstreamBeforeTheSuffix() {
    let suffix = RecordingUpstream<Int, Never>(sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, Never>(initialDemand: .none)
    suffix.prepend(Empty()).subscribe(subscriber)
    #expect(subscriber.history == ["subscription(Concatenate)"])
    #expect(subscriber.subscription.map { "\($0)" } == "Concatenate")
    #expect(suffix.send(12) == .none)
    #expect(subscriber.history == ["subscription(Concatenate)"])
    subscriber.subscription?.cancel()
    suffix.detach()
  }

  /// A value beyond the demand, sent from inside the subscriber's `receive(_:)`, is not passed
  /// on. Evidence: ConcatenateTests.swift `testRecursivelyReceiveValue` (demand 3, each value
  /// sends the next from inside `receive`: history `[1, 2, 3]`, every send answered `.none`).
  @Test func concatenateDropsAValueBeyondDemand() {
    let upstream = RecordingUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
    var answers: [Subscribers.Demand] = []
    var remaining = 10
    subscriber.onValue { value in
      guard remaining > 0 else { return }
      remaining -= 1
      answers.append(upstream.send(value + 1))
    }
    upstream.append().subscribe(subscriber)
    #expect(upstream.send(1) == .none)
    #expect(subscriber.values == [1, 2, 3])
    #expect(answers == [.none, .none, .none])
    subscriber.cancel()
    upstream.detach()
  }

  /// Demand the subscriber adds while the suffix is being subscribed (before it has handed over
  /// its subscription) is asked of the suffix along with what was left; after the suffix has
  /// finished, requests go nowhere.
  /// Evidence: ConcatenateTests.swift `testBackpressure` (`request(.max(7))` from the suffix's
  /// `willSubscribe`: suffix history `[.requested(.max(19))]` for 10 requested, 1 delivered,
  /// 3 returned; then `[.max(19), .unlimited]`, unchanged by `request(.max(42))` after
  /// `.finished`).
  @Test func concatenateCarriesDemandAddedWhileTheSuffixSubscribes() {
    let prefix = RecordingUpstream<Int, Never>()
    let suffix = RecordingUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10), demandPerValue: .max(3))
    let lateSuffix = Deferred { () -> RecordingUpstream<Int, Never> in
      subscriber.request(.max(7))
      return suffix
    }
    prefix.append(lateSuffix).subscribe(subscriber)
    #expect(prefix.send(3) == .max(3))
    prefix.send(completion: .finished)
    #expect(prefix.events == [.requested(.max(10))])
    #expect(suffix.events == [.requested(.max(19))])
    subscriber.request(.unlimited)
    #expect(suffix.events == [.requested(.max(19)), .requested(.unlimited)])
    suffix.send(completion: .finished)
    subscriber.request(.max(42))
    #expect(suffix.events == [.requested(.max(19)), .requested(.unlimited)])
    #expect(subscriber.events == [.subscription, .value(3), .completion(.finished)])
    prefix.detach()
    suffix.detach()
  }

  /// After the suffix has finished, a further subscription is cancelled and a further value is
  /// answered with `.none`. Evidence: ConcatenateTests.swift `testAppendBasicBehavior`
  /// (`publisher2.send(7) == .none`; `subscription3.history == [.cancelled]`).
  @Test func concatenateIgnoresTheSuffixAfterItFinished() {
    let prefix = RecordingUpstream<Int, Never>()
    let suffix = RecordingUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10), demandPerValue: .max(1))
    prefix.append(suffix).subscribe(subscriber)
    #expect(prefix.send(1) == .max(1))
    prefix.send(completion: .finished)
    #expect(suffix.events == [.requested(.max(10))])
    #expect(suffix.send(5) == .max(1))
    suffix.send(completion: .finished)
    #expect(suffix.send(7) == .none)
    let late = RecordingSubscription()
    suffix.sendSubscription(late)
    #expect(late.events == [.cancelled])
    #expect(subscriber.events == [.subscription, .value(1), .value(5), .completion(.finished)])
    prefix.detach()
    suffix.detach()
  }

  /// A failure sent again from inside the subscriber's `receive(completion:)` is not delivered
  /// a second time. Evidence: ConcatenateTests.swift `testRecursivelyReceiveFailure` (history
  /// `[.subscription("Concatenate"), .completion(.failure(.oops))]`).
  @Test func concatenateDeliversAReenteredFailureOnce() {
    let upstream = RecordingUpstream<Int, Review5Error>()
    let subscriber = RecordingSubscriber<Int, Review5Error>(initialDemand: .none)
    var remaining = 10
    subscriber.onCompletion = { _ in
      guard remaining > 0 else { return }
      remaining -= 1
      upstream.send(completion: .failure(.oops))
    }
    upstream.append().subscribe(subscriber)
    upstream.send(completion: .failure(.oops))
    #expect(subscriber.history == ["subscription(Concatenate)", "failure(oops)"])
    upstream.detach()
  }

  // MARK: - Merge, Merge3…Merge8, MergeMany

  /// A failure cancels every upstream, the one that failed included, at every arity.
  /// Evidence: MergeTests.swift `testBCancelledAfterAFailed` (child1 history
  /// `[.requested(.unlimited), .cancelled]`, child2 `[.requested(.unlimited), .cancelled]`).
  @Test func mergeFailureCancelsEveryUpstreamIncludingTheFailedOne() {
    for arity in 2...10 {
      for failing in [0, arity - 1] {
        let (children, merged) = mergeOf(arity)
        let subscriber = TestSubscriber<Int, Review5Error>()
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
  /// cancels anything. Evidence: MergeTests.swift
  /// `testImmediateFinishWhenOneChildFinishesWithNoSurplus` (history `[.subscription("Merge")]`,
  /// every child `[.requested(.unlimited)]`, arities 2…10) and
  /// `testDelayedFinishWhenOneChildFinishesWithSurplus`.
  @Test func mergeKeepsGoingWhenOneUpstreamFinishes() {
    for arity in 2...10 {
      for finishing in 0..<arity {
        let (children, merged) = mergeOf(arity)
        let subscriber = RecordingSubscriber<Int, Review5Error>(initialDemand: .unlimited)
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
  /// Evidence: MergeTests.swift `testDownstreamDemandRequestedWhileSendingValue` (unlimited:
  /// `send(1) == .max(0)`, histories `[.requested(.unlimited)]`; `.max(1)` and `.max(10)`:
  /// `send(1) == .max(1)`, histories `[.requested(.max(1))]`).
  @Test func mergeDemandRequestedDuringSubscriptionAndDuringAValue() {
    for initial in [Subscribers.Demand.unlimited, .max(1), .max(10)] {
      let (children, merged) = mergeOf(2)
      let subscriber = TestSubscriber<Int, Review5Error>(initialDemand: initial)
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
  /// Evidence: MergeTests.swift `testMergeReceiveSubscriptionTwice` (second `[.cancelled]`;
  /// first `[.requested(.max(1)), .cancelled]`, then `[.requested(.max(1)), .cancelled,
  /// .cancelled]` after the downstream cancels).
  @Test func mergeCancelsASecondSubscription() {
    let first = RecordingUpstream<Int, Review5Error>()
    let other = PassthroughSubject<Int, Review5Error>()
    let subscriber = RecordingSubscriber<Int, Review5Error>(initialDemand: .none)
    first.merge(with: other).subscribe(subscriber)
    #expect(first.events == [.requested(.max(1))])
    let second = RecordingSubscription()
    first.sendSubscription(second)
    #expect(second.events == [.cancelled])
    first.sendSubscription(first)
    #expect(first.events == [.requested(.max(1)), .cancelled])
    subscriber.subscription?.cancel()
    #expect(first.events == [.requested(.max(1)), .cancelled, .cancelled])
    first.detach()
  }

  /// After a failure, or after the merge finished, nothing more reaches the subscriber.
  /// Evidence: MergeTests.swift `testValueAfterFailed`, `testFinishAfterFailed`,
  /// `testFailedAfterFinished`, `testFailedAfterFailed`, `testFinishAfterFinished`,
  /// `testAValueAfterAChildFinishedWithoutSurplus`.
  @Test func mergeIsSilentAfterItCompletes() {
    let first = PassthroughSubject<Int, Review5Error>()
    let second = PassthroughSubject<Int, Review5Error>()
    let failed = TestSubscriber<Int, Review5Error>()
    first.merge(with: second).subscribe(failed)
    first.send(100)
    first.send(completion: .failure(.oops))
    second.send(1)
    second.send(completion: .finished)
    #expect(failed.events == [.subscription, .value(100), .completion(.failure(.oops))])

    let third = PassthroughSubject<Int, Review5Error>()
    let fourth = PassthroughSubject<Int, Review5Error>()
    let finished = TestSubscriber<Int, Review5Error>()
    third.merge(with: fourth).subscribe(finished)
    third.send(completion: .finished)
    third.send(200)
    fourth.send(1)
    fourth.send(completion: .finished)
    third.send(completion: .failure(.oops))
    #expect(finished.events == [.subscription, .value(1), .completion(.finished)])
    #expect(failed.violations.isEmpty && finished.violations.isEmpty)
  }

  // MARK: - Multicast, makeConnectable

  /// Nothing flows before `connect()`; cancelling the connection stops values; connecting again
  /// subscribes upstream afresh, and its completion reaches the subscriber once.
  /// Evidence: MulticastTests.swift `testMulticast` (history `[.subscription, -1, 42, 15,
  /// .finished]`: 0 and 12 before the connection and 14 after its cancel are lost), used by
  /// MakeConnectableTests.swift `testMulticast`.
  @Test func multicastConnectCancelAndReconnect() {
    func check<C: ConnectablePublisher>(_ make: (RecordingUpstream<Int, Never>) -> C) where C.Output == Int {
      let upstream = RecordingUpstream<Int, Never>()
      let connectable = make(upstream)
      let subscriber = TestSubscriber<Int, C.Failure>()
      connectable.subscribe(subscriber)
      #expect(upstream.send(0) == .none)
      var connection = connectable.connect()
      #expect(upstream.send(-1) == .none)
      #expect(upstream.send(42) == .none)
      connection.cancel()
      #expect(upstream.events.last == .cancelled)
      #expect(upstream.send(14) == .none)
      connection = connectable.connect()
      #expect(upstream.subscriptionCount == 2)
      #expect(upstream.send(15) == .none)
      upstream.send(completion: .finished)
      upstream.send(completion: .finished)
      connection.cancel()
      #expect(subscriber.values == [-1, 42, 15])
      #expect(subscriber.events.count == 5)
      #expect(subscriber.violations.isEmpty)
      upstream.detach()
    }
    check { $0.multicast { PassthroughSubject() } }
    check { $0.multicast(subject: PassthroughSubject()) }
    check { $0.makeConnectable() }
  }

  /// Two connections are two upstream subscriptions, each feeding the subject.
  /// Evidence: MulticastTests.swift `testMulticastConnectTwice` (history `[.subscription, 42,
  /// 42, .finished]`).
  @Test func multicastConnectedTwiceDeliversEachValueTwice() {
    let upstream = PassthroughSubject<Int, Never>()
    let multicast = upstream.multicast(subject: PassthroughSubject())
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10))
    multicast.subscribe(subscriber)
    upstream.send(-1)
    let first = multicast.connect()
    let second = multicast.connect()
    upstream.send(42)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(42), .value(42), .completion(.finished)])
    first.cancel()
    second.cancel()
  }

  /// Each subscriber gets what its own demand allows; upstream is asked for everything once; a
  /// subscriber after the completion gets its subscription and the completion.
  /// Evidence: MulticastTests.swift `testLateSubscriber` (early `.max(3)`: 1, 2, 3; late
  /// `.max(2)`: 5, 6; upstream `[.requested(.unlimited)]`; the latest subscriber
  /// `[.subscription, .completion(.finished)]`).
  @Test func multicastServesEachSubscriberItsOwnDemand() {
    let upstream = RecordingUpstream<Int, Never>()
    let multicast = upstream.multicast(subject: PassthroughSubject())
    let early = TestSubscriber<Int, Never>(initialDemand: .max(3))
    multicast.subscribe(early)
    #expect(upstream.subscriptionCount == 0)
    let connection = multicast.connect()
    #expect(upstream.events == [.requested(.unlimited)])
    for value in 1...4 { #expect(upstream.send(value) == .none) }
    let late = TestSubscriber<Int, Never>(initialDemand: .max(2))
    multicast.subscribe(late)
    for value in 5...7 { #expect(upstream.send(value) == .none) }
    upstream.send(completion: .finished)
    let latest = TestSubscriber<Int, Never>(initialDemand: .none)
    multicast.subscribe(latest)
    #expect(upstream.events == [.requested(.unlimited)])
    #expect(early.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)])
    #expect(late.events == [.subscription, .value(5), .value(6), .completion(.finished)])
    #expect(latest.events == [.subscription, .completion(.finished)])
    connection.cancel()
    upstream.detach()
  }

  // MARK: - Autoconnect

  /// Autoconnect connects with the first subscriber only, passes each subscriber's requests
  /// straight to its upstream subscription, and disconnects when the last one cancels.
  /// Evidence: AutoconnectTests.swift `testBasicRefcountBehavior` (connection history
  /// `[.connected]` through three subscribers; upstream requests `.max(101)`, `.max(102)`,
  /// `.max(103)`; `[.connected, .disconnected]` only after the third cancel; a second cancel
  /// does not disconnect again).
  @Test func autoconnectCountsSubscribersAndForwardsRequests() {
    let connectable = RecordingConnectable()
    let autoconnect = connectable.autoconnect()
    let subscribers = [101, 102, 103].map { TestSubscriber<Int, Never>(initialDemand: .max($0)) }
    for subscriber in subscribers {
      autoconnect.subscribe(subscriber)
      #expect(connectable.connections == ["connected"])
    }
    #expect(connectable.upstream.links.map(\.requests) == [[.max(101)], [.max(102)], [.max(103)]])
    let kept = subscribers[0].subscription
    subscribers[1].cancel()
    subscribers[2].cancel()
    #expect(connectable.connections == ["connected"])
    subscribers[0].cancel()
    #expect(connectable.connections == ["connected", "disconnected"])
    kept?.cancel()
    #expect(connectable.connections == ["connected", "disconnected"])
    #expect(connectable.upstream.links.map(\.isCancelled) == [true, true, true])
  }

  /// Combine's autoconnect hands each subscriber a subscription that passes for the upstream's
  /// own, and passes every cancel on (a second one too); Conduit counts the subscriber out once.
  /// Evidence: AutoconnectTests.swift `testAutoconnectReflection` (description
  /// "CustomSubscription", the same `combineIdentifier`) and `testBasicRefcountBehavior`
  /// (four `.cancelled` in the upstream history for three subscribers, one cancelling twice).
  @Test func autoconnectHandsOverTheUpstreamSubscription() {
    let connectable = RecordingConnectable()
    #expect(subscriptionName(connectable.autoconnect()) == "HandDriven")
  }

  // MARK: - print

  /// Print writes each event's line before passing the event on (so it comes before what the
  /// call does), and the `(synchronous)` line for returned demand after the subscriber's
  /// `receive(_:)` returns.
  /// Evidence: PrintTests.swift `testPrintWithPrefix` / `testPrintWithoutPrefix` (expected
  /// output interleaving "callback …" lines written by the subscription and the subscriber).
  @Test func printWritesEachLineBeforeThePassedOnCall() {
    let stream = SharedStream()
    let upstream = RecordingUpstream<Int, Review5Error>()
    upstream.onRequest = { _ in stream.write("callback request demand\n") }
    upstream.onCancel = { stream.write("callback cancel subscription\n") }
    let subscriber = RecordingSubscriber<Int, Review5Error>(initialDemand: .none)
    subscriber.onSubscription = { subscription in
      stream.write("callback subscription\n")
      subscription.request(.unlimited)
      subscription.request(.max(30))
    }
    subscriber.onValue = { value in
      stream.write("callback value\n")
      subscriber.subscription?.request(.max(100))
      return value == 10 ? .unlimited : .max(2)
    }
    subscriber.onCompletion = { _ in stream.write("callback completion\n") }
    upstream.print("👉", to: stream).subscribe(subscriber)
    #expect(upstream.send(1) == .max(2))
    subscriber.subscription?.request(.max(42))
    #expect(upstream.send(10) == .unlimited)
    upstream.send(completion: .failure(.oops))
    #expect(
      stream.lines == [
        "👉: receive subscription: (RecordingUpstream)",
        "callback subscription",
        "👉: request unlimited",
        "callback request demand",
        "👉: request max: (30)",
        "callback request demand",
        "👉: receive value: (1)",
        "callback value",
        "👉: request max: (100)",
        "callback request demand",
        "👉: request max: (2) (synchronous)",
        "👉: request max: (42)",
        "callback request demand",
        "👉: receive value: (10)",
        "callback value",
        "👉: request max: (100)",
        "callback request demand",
        "👉: request unlimited (synchronous)",
        "👉: receive error: (oops)",
        "callback completion",
      ])
    upstream.detach()

    let cancelled = RecordingUpstream<Int, Never>()
    cancelled.onCancel = { stream.write("callback cancel subscription\n") }
    let cancelling = RecordingSubscriber<Int, Never>(initialDemand: .none)
    cancelled.print(to: stream).subscribe(cancelling)
    stream.clear()
    cancelling.subscription?.cancel()
    #expect(stream.lines == ["receive cancel", "callback cancel subscription"])
    cancelled.detach()
  }
}

#if CONDUIT_REVIEW_DIFFERENCES
  // Differences from Combine found by this review and left in place; see each test's comment.
  // Build with `-Xswiftc -DCONDUIT_REVIEW_DIFFERENCES` to run them (they fail on Conduit).
  @Suite(.leakChecked)
  struct CombineParityReview5Differences {
    /// Combine subscribes to the prefix and to the suffix with two different subscribers, so
    /// what the prefix sends after it finished is dropped. Conduit uses one object for both: a
    /// value the prefix sends after its completion (breaking the contract) reaches the
    /// subscriber. Evidence: ConcatenateTests.swift `testAppendBasicBehavior`
    /// (`publisher1.send(4000) == .none` after the prefix finished, not in the history) and
    /// `testCombineIdentifier` (the prefix's and suffix's subscribers are of different types).
    @Test func aValueThePrefixSendsAfterItFinishedIsDropped() {
      let prefix = RecordingUpstream<Int, Never>()
      let suffix = RecordingUpstream<Int, Never>()
      let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10))
      prefix.append(suffix).subscribe(subscriber)
      prefix.send(completion: .finished)
      #expect(prefix.send(4000) == .none)
      #expect(subscriber.values == [])
      subscriber.cancel()
      prefix.detach()
      suffix.detach()
    }

    /// Combine's autoconnect connects again for a subscriber that joins from inside the first
    /// one's `receive(subscription:)`. Conduit shares one connection (see
    /// `Publishers.Autoconnect.reconcile()`): two connections would each feed the subject.
    /// Evidence: AutoconnectTests.swift `testReentranceWhenConnecting` (connection history
    /// `[.connected, .connected]`, then one `.disconnected`).
    @Test func autoconnectConnectsAgainForAReentrantSubscriber() {
      let connectable = RecordingConnectable()
      let autoconnect = connectable.autoconnect()
      let inner = TestSubscriber<Int, Never>(initialDemand: .none)
      let outer = RecordingSubscriber<Int, Never>(initialDemand: .none)
      outer.onSubscription = { _ in autoconnect.subscribe(inner) }
      autoconnect.subscribe(outer)
      #expect(connectable.connections == ["connected", "connected"])
      outer.subscription?.cancel()
      inner.cancel()
    }

    /// Combine's print logs a request made after a cancel (without passing it on). Conduit
    /// logs nothing after "receive cancel" (it lets go of the stream then).
    /// Evidence: PrintTests.swift `testPrintWithPrefix` ("👉: request max: (100)" and
    /// "👉: request max: (42)" after "👉: receive cancel", with no "callback request demand").
    @Test func printLogsARequestAfterACancel() {
      let stream = SharedStream()
      let upstream = RecordingUpstream<Int, Never>()
      let subscriber = RecordingSubscriber<Int, Never>(initialDemand: .none)
      upstream.print(to: stream).subscribe(subscriber)
      subscriber.subscription?.cancel()
      subscriber.subscription?.request(.max(42))
      #expect(stream.lines.suffix(2) == ["receive cancel", "request max: (42)"])
      #expect(upstream.events == [.cancelled])
      upstream.detach()
    }
  }
#endif

// MARK: - Helpers

/// The description of the subscription `publisher` hands its subscriber.
private func subscriptionName<P: Publisher>(_ publisher: P) -> String? {
  let subscriber = RecordingSubscriber<P.Output, P.Failure>(initialDemand: .none)
  publisher.subscribe(subscriber)
  defer { subscriber.subscription?.cancel() }
  return subscriber.subscription.map { "\($0)" }
}

/// Runs `values` through the comparison `make` builds, with an ordering by trailing zero bits
/// that records its calls; returns the result and the calls.
private func compare<P: Publisher>(
  _ values: [Int], _ make: (RecordingUpstream<Int, Never>, @escaping (Int, Int) -> Bool) -> P
) -> (Int?, [[Int]]) where P.Output == Int, P.Failure == Never {
  let upstream = RecordingUpstream<Int, Never>()
  let calls = ParityBox<[[Int]]>([])
  let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
  make(upstream) { lhs, rhs in
    calls.value.append([lhs, rhs])
    return lhs.trailingZeroBitCount < rhs.trailingZeroBitCount
  }
  .subscribe(subscriber)
  for value in values { _ = upstream.send(value) }
  let before = calls.value
  upstream.send(completion: .finished)
  _ = upstream.send(7)
  _ = upstream.send(32)
  #expect(calls.value == before)
  #expect(upstream.events == [.requested(.unlimited)])
  upstream.detach()
  return (subscriber.values.first, calls.value)
}

/// `arity` hand-driven upstreams and their merge, built with `merge(with:)` up to eight and
/// `MergeMany` beyond, as MergeTests.swift's `getChildrenAndMergeForArity` does.
private func mergeOf(_ arity: Int) -> ([RecordingUpstream<Int, Review5Error>], AnyPublisher<Int, Review5Error>) {
  let c = (0..<arity).map { _ in RecordingUpstream<Int, Review5Error>() }
  let merged: AnyPublisher<Int, Review5Error>
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

/// A connectable publisher over a hand-driven upstream that records connections.
private final class RecordingConnectable: ConnectablePublisher, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never

  let upstream = HandDrivenPublisher<Int, Never>()
  private(set) var connections: [String] = []

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    upstream.receive(subscriber: subscriber)
  }

  func connect() -> any Cancellable {
    connections.append("connected")
    return AnyCancellable { [weak self] in self?.connections.append("disconnected") }
  }
}

/// A text stream shared by the test's hooks and `print`, split into lines.
private final class SharedStream: TextOutputStream, @unchecked Sendable {
  private var text = ""
  var lines: [String] { text.split(separator: "\n").map(String.init) }
  func write(_ string: String) { text += string }
  func clear() { text = "" }
}

import Conduit
import ConduitTesting
import Dispatch
import Testing

/// The error the reducing operators' tests fail with.
enum ReducingError: Error, Equatable {
  case upstream
  case thrown
}

/// Checks that a subscriber's subscription arrives before the upstream request for everything.
private final class OrderProbe: Subscriber {
  typealias Input = Int
  typealias Failure = Never

  let upstream: HandDrivenUpstream<Int, Never>
  private(set) var requestsSeenAtSubscription: [Subscribers.Demand]?
  private(set) var subscription: (any Subscription)?

  init(upstream: HandDrivenUpstream<Int, Never>) {
    self.upstream = upstream
  }

  func receive(subscription: any Subscription) {
    requestsSeenAtSubscription = upstream.requests
    self.subscription = subscription
  }

  func receive(_ input: Int) -> Subscribers.Demand { .none }

  func receive(completion: Subscribers.Completion<Never>) { subscription = nil }
}

/// The shared engine of the aggregating operators, exercised through `count`, `first`,
/// `collect` and `tryReduce`.
@Suite(.leakChecked)
struct ReductionTests {
  // MARK: Demand

  @Test func requestsUnlimitedFromUpstreamAsSoonAsSubscribed() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.count().subscribe(subscriber)

    #expect(subscriber.events == [.subscription])
    #expect(upstream.requests == [.unlimited])
    subscriber.cancel()
  }

  @Test func downstreamGetsItsSubscriptionBeforeUpstreamIsAsked() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let probe = OrderProbe(upstream: upstream)
    upstream.count().subscribe(probe)

    #expect(probe.requestsSeenAtSubscription == [])
    #expect(upstream.requests == [.unlimited])
    probe.subscription?.cancel()
  }

  @Test func downstreamDemandIsNotForwardedUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.count().subscribe(subscriber)
    subscriber.request(.max(3))

    #expect(upstream.requests == [.unlimited])
    subscriber.cancel()
  }

  @Test func holdsTheResultUntilDownstreamDemands() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.count().subscribe(subscriber)

    #expect(upstream.send(1) == .none)
    #expect(upstream.send(2) == .none)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(2), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func deliversAtOnceWhenDemandCameFirst() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.count().subscribe(subscriber)
    subscriber.request(.max(1))
    subscriber.request(.max(1))

    upstream.send(7)
    #expect(subscriber.events == [.subscription])
    upstream.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func requestsAfterDeliveryDoNothing() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.count().subscribe(subscriber)
    let subscription = subscriber.subscription
    upstream.send(completion: .finished)
    subscriber.request(.max(1))

    subscription?.request(.max(1))
    subscription?.request(.unlimited)

    #expect(subscriber.events == [.subscription, .value(0), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  // As in Combine (FirstTests.testFirstFinishesImmediatelyWithoutDemand and the like): an
  // empty result's completion waits for demand too.
  @Test func anEmptyResultFinishesOnceAsked() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.first().subscribe(subscriber)

    upstream.send(completion: .finished)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelWhileHoldingAnEmptyResultSendsNothing() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.last().subscribe(subscriber)
    let subscription = subscriber.subscription
    upstream.send(completion: .finished)

    subscriber.cancel()
    subscription?.request(.max(1))

    #expect(subscriber.events == [.subscription])
    #expect(upstream.cancelCount == 0)
  }

  // MARK: Before upstream's subscription (as in Combine)

  // ReduceTests.testTryReduceReceiveValueBeforeSubscription: the value is dropped, the closure
  // not called.
  @Test func aValueBeforeTheSubscriptionIsIgnoredWithoutCallingTheStep() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = TestSubscriber<Int, any Error>()
    var calls = 0
    upstream.tryReduce(0) { sum, value in
      calls += 1
      return sum + value
    }.subscribe(subscriber)

    #expect(upstream.send(5) == .none)
    #expect(calls == 0)
    #expect(subscriber.events.isEmpty)

    upstream.sendSubscription()
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(calls == 1)
    #expect(subscriber.values == [2])
  }

  // ReduceTests.testReduceReceiveCompletionBeforeSubscription.
  @Test func aCompletionBeforeTheSubscriptionIsIgnored() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = TestSubscriber<Int, Never>()
    upstream.count().subscribe(subscriber)

    upstream.send(completion: .finished)
    #expect(subscriber.events.isEmpty)

    upstream.sendSubscription()
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  // ReduceTests.testReduceCancelBeforeSubscription and the like: the subscription that arrives
  // after the cancel is asked for everything.
  @Test func aCancelBeforeTheSubscriptionChangesNothing() throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = TestSubscriber<Int, Never>()
    upstream.reduce(1, *).subscribe(subscriber)

    try #require(upstream.subscriberAsSubscription).cancel()
    upstream.sendSubscription()

    #expect(upstream.requests == [.unlimited])
    #expect(upstream.cancelCount == 0)
    upstream.send(3)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(3), .completion(.finished)])
  }

  @Test func aRequestBeforeTheSubscriptionCountsAsDemand() throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.count().subscribe(subscriber)

    try #require(upstream.subscriberAsSubscription).request(.max(1))
    upstream.sendSubscription()
    upstream.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value(0), .completion(.finished)])
  }

  // MARK: Reflection (as in Combine: TestReflection.swift's reduceLikeOperatorMirror)

  @Test func describesItselfAsTheOperatorWithCombinesMirror() throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.reduce(7, +).subscribe(subscriber)
    let reduction = try #require(upstream.subscriberAsSubscription)

    #expect(String(describing: reduction) == "Reduce")
    #expect((reduction as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Reduce")
    #expect(!(reduction is any CustomDebugStringConvertible))
    let mirror = try #require((reduction as? any CustomReflectable)?.customMirror)
    #expect(mirror.children.map(\.label) == ["downstream", "result", "initial", "status"])
    let values = mirror.children.map { String(describing: $0.value) }
    #expect(values[0].contains("TestSubscriber"))
    #expect(values[1] == "nil")
    #expect(values[2] == "7")

    upstream.sendSubscription()
    upstream.send(2)
    upstream.send(completion: .finished)
    // Once upstream is done, the result held for demand shows.
    let held = try #require((reduction as? any CustomReflectable)?.customMirror)
    #expect(held.children.map { String(describing: $0.value) }[1] == "Optional(9)")
    subscriber.request(.max(1))
    #expect(subscriber.values == [9])
  }

  @Test(arguments: ReflectedReduction.allCases)
  func everyReductionDescribesItselfAsCombineDoes(_ operation: ReflectedReduction) throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    operation.subscribe(to: upstream)
    let reduction = try #require(upstream.subscriberAsSubscription)
    #expect(String(describing: reduction) == operation.combineName)
    #expect(
      (reduction as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
        == operation.combineName)
    let mirror = try #require((reduction as? any CustomReflectable)?.customMirror)
    #expect(mirror.children.map(\.label) == ["downstream", "result", "initial", "status"])
  }

  // CollectTests.testCollectReflection: collect()'s mirror has only a count.
  @Test func collectsMirrorCountsTheElements() throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<[Int], Never>(initialDemand: .none)
    upstream.collect().subscribe(subscriber)
    let collect = try #require(upstream.subscriberAsSubscription)

    #expect(String(describing: collect) == "Collect")
    #expect((collect as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Collect")
    let mirror = try #require((collect as? any CustomReflectable)?.customMirror)
    #expect(mirror.children.map(\.label) == ["count"])
    #expect(mirror.children.map { String(describing: $0.value) } == ["0"])

    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    let held = try #require((collect as? any CustomReflectable)?.customMirror)
    #expect(held.children.map { String(describing: $0.value) } == ["2"])
    subscriber.cancel()
  }

  // MARK: Completion

  @Test func failurePassesThroughWithoutDemand() {
    let upstream = HandDrivenUpstream<Int, ReducingError>(conduct: .careless)
    let subscriber = TestSubscriber<[Int], ReducingError>(initialDemand: .none)
    upstream.collect().subscribe(subscriber)

    upstream.send(1)
    upstream.send(completion: .failure(.upstream))

    #expect(subscriber.events == [.subscription, .completion(.failure(.upstream))])
    #expect(upstream.cancelCount == 0)
  }

  @Test func ignoresEverythingAfterUpstreamCompletes() {
    let upstream = HandDrivenUpstream<Int, ReducingError>(conduct: .careless)
    let subscriber = TestSubscriber<Int, ReducingError>()
    upstream.count().subscribe(subscriber)

    upstream.send(1)
    upstream.send(completion: .finished)
    upstream.send(2)
    upstream.send(completion: .failure(.upstream))
    upstream.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aSecondSubscriptionIsCancelled() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>()
    upstream.count().subscribe(subscriber)
    let second = SpySubscription()

    upstream.sendSubscription(second)

    #expect(second.cancelCount == 1)
    #expect(second.requests.isEmpty)
    #expect(subscriber.subscriptionCount == 1)
    upstream.send(completion: .finished)
    #expect(subscriber.values == [0])
  }

  // MARK: Early decision

  @Test func anEarlyDecisionCancelsUpstreamAndHoldsTheResult() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.first().subscribe(subscriber)

    upstream.send(4)
    #expect(upstream.cancelCount == 1)
    #expect(subscriber.events == [.subscription])

    upstream.send(5)
    upstream.send(completion: .finished)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(4), .completion(.finished)])
    #expect(upstream.cancelCount == 1)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func anEarlyDecisionWithDemandDeliversAtOnce() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.first().subscribe(subscriber)

    upstream.send(4)

    #expect(subscriber.events == [.subscription, .value(4), .completion(.finished)])
    #expect(upstream.cancelCount == 1)
  }

  @Test func aThrownErrorCancelsUpstreamAndFailsWithoutDemand() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, any Error>(initialDemand: .none)
    var calls = 0
    upstream.tryReduce(0) { sum, value in
      calls += 1
      if value < 0 { throw ReducingError.thrown }
      return sum + value
    }.subscribe(subscriber)

    upstream.send(1)
    upstream.send(-1)
    upstream.send(2)
    upstream.send(completion: .finished)

    #expect(calls == 2)
    #expect(upstream.cancelCount == 1)
    #expect(subscriber.values.isEmpty)
    guard case .failure(let error) = subscriber.completion else {
      Issue.record("expected a failure, got \(String(describing: subscriber.completion))")
      return
    }
    #expect(error as? ReducingError == .thrown)
  }

  // MARK: Cancellation

  @Test func cancelCancelsUpstreamAndSilencesTheSubscriber() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>()
    upstream.count().subscribe(subscriber)
    let subscription = subscriber.subscription

    subscriber.cancel()
    #expect(upstream.cancelCount == 1)

    upstream.send(1)
    upstream.send(completion: .finished)
    subscription?.request(.max(1))
    subscription?.cancel()

    #expect(subscriber.events == [.subscription])
    #expect(upstream.cancelCount == 1)
  }

  @Test func cancelWhileHoldingDropsTheResult() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.count().subscribe(subscriber)
    let subscription = subscriber.subscription
    upstream.send(completion: .finished)

    subscriber.cancel()
    subscription?.request(.max(1))

    #expect(subscriber.events == [.subscription])
    #expect(upstream.cancelCount == 0)
  }

  @Test func cancelFromInsideReceiveSubscriptionStopsBeforeAskingUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = AnySubscriber<Int, Never>(
      receiveSubscription: { $0.cancel() }, receiveValue: { _ in .none }, receiveCompletion: { _ in })
    upstream.count().subscribe(subscriber)

    #expect(upstream.cancelCount == 1)
    #expect(upstream.requests.isEmpty)
  }

  @Test func cancelFromInsideReceiveValueSuppressesTheCompletion() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { [unowned subscriber] _ in subscriber.cancel() }
    upstream.count().subscribe(subscriber)

    upstream.send(1)
    upstream.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value(1)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func requestFromInsideReceiveValueIsHarmless() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { [unowned subscriber] _ in subscriber.request(.max(1)) }
    upstream.count().subscribe(subscriber)

    upstream.send(completion: .finished)

    #expect(subscriber.events == [.subscription, .value(0), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  // MARK: Synchronous upstream

  @Test func foldsASynchronousSequence() {
    let subscriber = TestSubscriber<Int, Never>()
    (1...100_000).publisher.count().subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(100_000), .completion(.finished)])
  }

  @Test func decidesEarlyInsideASynchronousSequence() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    var pulled = 0
    let numbers = sequence(first: 1) { value -> Int? in
      pulled += 1
      return value < 100 ? value + 1 : nil
    }
    numbers.publisher.first().subscribe(subscriber)
    // The sequence publisher reads one element ahead; it stops as soon as `first` cancels.
    #expect(pulled <= 2)
    #expect(subscriber.events == [.subscription])

    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func requestingNoneStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
      PassthroughSubject<Int, Never>().count().subscribe(subscriber)
      subscriber.request(.none)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("request(.none)"))
  }

  /// A cancel lets go of the result held for want of demand after the operator's lock: a value
  /// whose `deinit` cancels the same subscription stopped the process on the lock taken twice.
  @Test func heldResultMayCancelTheSubscriptionInItsDeinit() {
    let upstream = PassthroughSubject<DeinitProbe, Never>()
    let holder = DeinitCancellingSubscriber<[DeinitProbe], Never>.Holder()
    upstream.collect().subscribe(DeinitCancellingSubscriber<[DeinitProbe], Never>(holder: holder))
    var cancelledInDeinit = false
    upstream.send(
      DeinitProbe {
        holder.subscription?.cancel()
        cancelledInDeinit = true
      })
    upstream.send(completion: .finished)
    #expect(!cancelledInDeinit)
    holder.subscription?.cancel()
    #expect(cancelledInDeinit)
    holder.subscription = nil
  }

  /// Every aggregate hands its subscriber a subscription of its own, named after the operator.
  /// Evidence (OpenCombine): the `…Reflection` tests of ReduceTests.swift ("Reduce", "TryReduce"),
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

  /// A throwing closure cancels upstream before the failure reaches the subscriber, without
  /// demand; a later request reaches nobody.
  /// Evidence (OpenCombine): ReduceTests.swift `testFailureBecauseOfThrow` (in `onFailure` the upstream
  /// history is already `[.requested(.unlimited), .cancelled]`; nothing changes after
  /// `request(.max(1))`), used by `testTryReduceFailureBecauseOfThrow`,
  /// ComparisonTests.swift `testTryComparisonFailureBecauseOfThrow`, ContainsTests.swift
  /// `testFailureBecauseOfThrow`, LastTests.swift `testTryLastWhereFinishesWhenErrorThrown`.
  @Test func aThrowCancelsUpstreamBeforeTheFailureArrives() {
    func check<P: Publisher>(_ name: String, _ make: (HandDrivenUpstream<Int, Never>) -> P)
    where P.Failure == any Error {
      let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
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
      if value == 3 { throw ParityFailure.thrown }
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
  /// Evidence (OpenCombine): ReduceTests.swift `testUpstreamFinishesWithError` (history stays
  /// `[.requested(.unlimited)]`; a second failure, `send(73) == .none` and `.finished` change
  /// nothing), used by the `…FinishesWithError` tests of Reduce, Count, Comparison, Contains,
  /// AllSatisfy and Last.
  @Test func anUpstreamFailureIsFinalAndCancelsNothing() {
    func check<P: Publisher>(_ make: (HandDrivenUpstream<Int, ParityFailure>) -> P) where P.Output: Equatable {
      let upstream = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
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
  /// Evidence (OpenCombine): AllSatisfyTests.swift `testContainsElementNotSatisfyingPredicate` (predicate
  /// called 5 times for -2, 0, 2, 4, 7 and still 5 after 8 and 3; history
  /// `[.requested(.unlimited), .cancelled]`), used by `testAllSatisfy…`, `testTryAllSatisfy…`
  /// and ContainsTests.swift `testContainsWhere…`, `testTryContainsWhere…`.
  @Test func aDecidedAnswerStopsThePredicateAndCancelsUpstream() {
    func check<P: Publisher>(expected: Bool, _ make: (HandDrivenUpstream<Int, Never>, @escaping (Int) -> Bool) -> P)
    where P.Output == Bool {
      let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
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
  /// Evidence (OpenCombine): ReduceTests.swift `testReceiveSubscriptionTwice` (second subscription
  /// `[.cancelled]`, then `[.cancelled, .cancelled]` after completion; the first keeps
  /// `[.requested(.unlimited)]`, plus `.cancelled` for an early answer), used by
  /// `testContainsReceiveSubscriptionTwice` and the other aggregates.
  @Test func aSecondSubscriptionIsCancelledBeforeAndAfterTheResult() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Bool, Never>(initialDemand: .max(1))
    upstream.contains(0).subscribe(subscriber)
    let second = SpySubscription()
    upstream.sendSubscription(second)
    #expect(second.events == [.cancelled])
    #expect(upstream.send(0) == .none)
    upstream.send(completion: .finished)
    upstream.sendSubscription(second)
    #expect(second.events == [.cancelled, .cancelled])
    #expect(upstream.events == [.requested(.unlimited), .cancelled])
    #expect(subscriber.events == [.subscription, .value(true), .completion(.finished)])
    upstream.detach()

    let counted = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let countSubscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    counted.count().subscribe(countSubscriber)
    let extra = SpySubscription()
    #expect(counted.send(0) == .none)
    counted.send(completion: .finished)
    counted.sendSubscription(extra)
    #expect(extra.events == [.cancelled])
    #expect(counted.events == [.requested(.unlimited)])
    #expect(countSubscriber.events == [.subscription, .value(1), .completion(.finished)])
    counted.detach()
  }

  /// Cancelling twice, or requesting after a cancel, reaches upstream once, as one cancel.
  /// Evidence (OpenCombine): ReduceTests.swift `testCancelAlreadyCancelled` (history
  /// `[.requested(.unlimited), .cancelled]`), used by the `…CancelAlreadyCancelled` tests of
  /// Comparison, TryComparison, Contains, ContainsWhere, TryContainsWhere, Count and Last.
  @Test func aSecondCancelAndALateRequestDoNotReachUpstream() {
    func check<P: Publisher>(_ name: String, _ make: (HandDrivenUpstream<Int, Never>) -> P) {
      let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
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
  /// Evidence (OpenCombine): ReduceTests.swift `testReduceReceiveValueBeforeSubscription`
  /// (`.history([], demand: .none)`), `testReduceReceiveCompletionBeforeSubscription`
  /// (`.history([])`), and the same tests for Count, Comparison, Contains, AllSatisfy and Last.
  @Test func eventsBeforeTheSubscriptionAreIgnored() {
    func check<P: Publisher>(_ make: (HandDrivenUpstream<Int, Never>) -> P) {
      let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
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

  /// The aggregating operators ask for `.unlimited` at once and hold the result until the
  /// downstream asks, also when it asks only after upstream finished.
  /// Evidence: OpenCombine Tests/OpenCombineTests/PublisherTests/CountTests.swift,
  /// ReduceTests.swift (ReduceProducer).
  @Test func aggregatesHoldTheResultUntilDemandAfterUpstreamFinished() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let counted = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.count().subscribe(counted)
    #expect(upstream.link?.requests == [.unlimited])
    #expect(upstream.send(1) == .none)
    #expect(upstream.send(2) == .none)
    upstream.send(completion: .finished)
    #expect(counted.events == [.subscription])
    counted.request(.max(1))
    #expect(counted.events == [.subscription, .value(2), .completion(.finished)])

    let collecting = HandDrivenUpstream<Int, Never>()
    let collected = TestSubscriber<[Int], Never>(initialDemand: .none)
    collecting.collect().subscribe(collected)
    collecting.send(completion: .finished)
    #expect(collected.events == [.subscription])
    collected.request(.max(1))
    #expect(collected.events == [.subscription, .value([]), .completion(.finished)])

    // An empty result's completion waits for demand too (LastTests.testLastFinishesImmediatelyWithoutDemand).
    let lastOf = HandDrivenUpstream<Int, Never>()
    let last = TestSubscriber<Int, Never>(initialDemand: .none)
    lastOf.last().subscribe(last)
    lastOf.send(completion: .finished)
    #expect(last.events == [.subscription])
    last.request(.max(1))
    #expect(last.events == [.subscription, .completion(.finished)])
  }
}

/// Races between upstream finishing and downstream requesting or cancelling: the result is
/// delivered exactly once, or not at all after a cancel, and calls never overlap.
@Suite(.leakChecked)
struct ReductionStressTests {
  @Test func requestRacingCompletionDeliversExactlyOnce() {
    for _ in 0..<2_000 {
      let subject = PassthroughSubject<Int, Never>()
      let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
      subject.count().subscribe(subscriber)
      subject.send(1)
      subject.send(2)

      DispatchQueue.concurrentPerform(iterations: 2) { side in
        if side == 0 {
          subject.send(completion: .finished)
        } else {
          subscriber.request(.max(1))
        }
      }

      #expect(subscriber.events == [.subscription, .value(2), .completion(.finished)])
      #expect(subscriber.violations.isEmpty)
    }
  }

  @Test func cancelRacingCompletionNeverDeliversAfterwards() {
    for _ in 0..<2_000 {
      let subject = PassthroughSubject<Int, Never>()
      let subscriber = TestSubscriber<Int, Never>()
      subject.count().subscribe(subscriber)
      subject.send(1)

      DispatchQueue.concurrentPerform(iterations: 2) { side in
        if side == 0 {
          subject.send(completion: .finished)
        } else {
          subscriber.cancel()
        }
      }

      let events = subscriber.events
      #expect(
        events == [.subscription] || events == [.subscription, .value(1)]
          || events == [.subscription, .value(1), .completion(.finished)])
      #expect(subscriber.violations.isEmpty)
    }
  }
}

/// The reducing operators whose subscription has Combine's reduce-like mirror, with the
/// description Combine gives it.
enum ReflectedReduction: CaseIterable {
  case reduce, tryReduce, count, min, max, tryMin, first, firstWhere, tryFirstWhere, last, lastWhere
  case tryLastWhere, contains, containsWhere, tryContainsWhere, allSatisfy, tryAllSatisfy

  var combineName: String {
    switch self {
    case .reduce: "Reduce"
    case .tryReduce: "TryReduce"
    case .count: "Count"
    case .min, .max: "Comparison"
    case .tryMin: "TryComparison"
    case .first: "First"
    // Combine's name for first(where:).
    case .firstWhere: "TryFirst"
    case .tryFirstWhere: "TryFirstWhere"
    case .last: "Last"
    case .lastWhere: "LastWhere"
    case .tryLastWhere: "TryLastWhere"
    case .contains: "Contains"
    case .containsWhere: "ContainsWhere"
    case .tryContainsWhere: "TryContainsWhere"
    case .allSatisfy: "AllSatisfy"
    case .tryAllSatisfy: "TryAllSatisfy"
    }
  }

  /// Subscribes a subscriber that asks for nothing to the operator applied to `upstream`.
  func subscribe(to upstream: HandDrivenUpstream<Int, Never>) {
    let integers = TestSubscriber<Int, Never>(initialDemand: .none)
    let booleans = TestSubscriber<Bool, Never>(initialDemand: .none)
    switch self {
    case .reduce: upstream.reduce(0, +).subscribe(integers)
    case .tryReduce: upstream.tryReduce(0, +).replaceError(with: 0).subscribe(integers)
    case .count: upstream.count().subscribe(integers)
    case .min: upstream.min().subscribe(integers)
    case .max: upstream.max().subscribe(integers)
    case .tryMin: upstream.tryMin(by: <).replaceError(with: 0).subscribe(integers)
    case .first: upstream.first().subscribe(integers)
    case .firstWhere: upstream.first { $0 > 0 }.subscribe(integers)
    case .tryFirstWhere: upstream.tryFirst { $0 > 0 }.replaceError(with: 0).subscribe(integers)
    case .last: upstream.last().subscribe(integers)
    case .lastWhere: upstream.last { $0 > 0 }.subscribe(integers)
    case .tryLastWhere: upstream.tryLast { $0 > 0 }.replaceError(with: 0).subscribe(integers)
    case .contains: upstream.contains(1).subscribe(booleans)
    case .containsWhere: upstream.contains { $0 > 0 }.subscribe(booleans)
    case .tryContainsWhere: upstream.tryContains { $0 > 0 }.replaceError(with: false).subscribe(booleans)
    case .allSatisfy: upstream.allSatisfy { $0 > 0 }.subscribe(booleans)
    case .tryAllSatisfy: upstream.tryAllSatisfy { $0 > 0 }.replaceError(with: false).subscribe(booleans)
    }
  }
}

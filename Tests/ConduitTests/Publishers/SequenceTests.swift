import Conduit
import ConduitTesting
import Testing

private enum SequenceTestError: Error, Equatable {
  case failed
}

/// Counts values without recording them, asking for one more from each: the shape that would
/// recurse once per element if delivery were not trampolined.
private final class CountingSubscriber: Subscriber {
  private(set) var count = 0
  private(set) var completion: Subscribers.Completion<Never>?

  func receive(subscription: any Subscription) {
    subscription.request(.max(1))
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    count += 1
    return .max(1)
  }

  func receive(completion: Subscribers.Completion<Never>) {
    self.completion = completion
  }
}

/// Requests the next value from inside `receive(_:)` instead of returning demand.
private final class ReentrantCountingSubscriber: Subscriber {
  private var subscription: (any Subscription)?
  private(set) var count = 0
  private(set) var completion: Subscribers.Completion<Never>?

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    subscription.request(.max(1))
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    count += 1
    subscription?.request(.max(1))
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    self.completion = completion
    subscription = nil
  }
}

@Suite(.leakChecked)
struct SequenceTests {
  // MARK: Values and completion

  @Test func deliversEveryValueThenFinishes() {
    let subscriber = TestSubscriber<Int, Never>()
    [1, 2, 3].publisher.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func worksWithAnySequence() {
    let subscriber = TestSubscriber<Int, Never>()
    (1...5).publisher.subscribe(subscriber)
    #expect(subscriber.values == [1, 2, 3, 4, 5])
    let strings = TestSubscriber<Character, Never>()
    "abc".publisher.subscribe(strings)
    #expect(strings.values == ["a", "b", "c"])
    #expect(strings.completion == .finished)
  }

  @Test func finishesRightAfterTheLastValueWithoutMoreDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
    [1, 2, 3].publisher.subscribe(subscriber)
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func emptySequenceCompletesImmediately() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    [Int]().publisher.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func typedFailureSequenceFinishes() {
    let publisher = Publishers.Sequence<[Int], SequenceTestError>(sequence: [1, 2])
    #expect(publisher.sequence == [1, 2])
    let subscriber = TestSubscriber<Int, SequenceTestError>()
    publisher.subscribe(subscriber)
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion == .finished)
  }

  @Test func equatableBySequence() {
    #expect([1, 2].publisher == [1, 2].publisher)
    #expect([1, 2].publisher != [2, 1].publisher)
  }

  @Test func everySubscriberGetsEveryValue() {
    let publisher = [1, 2].publisher
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    publisher.subscribe(first)
    publisher.subscribe(second)
    #expect(first.values == [1, 2])
    #expect(second.values == [1, 2])
  }

  // MARK: Demand

  @Test func nothingWithoutDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    [1, 2].publisher.subscribe(subscriber)
    #expect(subscriber.events == [.subscription])
    subscriber.cancel()
  }

  @Test func oneAtATimeOnRequest() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    [1, 2, 3, 4].publisher.subscribe(subscriber)
    #expect(subscriber.values == [1])
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2])
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == nil)
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2, 3, 4])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func requestsAddUp() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    (1...10).publisher.subscribe(subscriber)
    subscriber.request(.max(2))
    subscriber.request(.max(3))
    #expect(subscriber.values == Array(1...6))
    subscriber.request(.unlimited)
    #expect(subscriber.values == Array(1...10))
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func demandReturnedFromEachValueKeepsItFlowing() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (1...5).publisher.subscribe(subscriber)
    #expect(subscriber.values == [1, 2, 3, 4, 5])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func requestFromInsideReceiveIsHonouredInOrder() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subscriber.onValue { [weak subscriber] _ in subscriber?.request(.max(1)) }
    (1...5).publisher.subscribe(subscriber)
    #expect(subscriber.values == [1, 2, 3, 4, 5])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func millionElementsOneAtATimeDoNotOverflowTheStack() {
    let subscriber = CountingSubscriber()
    (0..<1_000_000).publisher.subscribe(subscriber)
    #expect(subscriber.count == 1_000_000)
    #expect(subscriber.completion == .finished)
  }

  @Test func millionReentrantRequestsDoNotOverflowTheStack() {
    let subscriber = ReentrantCountingSubscriber()
    (0..<1_000_000).publisher.subscribe(subscriber)
    #expect(subscriber.count == 1_000_000)
    #expect(subscriber.completion == .finished)
  }

  // MARK: Cancellation

  @Test func cancelBetweenRequestsStopsValues() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    (1...5).publisher.subscribe(subscriber)
    let subscription = subscriber.subscription
    subscriber.cancel()
    subscription?.request(.max(3))
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion == nil)
  }

  @Test func cancelFromInsideReceiveStopsValues() {
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { [weak subscriber] value in
      if value == 2 { subscriber?.cancel() }
    }
    (1...5).publisher.subscribe(subscriber)
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion == nil)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelOnTheLastValueSendsNoCompletion() {
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { [weak subscriber] value in
      if value == 3 { subscriber?.cancel() }
    }
    [1, 2, 3].publisher.subscribe(subscriber)
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == nil)
  }

  @Test func cancelIsIdempotent() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    [1, 2].publisher.subscribe(subscriber)
    let subscription = subscriber.subscription
    subscription?.cancel()
    subscription?.cancel()
    subscriber.cancel()
    #expect(subscriber.values == [1])
  }

  // As in Combine (OpenCombine's SequenceTests.swift `testReflection`): by the sequence itself.
  @Test func subscriptionIsDescribedByTheSequence() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    [1, 2].publisher.subscribe(subscriber)
    #expect((subscriber.subscription as? any CustomStringConvertible)?.description == "[1, 2]")
    subscriber.cancel()
  }

  // As in Combine (OpenCombine's SequenceTests.swift `testReflection`,
  // `testSequenceNoInitialDemand`): one child, the sequence, empty once the subscription has
  // ended; the playground shows the description.
  @Test func subscriptionReflectsItsSequence() throws {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    (1...5).publisher.subscribe(subscriber)
    let subscription = try #require(subscriber.subscription.flatMap { $0 as? any CustomReflectable })
    let children = subscription.customMirror.children.map { ($0.label, String(describing: $0.value)) }
    #expect(children.map(\.0) == ["sequence"])
    #expect(children.map(\.1) == ["1...5"])
    #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "1...5")
    subscriber.request(.unlimited)
    #expect(subscription.customMirror.children.map { String(describing: $0.value) } == ["[]"])
    #expect((subscription as? any CustomStringConvertible)?.description == "Sequence")
  }

  // As in Combine (OpenCombine's SequenceTests.swift `testRecursion`,
  // `testSequenceNoInitialDemand`): a request for nothing changes nothing, from inside
  // `receive(subscription:)` too.
  @Test func aRequestForNothingChangesNothing() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    (1...3).publisher.subscribe(subscriber)
    subscriber.subscription?.request(.none)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(2))
    subscriber.subscription?.request(.none)
    #expect(subscriber.values == [1, 2])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)])
    var values: [Int] = []
    (1...3).publisher.subscribe(
      AnySubscriber<Int, Never>(
        receiveSubscription: {
          $0.request(.none)
          $0.request(.max(3))
        },
        receiveValue: {
          values.append($0)
          return .none
        }))
    #expect(values == [1, 2, 3])
  }

  // MARK: References

  @Test func finishedSubscriptionReleasesTheSubscriber() {
    weak var weakProbe: CapturedProbe?
    var subscription: (any Subscription)?
    var values: [Int] = []
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      [1, 2].publisher.subscribe(
        AnySubscriber<Int, Never>(
          receiveSubscription: { subscription = $0 },
          receiveValue: {
            _ = probe
            values.append($0)
            return .none
          }))
    }
    #expect(weakProbe != nil)
    subscription?.request(.max(2))
    #expect(values == [1, 2])
    #expect(weakProbe == nil)
    subscription = nil
  }

  @Test func cancelMidwayReleasesTheSubscriber() {
    weak var weakProbe: CapturedProbe?
    var subscription: (any Subscription)?
    var values: [Int] = []
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      (1...5).publisher.subscribe(
        AnySubscriber<Int, Never>(
          receiveSubscription: { subscription = $0 },
          receiveValue: {
            _ = probe
            values.append($0)
            return .none
          }))
    }
    subscription?.request(.max(2))
    #expect(weakProbe != nil)
    subscription?.cancel()
    #expect(weakProbe == nil)
    subscription?.request(.max(2))
    #expect(values == [1, 2])
    subscription = nil
  }

  // The sequence's iterator can hold what the sequence captured, here a lazy `map`'s closure; a
  // subscriber that keeps its subscription after cancelling must not keep that alive.
  @Test func cancelMidwayReleasesTheSequence() {
    weak var weakProbe: CapturedProbe?
    var subscription: (any Subscription)?
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      (1...5).lazy.map { value in withExtendedLifetime(probe) { value * 10 } }.publisher.subscribe(subscriber)
      subscription = subscriber.subscription
    }
    #expect(subscriber.values == [10, 20])
    #expect(weakProbe != nil)
    subscriber.cancel()
    #expect(weakProbe == nil)
    #expect(subscription != nil)
    subscription = nil
  }

  @Test func cancelFromInsideReceiveReleasesTheSubscriber() {
    weak var weakProbe: CapturedProbe?
    var subscription: (any Subscription)?
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      (1...5).publisher.subscribe(
        AnySubscriber<Int, Never>(
          receiveSubscription: {
            subscription = $0
            $0.request(.unlimited)
          },
          receiveValue: { value in
            _ = probe
            if value == 2 { subscription?.cancel() }
            return .none
          }))
    }
    #expect(subscription != nil)
    #expect(weakProbe == nil)
    subscription = nil
  }

  @Test func sinkReleasesItsClosuresAfterCompletion() {
    weak var weakProbe: CapturedProbe?
    var token: AnyCancellable?
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      token = [1, 2].publisher.sink { _ in _ = probe }
    }
    #expect(token != nil)
    #expect(weakProbe == nil)
    token = nil
  }

  /// A sequence's subscription describes itself by the sequence it publishes while it is
  /// publishing, and as "Sequence" once it has finished; an empty sequence hands the empty
  /// subscription.
  /// Evidence (OpenCombine): SequenceTests.swift `testReflection` (`description: "1...5"` for `(1...5)`),
  /// `testSequenceNoInitialDemand` (`.subscription("Sequence")` once finished) and
  /// `testEmptySequence` (`"Empty"`).
  @Test func sequenceSubscriptionIsDescribedByItsSequence() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    (1...5).publisher.subscribe(subscriber)
    let finished = subscriber.subscription
    #expect(subscriptionDescription(finished) == "1...5")
    subscriber.request(.unlimited)
    #expect(subscriber.values == [1, 2, 3, 4, 5])
    #expect(subscriptionDescription(finished) == "Sequence")

    let cancelled = TestSubscriber<Int, Never>(initialDemand: .none)
    [7, 8].publisher.subscribe(cancelled)
    #expect(subscriptionDescription(cancelled.subscription) == "[7, 8]")
    let subscription = cancelled.subscription
    cancelled.cancel()
    #expect(subscriptionDescription(subscription) == "Sequence")

    let empty = CancellingSubscriber<Int, Never>(cancels: false)
    [Int]().publisher.subscribe(empty)
    #expect(empty.calls == ["subscription Empty", "finished"])
  }

  /// A request then a cancel from inside `receive(subscription:)` give the first value only; a
  /// cancel from inside `receive(_:)` that returns `.unlimited` stops everything; a later
  /// request brings nothing.
  /// Evidence (OpenCombine): SequenceTests.swift `testCancelOnSubscription` and `testCancelOnValue`.
  @Test func sequenceCancelledFromInsideDeliversNothingMore() {
    let onSubscription = ReentrantSubscriber<Int, Never>(onSubscription: {
      $0.request(.max(1)); $0.cancel()
    })
    (0..<3).publisher.subscribe(onSubscription)
    onSubscription.subscription?.request(.max(1))
    #expect(onSubscription.calls == ["subscription", "0"])

    let onValue = ReentrantSubscriber<Int, Never>(
      onSubscription: { $0.request(.unlimited) }, onValue: { $0.cancel() }, returning: .unlimited)
    (0..<3).publisher.subscribe(onValue)
    onValue.subscription?.request(.max(1))
    #expect(onValue.calls == ["subscription", "0"])
  }

  /// Demand returned from `receive(_:)` adds to what is left.
  /// Evidence (OpenCombine): SequenceTests.swift `testSequenceInitialDemand` (values 0 … 7 of ten).
  @Test func sequenceAddsDemandReturnedFromEachValue() {
    let subscriber = ReentrantSubscriber<Int, Never>(
      onSubscription: { $0.request(.max(1)) }, returningFor: { $0 > 3 || $0 == 0 ? .none : .max(2) })
    (0..<10).publisher.subscribe(subscriber)
    #expect(subscriber.calls == ["subscription", "0"])
    subscriber.subscription?.request(.max(1))
    #expect(subscriber.calls == ["subscription"] + (0...7).map(String.init))
    subscriber.subscription?.cancel()
  }

  /// Evidence: OpenCombine Sources/OpenCombine/Publishers/Publishers.Sequence.swift (the eager
  /// overloads, mirroring Combine's interface). (Matches.)
  @Test func sequenceOverloadsKeepCombinesTypesAndValues() {
    let filtered: Publishers.Sequence<[Int], Never> = [1, 2, 3].publisher.filter { $0 > 1 }
    #expect(filtered.sequence == [2, 3])
    let counted: Just<Int> = [1, 2].publisher.count()
    #expect(counted.output == 2)
    let first: Optional<Int>.Publisher = [4, 5].publisher.first()
    #expect(first.output == 4)
    let outOfRange: Optional<Int>.Publisher = [4, 5].publisher.output(at: 7)
    #expect(outOfRange.output == nil)
    let prefixed: Publishers.Sequence<PrefixSequence<[Int]>, Never> = [1, 2, 3].publisher.prefix(2)
    #expect(Array(prefixed.sequence) == [1, 2])
    let smallest: Optional<Int>.Publisher = [3, 1, 2].publisher.min()
    #expect(smallest.output == 1)
    let noSmallest: Optional<Int>.Publisher = [Int]().publisher.min()
    #expect(noSmallest.output == nil)
    let unique: Publishers.Sequence<[Int], Never> = [1, 1, 2, 1].publisher.removeDuplicates()
    #expect(unique.sequence == [1, 2, 1])
  }
}

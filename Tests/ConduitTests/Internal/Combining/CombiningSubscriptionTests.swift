import ConduitTesting
import Synchronization
import Testing

@testable import Conduit

/// The machinery `merge`, `zip` and `combineLatest` share, seen through all three.
@Suite(.leakChecked)
struct CombiningSubscriptionTests {
  @Test func describesItselfWithCombinesNames() {
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let merged = TestSubscriber<Int, Never>()
    let zipped = TestSubscriber<(Int, Int), Never>()
    let combined = TestSubscriber<(Int, Int), Never>()
    first.merge(with: second).subscribe(merged)
    first.zip(second).subscribe(zipped)
    first.combineLatest(second).subscribe(combined)

    #expect(merged.subscription.map { "\($0)" } == "Merge")
    #expect(zipped.subscription.map { "\($0)" } == "Zip")
    #expect(combined.subscription.map { "\($0)" } == "CombineLatest")
    for subscription in [merged.subscription, zipped.subscription, combined.subscription] {
      subscription?.cancel()
    }
  }

  /// A strategy of size zero sits at offset 0 of its subscription, where ThreadSanitizer takes
  /// each modifying access to it for a write to the object's header (see `MergeStrategy.sized`):
  /// the stress suite under `--sanitize=thread` reported races on every concurrent merge.
  /// `CombiningSubscription.init` asserts the same for any strategy, in debug builds.
  @Test func everyStrategyTakesRoomInItsSubscription() {
    #expect(MemoryLayout<MergeStrategy<Int>>.size > 0)
    #expect(MemoryLayout<CombineLatestStrategy<Slots2<Int, Int>>>.size > 0)
    #expect(MemoryLayout<ZipStrategy<Slots2<Int, Int>>>.size > 0)
  }

  @Test func downstreamGetsItsSubscriptionBeforeAnyValueOfASynchronousUpstream() {
    let subscriber = TestSubscriber<Int, Never>()
    Just(1).merge(with: Just(2)).subscribe(subscriber)

    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancellingInsideReceiveSubscriptionCancelsEachUpstreamAsItSubscribes() {
    let first = CombiningProbe<Int, Never>()
    let second = CombiningProbe<Int, Never>()
    let subscriber = CancelOnSubscribe<(Int, Int)>()
    first.zip(second).subscribe(subscriber)

    #expect(first.cancelled)
    #expect(second.cancelled)
    #expect(first.requests.isEmpty)
  }

  @Test func anUpstreamThatSubscribesLateIsAskedForEverythingRequestedSoFar() {
    let first = CombiningProbe<Int, Never>()
    let late = CombiningProbe<Int, Never>(subscribesImmediately: false)
    let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .max(2))
    first.zip(late).subscribe(subscriber)
    subscriber.request(.max(3))
    late.giveSubscription()

    #expect(first.requests == [.max(2), .max(3)])
    #expect(late.requests == [.max(5)])
    subscriber.cancel()
    #expect(first.cancelled && late.cancelled)
  }

  @Test func aSecondSubscriptionFromOneUpstreamIsCancelled() {
    let twice = SubscribesTwice<Int>()
    let other = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    twice.merge(with: other).subscribe(subscriber)

    #expect(twice.first.cancelled == false)
    #expect(twice.second.cancelled)
    subscriber.cancel()
    #expect(twice.first.cancelled)
  }

  @Test func cancellingInsideReceiveStopsTheDeliveryOfQueuedOutputs() {
    let first = CombiningProbe<Int, Never>()
    let second = CombiningProbe<Int, Never>()
    let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .none)
    first.zip(second).subscribe(subscriber)
    for value in 1...3 {
      first.send(value)
      second.send(-value)
    }
    subscriber.onValue { _ in subscriber.cancel() }
    subscriber.request(.max(3))

    #expect(described(subscriber.values) == ["(1, -1)"])
    #expect(first.cancelled && second.cancelled)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancellingInsideReceiveCancelsTheUpstreamsBeforeItReturns() {
    // As in Combine: `cancel()` has cancelled the upstreams when it returns, even from inside a
    // delivery, while the subscription is busy delivering.
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    var log: [String] = []
    first.handleEvents(receiveCancel: { log.append("first cancelled") })
      .merge(with: second.handleEvents(receiveCancel: { log.append("second cancelled") }))
      .subscribe(subscriber)
    subscriber.onValue { _ in
      log.append("value")
      subscriber.cancel()
      log.append("cancel returned")
    }
    first.send(1)
    first.send(2)

    #expect(log == ["value", "first cancelled", "second cancelled", "cancel returned"])
    #expect(subscriber.values == [1])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aMergeAsksForTheNextValueAsAWaitingValueGoesDown() {
    // As in Combine; asking later would leave a subject that drops what it cannot send without
    // demand for longer.
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    var log: [String] = []
    first.handleEvents(receiveRequest: { log.append("first asked for \($0)") })
      .merge(with: second)
      .subscribe(subscriber)
    subscriber.onValue { log.append("got \($0)") }
    first.send(1)
    subscriber.request(.max(1))

    #expect(log == ["first asked for max(1)", "first asked for max(1)", "got 1"])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func aValueSentFromInsideReceiveWaitsUntilReceiveReturns() {
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    var order: [String] = []
    first.merge(with: second).subscribe(subscriber)
    subscriber.onValue { value in
      order.append("enter \(value)")
      if value == 1 { second.send(2) }
      order.append("leave \(value)")
    }
    first.send(1)

    #expect(subscriber.values == [1, 2])
    #expect(order == ["enter 1", "leave 1", "enter 2", "leave 2"])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func upstreamsAreAskedOnlyOnceTheDownstreamCallReturned() {
    // A synchronous upstream that delivers from inside `request` goes through the uncontended
    // path: every pair arrives, one request at a time.
    let subscriber = TestSubscriber<(Int, String), Never>(initialDemand: .max(1), demandPerValue: .max(1))
    [1, 2, 3].publisher.zip(["a", "b", "c"].publisher).subscribe(subscriber)

    #expect(described(subscriber.values) == ["(1, \"a\")", "(2, \"b\")", "(3, \"c\")"])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  /// Contract 6: synchronous upstreams asked for one value at a time, from inside `receive(_:)`
  /// or by its return value, deliver in a loop rather than a recursion (too deep a recursion
  /// would overflow the stack long before this many values).
  @Test func synchronousUpstreamsAskedOneValueAtATimeDoNotDeepenTheStack() {
    let count = 100_000
    let inside = OneAtATimeSubscriber<(Int, Int)>()
    (0..<count).publisher.zip((0..<count).publisher).subscribe(inside)
    #expect(inside.count == count)
    #expect(inside.finished)

    let merged = OneAtATimeSubscriber<Int>()
    (0..<count).publisher.merge(with: (0..<count).publisher).subscribe(merged)
    #expect(merged.count == 2 * count)
    #expect(merged.finished)

    let returned = TestSubscriber<(Int, Int), Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (0..<count).publisher.combineLatest((0..<count).publisher).subscribe(returned)
    #expect(returned.completion == .finished)
    #expect(returned.violations.isEmpty)
  }

  @Test func releasesTheDownstreamAndUpstreamsWhenItCompletes() {
    weak var weakSubscriber: TestSubscriber<(Int, Int), Never>?
    do {
      let subscriber = TestSubscriber<(Int, Int), Never>()
      weakSubscriber = subscriber
      Just(1).combineLatest(Just(2)).subscribe(subscriber)
      #expect(subscriber.completion == .finished)
    }
    #expect(weakSubscriber == nil)
  }

  /// A request made from inside `receive(subscription:)` is applied at once, with no upstream
  /// attached yet; an inner combining operator's comes from inside its downstream's (the outer
  /// side's) `receive(subscription:)`.
  @Test func nestedSynchronousCombiningDeliversInOrderOneAtATime() {
    let zipped = TestSubscriber<(Int, Int), Never>(initialDemand: .max(1), demandPerValue: .max(1))
    Just(1).zip(Publishers.MergeMany([Just(2), Just(3)])).subscribe(zipped)
    #expect(described(zipped.values) == ["(1, 2)"])
    #expect(zipped.completion == .finished)
    #expect(zipped.violations.isEmpty)

    let merged = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    Publishers.Merge(Publishers.MergeMany([Just<Int>]()), Just(1)).subscribe(merged)
    #expect(merged.events == [.subscription, .value(1), .completion(.finished)])
    #expect(merged.violations.isEmpty)
  }

  /// Contract 7 for the values the slots keep: a cancel or a failure forgets them, while the
  /// subscription itself is still referenced.
  @Test func endingForgetsTheValuesTheSlotsKeep() {
    final class Payload {}
    struct Failed: Error, Equatable {}
    let first = PassthroughSubject<Payload, Failed>()
    let second = PassthroughSubject<Payload, Failed>()
    let zipped = TestSubscriber<(Payload, Payload), Failed>()
    let combined = TestSubscriber<(Payload, Payload), Failed>()
    first.zip(second).subscribe(zipped)
    first.combineLatest(second).subscribe(combined)
    let subscriptions = [zipped.subscription, combined.subscription]
    weak var queued: Payload?
    do {
      let payload = Payload()
      queued = payload
      first.send(payload)
    }
    #expect(queued != nil)
    zipped.cancel()
    #expect(queued != nil)
    second.send(completion: .failure(Failed()))
    #expect(combined.completion == .failure(Failed()))
    #expect(queued == nil)
    withExtendedLifetime(subscriptions) {}
  }
}

/// Requests and cancels from another thread while the downstream gets its subscription and the
/// upstreams attach: nobody owns the subscription then, so these race with the subscribing thread
/// for it.
@Suite(.leakChecked, .serialized)
struct CombiningSubscriptionStressTests {
  private typealias Round = (publisher: AnyPublisher<Int, Never>, subscriber: TestSubscriber<Int, Never>)

  private static let publishers: [(name: String, make: @Sendable () -> AnyPublisher<Int, Never>, values: [Int])] = [
    ("merge", { Publishers.MergeMany([Just(1), Just(2)]).eraseToAnyPublisher() }, [1, 2]),
    ("merge of nothing", { Publishers.MergeMany([Just<Int>]()).eraseToAnyPublisher() }, []),
    ("zip", { Just(1).zip(Just(2)).map { $0 * 10 + $1 }.eraseToAnyPublisher() }, [12]),
    ("combineLatest", { Just(1).combineLatest(Just(2)).map { $0 * 10 + $1 }.eraseToAnyPublisher() }, [12]),
  ]

  /// Runs `other` on a second thread once the subscriber has had its subscription (a merge of
  /// nothing has already finished then), while the first thread may still be subscribing.
  private static func race(
    _ make: @escaping () -> AnyPublisher<Int, Never>, other: @escaping (TestSubscriber<Int, Never>) -> Void,
    check: @escaping (TestSubscriber<Int, Never>) -> String?
  ) -> String? {
    ConduitTests.race(
      rounds: 2_000,
      setup: { () -> Round in (make(), TestSubscriber(initialDemand: .none)) },
      sides: [
        { round in round.publisher.subscribe(round.subscriber) },
        { round in
          // Every publisher here gives its subscription synchronously, so this ends. A bounded
          // wait could run out while the subscribing thread is starved, and a request made
          // before the subscription is lost (the subscriber resets its demand then).
          spin(until: { round.subscriber.subscriptionCount > 0 })
          other(round.subscriber)
        },
      ],
      check: { round in
        defer { round.subscriber.cancel() }
        if round.subscriber.events.first != .subscription { return "events \(round.subscriber.events)" }
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        return check(round.subscriber)
      })
  }

  /// Each value arrives once. A merge's upstreams may deliver in either order: when the other
  /// thread owns the subscription as the first upstream's subscription arrives, it asks that
  /// upstream for its value while the subscribing thread asks the second, as with Combine's
  /// `Merge`, which asks subscribed upstreams on the requesting thread.
  @Test func aRequestFromAnotherThreadWhileSubscribingIsMetExactly() {
    for publisher in Self.publishers {
      let problem = Self.race(
        publisher.make, other: { $0.request(.max(2)) },
        check: { subscriber in
          if subscriber.values.sorted() != publisher.values { return "values \(subscriber.values)" }
          if subscriber.completion != .finished { return "completion \(String(describing: subscriber.completion))" }
          return nil
        })
      #expect(problem == nil, "\(publisher.name)")
    }
  }

  @Test func aCancelFromAnotherThreadWhileSubscribingStopsEverything() {
    for publisher in Self.publishers {
      let problem = Self.race(
        publisher.make, other: { $0.cancel() },
        check: { subscriber in subscriber.values.isEmpty ? nil : "values \(subscriber.values)" })
      #expect(problem == nil, "\(publisher.name)")
    }
  }
}

/// A publisher for tests: records what its one subscriber asks of it, and lets the test send
/// values and a completion (without checking demand: tests check what was requested).
final class CombiningProbe<Output, Failure: Error>: Publisher, Subscription, @unchecked Sendable {
  private struct State {
    var subscriber: AnySubscriber<Output, Failure>?
    var requests: [Subscribers.Demand] = []
    var cancelled = false
  }

  // Guarded by its own lock.
  private let state = Mutex(UncheckedState(State()))
  private let subscribesImmediately: Bool

  /// A probe that gives its subscriber the subscription at once, or only on `giveSubscription()`.
  init(subscribesImmediately: Bool = true) {
    self.subscribesImmediately = subscribesImmediately
  }

  /// The demands requested, in order, including those returned from `receive(_:)`.
  var requests: [Subscribers.Demand] { withState { $0.requests } }
  var cancelled: Bool { withState { $0.cancelled } }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    withState { $0.subscriber = AnySubscriber(subscriber) }
    if subscribesImmediately { subscriber.receive(subscription: self) }
  }

  func giveSubscription() {
    withState { $0.subscriber }?.receive(subscription: self)
  }

  func send(_ value: Output) {
    guard let subscriber = withState({ $0.subscriber }) else { return }
    let more = subscriber.receive(value)
    if more > 0 { withState { $0.requests.append(more) } }
  }

  func send(completion: Subscribers.Completion<Failure>) {
    let subscriber = withState { state -> AnySubscriber<Output, Failure>? in
      defer { state.subscriber = nil }
      return state.subscriber
    }
    subscriber?.receive(completion: completion)
  }

  func request(_ demand: Subscribers.Demand) {
    withState { $0.requests.append(demand) }
  }

  func cancel() {
    withState { state in
      state.cancelled = true
      state.subscriber = nil
    }
  }

  private func withState<R>(_ body: (inout State) -> R) -> R {
    state.withLock { UncheckedState(body(&$0.value)) }.value
  }
}

/// Carries test state through `Mutex.withLock`.
struct UncheckedState<Value>: @unchecked Sendable {
  var value: Value
  init(_ value: Value) { self.value = value }
}

/// Cancels its subscription as soon as it gets it.
private final class CancelOnSubscribe<Input>: Subscriber {
  typealias Failure = Never
  func receive(subscription: any Subscription) { subscription.cancel() }
  func receive(_ input: Input) -> Subscribers.Demand { .none }
  func receive(completion: Subscribers.Completion<Never>) {}
}

/// Misbehaves: gives its subscriber two subscriptions.
private struct SubscribesTwice<Output>: Publisher {
  typealias Failure = Never
  let first = CombiningProbe<Output, Never>()
  let second = CombiningProbe<Output, Never>()

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
    subscriber.receive(subscription: first)
    subscriber.receive(subscription: second)
  }
}

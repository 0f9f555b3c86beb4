import Conduit
import ConduitTesting
import Dispatch
import Testing

private enum FutureTestError: Error, Equatable {
  case failed
  case other
}

/// Carries a promise to another thread; the future it fulfils is thread-safe.
private struct SendablePromise<Output, Failure: Error>: @unchecked Sendable {
  let fulfil: Future<Output, Failure>.Promise
}

@Suite(.leakChecked)
struct FutureTests {
  // MARK: The closure and the promise

  @Test func closureRunsOnceAtInitNotPerSubscriber() {
    var calls = 0
    let future = Future<Int, Never> { promise in
      calls += 1
      promise(.success(calls))
    }
    #expect(calls == 1)
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    future.subscribe(first)
    future.subscribe(second)
    #expect(calls == 1)
    #expect(first.values == [1])
    #expect(second.values == [1])
  }

  @Test func firstPromiseWins() {
    var promise: Future<Int, FutureTestError>.Promise?
    let future = Future<Int, FutureTestError> { promise = $0 }
    let subscriber = TestSubscriber<Int, FutureTestError>()
    future.subscribe(subscriber)
    promise?(.success(1))
    promise?(.success(2))
    promise?(.failure(.failed))
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)

    let late = TestSubscriber<Int, FutureTestError>()
    future.subscribe(late)
    #expect(late.values == [1])
    promise = nil
  }

  @Test func firstFailureWins() {
    var promise: Future<Int, FutureTestError>.Promise?
    let future = Future<Int, FutureTestError> { promise = $0 }
    let subscriber = TestSubscriber<Int, FutureTestError>()
    future.subscribe(subscriber)
    promise?(.failure(.failed))
    promise?(.success(2))
    promise?(.failure(.other))
    #expect(subscriber.events == [.subscription, .completion(.failure(.failed))])
    promise = nil
  }

  // MARK: Replay

  @Test func lateSubscribersGetTheValueReplayed() {
    let future = Future<Int, Never> { $0(.success(5)) }
    for _ in 0..<3 {
      let subscriber = TestSubscriber<Int, Never>()
      future.subscribe(subscriber)
      #expect(subscriber.events == [.subscription, .value(5), .completion(.finished)])
      #expect(subscriber.violations.isEmpty)
    }
  }

  @Test func lateSubscribersGetTheFailureReplayed() {
    let future = Future<Int, FutureTestError> { $0(.failure(.failed)) }
    let first = TestSubscriber<Int, FutureTestError>()
    let second = TestSubscriber<Int, FutureTestError>()
    future.subscribe(first)
    future.subscribe(second)
    #expect(first.events == [.subscription, .completion(.failure(.failed))])
    #expect(second.events == [.subscription, .completion(.failure(.failed))])
  }

  @Test func everyWaitingSubscriberGetsTheValue() {
    var promise: Future<Int, Never>.Promise?
    let future = Future<Int, Never> { promise = $0 }
    let subscribers = (0..<3).map { _ in TestSubscriber<Int, Never>() }
    for subscriber in subscribers { future.subscribe(subscriber) }
    #expect(subscribers.allSatisfy { $0.values.isEmpty })
    promise?(.success(9))
    for subscriber in subscribers {
      #expect(subscriber.events == [.subscription, .value(9), .completion(.finished)])
    }
    promise = nil
  }

  // MARK: Demand

  @Test func successWaitsForDemand() {
    var promise: Future<Int, Never>.Promise?
    let future = Future<Int, Never> { promise = $0 }
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    future.subscribe(subscriber)
    promise?(.success(3))
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(3), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
    promise = nil
  }

  @Test func replayedSuccessWaitsForDemand() {
    let future = Future<Int, Never> { $0(.success(4)) }
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    future.subscribe(subscriber)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(2))
    #expect(subscriber.events == [.subscription, .value(4), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func demandBeforeFulfilmentDeliversOnFulfilment() {
    var promise: Future<Int, Never>.Promise?
    let future = Future<Int, Never> { promise = $0 }
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    future.subscribe(subscriber)
    #expect(subscriber.events == [.subscription])
    promise?(.success(6))
    #expect(subscriber.events == [.subscription, .value(6), .completion(.finished)])
    promise = nil
  }

  @Test func failureIsDeliveredWithoutDemand() {
    var promise: Future<Int, FutureTestError>.Promise?
    let future = Future<Int, FutureTestError> { promise = $0 }
    let waiting = TestSubscriber<Int, FutureTestError>(initialDemand: .none)
    future.subscribe(waiting)
    promise?(.failure(.failed))
    #expect(waiting.events == [.subscription, .completion(.failure(.failed))])

    let late = TestSubscriber<Int, FutureTestError>(initialDemand: .none)
    future.subscribe(late)
    #expect(late.events == [.subscription, .completion(.failure(.failed))])
    promise = nil
  }

  // MARK: Threads

  @Test func promiseFulfilledFromAnotherThread() {
    var promise: Future<Int, Never>.Promise?
    let future = Future<Int, Never> { promise = $0 }
    let subscriber = TestSubscriber<Int, Never>()
    future.subscribe(subscriber)
    let sendable = SendablePromise(fulfil: promise!)
    promise = nil
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) {
      sendable.fulfil(.success(11))
    }
    group.wait()
    #expect(subscriber.events == [.subscription, .value(11), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func promiseFulfilledFromAnotherThreadDuringInit() {
    let group = DispatchGroup()
    let future = Future<Int, FutureTestError> { promise in
      let sendable = SendablePromise(fulfil: promise)
      DispatchQueue.global().async(group: group) {
        sendable.fulfil(.success(12))
      }
    }
    // Whether the subscriber arrives before or after the fulfilment, it gets the value once.
    let subscriber = TestSubscriber<Int, FutureTestError>()
    future.subscribe(subscriber)
    group.wait()
    #expect(subscriber.events == [.subscription, .value(12), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func manySubscribersAndAFulfilmentOnOtherThreads() {
    var promise: Future<Int, Never>.Promise?
    let future = Future<Int, Never> { promise = $0 }
    let sendable = SendablePromise(fulfil: promise!)
    promise = nil
    let subscribers = (0..<16).map { _ in TestSubscriber<Int, Never>() }
    let group = DispatchGroup()
    for subscriber in subscribers {
      DispatchQueue.global().async(group: group) { future.subscribe(subscriber) }
    }
    DispatchQueue.global().async(group: group) { sendable.fulfil(.success(1)) }
    group.wait()
    for subscriber in subscribers {
      #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
      #expect(subscriber.violations.isEmpty)
    }
  }

  // MARK: Cancellation and references

  @Test func cancelBeforeFulfilmentDeliversNothingAndFreesTheConduit() {
    var promise: Future<Int, Never>.Promise?
    let future = Future<Int, Never> { promise = $0 }
    weak var weakProbe: CapturedProbe?
    weak var weakSubscription: AnyObject?
    var events: [String] = []
    var subscription: (any Subscription)?
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      future.subscribe(
        AnySubscriber<Int, Never>(
          receiveSubscription: {
            subscription = $0
            $0.request(.unlimited)
          },
          receiveValue: {
            _ = probe
            events.append("value \($0)")
            return .none
          },
          receiveCompletion: { _ in events.append("completion") }))
    }
    weakSubscription = subscription as AnyObject?
    #expect(weakProbe != nil)
    subscription?.cancel()
    #expect(weakProbe == nil)
    subscription = nil
    // The future is alive and unfulfilled, and no longer holds the cancelled conduit.
    #expect(weakSubscription == nil)
    promise?(.success(1))
    #expect(events.isEmpty)
    promise = nil
    _ = future
  }

  @Test func cancelWhileHoldingAValueDeliversNothing() {
    let future = Future<Int, Never> { $0(.success(1)) }
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    future.subscribe(subscriber)
    let subscription = subscriber.subscription
    subscriber.cancel()
    subscription?.request(.max(1))
    #expect(subscriber.events == [.subscription])
  }

  @Test func finishedSubscriptionReleasesTheSubscriber() {
    var promise: Future<Int, Never>.Promise?
    let future = Future<Int, Never> { promise = $0 }
    weak var weakProbe: CapturedProbe?
    var subscription: (any Subscription)?
    var values: [Int] = []
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      future.subscribe(
        AnySubscriber<Int, Never>(
          receiveSubscription: {
            subscription = $0
            $0.request(.max(1))
          },
          receiveValue: {
            _ = probe
            values.append($0)
            return .none
          }))
    }
    #expect(weakProbe != nil)
    promise?(.success(2))
    #expect(values == [2])
    #expect(weakProbe == nil)
    #expect(subscription != nil)
    subscription = nil
    promise = nil
  }

  @Test func failedSubscriptionReleasesTheSubscriber() {
    var promise: Future<Int, FutureTestError>.Promise?
    let future = Future<Int, FutureTestError> { promise = $0 }
    weak var weakProbe: CapturedProbe?
    var subscription: (any Subscription)?
    var completion: Subscribers.Completion<FutureTestError>?
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      future.subscribe(
        AnySubscriber(
          receiveSubscription: { subscription = $0 },
          receiveCompletion: {
            _ = probe
            completion = $0
          }))
    }
    #expect(weakProbe != nil)
    promise?(.failure(.failed))
    #expect(completion == .failure(.failed))
    #expect(weakProbe == nil)
    #expect(subscription != nil)
    subscription = nil
    promise = nil
  }

  @Test func sinkOnAFulfilledFutureReleasesItsClosures() {
    let future = Future<Int, Never> { $0(.success(1)) }
    weak var weakProbe: CapturedProbe?
    var received: [Int] = []
    var token: AnyCancellable?
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      token = future.sink {
        _ = probe
        received.append($0)
      }
    }
    #expect(received == [1])
    #expect(weakProbe == nil)
    #expect(token != nil)
    token = nil
  }

  /// A cancelled subscription lets go of its subscriber (and a value it held) after its lock: a
  /// subscriber that cancels its subscription in its `deinit` stopped the process on the lock
  /// taken twice. Both while the future waits and once it holds a value not yet demanded.
  @Test func subscriberMayCancelItsSubscriptionInItsDeinit() {
    let waiting = Future<Int, Never> { _ in }
    let fulfilled = Future<Int, Never> { $0(.success(1)) }
    for future in [waiting, fulfilled] {
      let holder = DeinitCancellingSubscriber<Int, Never>.Holder()
      future.subscribe(DeinitCancellingSubscriber<Int, Never>(holder: holder))
      holder.subscription?.cancel()
      #expect(holder.cancelledInDeinit)
      holder.subscription = nil
    }
  }

  // MARK: Reflection

  /// The labelled children of a future subscription's mirror, each described.
  private func children(of subscription: (any Subscription)?) -> [String] {
    guard let subscription, let mirror = (subscription as? any CustomReflectable)?.customMirror else { return [] }
    return mirror.children.map { "\($0.label ?? "?")=\(String(describing: $0.value))" }
  }

  /// As in Combine: "Future", with parent, downstream, hasAnyDemand and subject; the future stays
  /// in the mirror while the value goes out, and leaves with the completion.
  @Test func subscriptionReflectsAsCombinesDoes() throws {
    var promise: Future<Int, Never>.Promise?
    let future = Future<Int, Never> { promise = $0 }
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    future.subscribe(subscriber)
    let subscription = try #require(subscriber.subscription)
    #expect(String(describing: subscription) == "Future")
    #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Future")
    let initial = children(of: subscription)
    #expect(initial.map { $0.prefix { $0 != "=" } } == ["parent", "downstream", "hasAnyDemand", "subject"])
    #expect(initial[0].contains("Future<"))
    #expect(initial[1].contains("TestSubscriber"))
    #expect(initial[2] == "hasAnyDemand=false")
    subscriber.request(.max(1))
    #expect(children(of: subscription)[2] == "hasAnyDemand=true")
    var parentWhileDelivering: Any?
    subscriber.onValue { _ in
      parentWhileDelivering = (subscription as? any CustomReflectable)?.customMirror.children.first?.value
    }
    promise?(.success(1))
    #expect((parentWhileDelivering as? Future<Int, Never>?).flatMap { $0 } === future)
    #expect(children(of: subscription) == ["parent=nil", "downstream=nil", "hasAnyDemand=false", "subject=nil"])
    #expect(subscriber.values == [1])
  }

  @Test func failedSubscriptionReflectsNothingButItsName() throws {
    var subscription: (any Subscription)?
    Future<Int, FutureTestError> { $0(.failure(.failed)) }.subscribe(
      AnySubscriber(receiveSubscription: { subscription = $0 }))
    #expect(children(of: subscription) == ["parent=nil", "downstream=nil", "hasAnyDemand=false", "subject=nil"])
    subscription = nil
  }

  /// A subscriber that comes after the promise was fulfilled gets the value as soon as it asks;
  /// without demand it waits; one that cancels before resolution hears nothing. (Matches.)
  /// Evidence (OpenCombine): Tests/OpenCombineTests/PublisherTests/FutureTests.swift
  /// `testSubscribeAfterSuccessfulResolution`, `testWaitsForDemandSuccess`, `testCancellation`.
  @Test func futureAfterResolutionWaitsForDemand() {
    var promise: Future<Int, Never>.Promise?
    let future = Future<Int, Never> { promise = $0 }
    let cancelled = TestSubscriber<Int, Never>(initialDemand: .unlimited)
    future.subscribe(cancelled)
    cancelled.cancel()
    promise?(.success(42))
    promise = nil
    #expect(cancelled.events == [.subscription])

    let late = TestSubscriber<Int, Never>(initialDemand: .none)
    future.subscribe(late)
    #expect(late.events == [.subscription])
    late.request(.max(1))
    #expect(late.events == [.subscription, .value(42), .completion(.finished)])
  }
}

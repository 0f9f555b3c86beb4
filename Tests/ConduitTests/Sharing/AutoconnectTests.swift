import ConduitTesting
import Dispatch
import Synchronization
import Testing

@testable import Conduit

@Suite(.leakChecked)
struct AutoconnectTests {
  // DifferencesFromCombine §8: the first subscriber leaves during `connect()` (it takes the
  // value the connection sends and finishes); Conduit disconnects, so a later subscriber connects
  // again and gets the value, where Combine stays connected and gives it nothing.
  @Test func aFirstSubscriberThatLeavesDuringConnectDisconnectsSoTheNextOneConnectsAgain() {
    let shared = CurrentValueSubject<Int, Never>(1).share()
    let first = TestSubscriber<Int, Never>()
    shared.first().subscribe(first)
    #expect(first.events == [.subscription, .value(1), .completion(.finished)])
    let later = TestSubscriber<Int, Never>()
    shared.subscribe(later)
    #expect(later.values == [1])
    later.cancel()
  }

  // DifferencesFromCombine §8: the first subscriber leaves before `connect()`, as it subscribes
  // (it takes the multicast subject's current value and finishes); Conduit does not connect for
  // it, so a later subscriber connects and gets the upstream's value after the subject's.
  // Found by differential fuzzing (seed 5106).
  @Test func aFirstSubscriberThatLeavesBeforeConnectingDoesNotConnect() {
    let upstream = CurrentValueSubject<Int, Never>(3)
    let shared = upstream.multicast(subject: CurrentValueSubject(8)).autoconnect()
    let first = TestSubscriber<Int, Never>()
    shared.first().subscribe(first)
    #expect(first.events == [.subscription, .value(8), .completion(.finished)])
    let later = TestSubscriber<Int, Never>()
    shared.subscribe(later)
    #expect(later.values == [8, 3])
    later.cancel()
  }

  @Test func connectsOnFirstSubscriber() {
    let fixture = CountingUpstream()
    let (source, auto) = (fixture.source, fixture.autoconnected)
    #expect(fixture.subscriptions == 0)
    let first = TestSubscriber<Int, Never>()
    auto.subscribe(first)
    #expect(fixture.subscriptions == 1)
    let second = TestSubscriber<Int, Never>()
    auto.subscribe(second)
    #expect(fixture.subscriptions == 1)
    source.send(1)
    #expect(first.values == [1])
    #expect(second.values == [1])
    first.cancel()
    second.cancel()
  }

  @Test func disconnectsWhenTheLastSubscriberLeavesAndReconnectsLater() {
    let fixture = CountingUpstream()
    let (source, auto) = (fixture.source, fixture.autoconnected)
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    auto.subscribe(first)
    auto.subscribe(second)
    first.cancel()
    source.send(1)
    #expect(second.values == [1])
    second.cancel()
    source.send(2)
    #expect(second.values == [1])
    let third = TestSubscriber<Int, Never>()
    auto.subscribe(third)
    #expect(fixture.subscriptions == 2)
    source.send(3)
    #expect(third.values == [3])
    third.cancel()
  }

  @Test func completionReachesTheSubscriber() {
    let source = PassthroughSubject<Int, Never>()
    let auto = source.multicast { PassthroughSubject<Int, Never>() }.autoconnect()
    let subscriber = TestSubscriber<Int, Never>()
    auto.subscribe(subscriber)
    source.send(completion: .finished)
    #expect(subscriber.completion == .finished)
  }

  /// As in Combine: a subscriber that completes is not counted out, so after the upstream has
  /// completed the connection stays, and a later subscriber gets the completion from the
  /// multicast's subject without the upstream being subscribed to again.
  @Test func aSubscriberAfterTheCompletionDoesNotConnectAgain() {
    let fixture = CountingUpstream()
    let (source, auto) = (fixture.source, fixture.autoconnected)
    let first = TestSubscriber<Int, Never>()
    auto.subscribe(first)
    source.send(completion: .finished)
    let late = TestSubscriber<Int, Never>()
    auto.subscribe(late)
    #expect(late.events == [.subscription, .completion(.finished)])
    #expect(fixture.subscriptions == 1)
  }

  /// As in Combine: the subscription passes for the upstream's (description, identifier), takes
  /// `.none`, and passes every cancel on, a repeated one and one after the completion too; the
  /// subscriber is counted out once.
  @Test func theSubscriptionPassesForTheUpstreamsAndPassesEveryCancelOn() throws {
    let connectable = SpyConnectable()
    let auto = connectable.autoconnect()
    let first = TestSubscriber<Int, Never>(initialDemand: .none)
    let second = TestSubscriber<Int, Never>(initialDemand: .none)
    auto.subscribe(first)
    auto.subscribe(second)
    let subscription = try #require(first.subscription)
    let secondSubscription = try #require(second.subscription)
    let upstream = connectable.subscriptions[0]
    #expect("\(subscription)" == "Spy")
    #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Spy")
    #expect(!(subscription is any CustomReflectable))
    #expect(subscription.combineIdentifier == upstream.combineIdentifier)
    subscription.request(.none)
    #expect(upstream.requests == [.none])
    connectable.finish()
    subscription.cancel()
    subscription.cancel()
    #expect(upstream.cancelCount == 2)
    #expect(connectable.connections == 1 && connectable.disconnections == 0)
    secondSubscription.cancel()
    #expect(connectable.disconnections == 1)
    connectable.forgetSubscribers()
  }

  /// As in Combine: what the upstream sends before the subscription, or after the completion,
  /// passes through.
  @Test func valuesAndCompletionsPassStraightThrough() throws {
    let connectable = SpyConnectable()
    let auto = connectable.autoconnect()
    let subscriber = TestSubscriber<Int, Never>()
    auto.subscribe(subscriber)
    let inner = try #require(connectable.subscribers.first)
    #expect(inner.receive(1) == .none)
    inner.receive(completion: .finished)
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == .finished)
    connectable.forgetSubscribers()
  }

  /// Described and reflected as Combine's: "Autoconnect", with the publisher and the subscriber.
  @Test func theSubscriberGivenUpstreamReflectsAsCombinesDoes() throws {
    let connectable = SpyConnectable()
    let auto = connectable.autoconnect()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    auto.subscribe(subscriber)
    let inner = try #require(connectable.erasedSubscribers.first)
    #expect(String(describing: inner) == "Autoconnect")
    #expect((inner as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Autoconnect")
    let mirror = try #require((inner as? any CustomReflectable)?.customMirror)
    #expect(mirror.children.map(\.label) == ["parent", "downstream"])
    #expect(String(describing: mirror.children.first!.value).contains("Autoconnect<"))
    subscriber.cancel()
    connectable.forgetSubscribers()
  }

  @Test func passesEachSubscribersDemandUpstream() {
    let source = PassthroughSubject<Int, Never>()
    let auto = source.multicast { PassthroughSubject<Int, Never>() }.autoconnect()
    let limited = TestSubscriber<Int, Never>(initialDemand: .max(1))
    let unlimited = TestSubscriber<Int, Never>()
    auto.subscribe(limited)
    auto.subscribe(unlimited)

    source.send(1)
    source.send(2)
    limited.request(.max(1))
    source.send(3)

    #expect(limited.values == [1, 3])
    #expect(unlimited.values == [1, 2, 3])
    #expect(limited.violations.isEmpty)
    limited.cancel()
    unlimited.cancel()
  }

  @Test func aSubscriberIsCountedOutOnceHoweverOftenItLeaves() {
    let fixture = CountingUpstream()
    let (source, auto) = (fixture.source, fixture.autoconnected)
    let leaving = TestSubscriber<Int, Never>()
    let staying = TestSubscriber<Int, Never>()
    auto.subscribe(leaving)
    auto.subscribe(staying)

    leaving.subscription?.cancel()
    leaving.subscription?.cancel()
    source.send(1)

    #expect(staying.values == [1])
    #expect(leaving.values.isEmpty)
    #expect(fixture.subscriptions == 1)
    staying.cancel()
  }

  @Test func cancellingFromInsideReceiveStopsDeliveryAndDisconnects() {
    var cancelled = 0
    let source = PassthroughSubject<Int, Never>()
    let auto = source.handleEvents(receiveCancel: { cancelled += 1 })
      .multicast { PassthroughSubject<Int, Never>() }.autoconnect()
    let subscriber = TestSubscriber<Int, Never>()
    subscriber.onValue { _ in subscriber.cancel() }
    auto.subscribe(subscriber)

    source.send(1)
    source.send(2)

    #expect(subscriber.values == [1])
    #expect(cancelled == 1)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aSubscriberJoiningAsTheFirstLeavesDuringItsSubscriptionSharesOneConnection() {
    // The first subscriber leaves from inside `receive(subscription:)`, before its call has
    // connected, and a second joins there: the count goes 1 -> 0 -> 1 while the first call is
    // still to connect. The upstream is subscribed to once, and the second subscriber gets each
    // value once.
    let fixture = CountingUpstream()
    let (source, auto) = (fixture.source, fixture.autoconnected)
    let second = TestSubscriber<Int, Never>()
    let first = AnySubscriber<Int, Never>(receiveSubscription: { subscription in
      subscription.cancel()
      auto.subscribe(second)
    })
    auto.subscribe(first)
    #expect(fixture.subscriptions == 1)
    source.send(1)
    #expect(second.values == [1])
    second.cancel()
    source.send(2)
    #expect(second.values == [1])
    // The second subscriber's leaving disconnected: a third connects again.
    let third = TestSubscriber<Int, Never>()
    auto.subscribe(third)
    #expect(fixture.subscriptions == 2)
    third.cancel()
  }

  @Test func aColdUpstreamReachesASubscriberJoiningAsTheFirstLeavesOnlyOnce() {
    let source = CurrentValueSubject<Int, Never>(0)
    let shared = source.share()
    let second = TestSubscriber<Int, Never>()
    let first = AnySubscriber<Int, Never>(receiveSubscription: { subscription in
      subscription.cancel()
      shared.subscribe(second)
    })
    shared.subscribe(first)
    source.send(1)
    #expect(second.values == [0, 1])
    second.cancel()
  }

  @Test func aSubscriberJoiningWhileTheLastOneDisconnectsGetsTheNextConnectionOnly() {
    // The last subscriber leaves, and while its connection is being cancelled (outside any lock,
    // so the connection may still be sending) another joins. The old connection is cancelled
    // before the new one is made: there are never two, which would each send every value.
    let upstream = CountingConnectable()
    let auto = upstream.autoconnect()
    let first = TestSubscriber<Int, Never>()
    auto.subscribe(first)
    let second = TestSubscriber<Int, Never>()
    upstream.beforeCancel = {
      upstream.beforeCancel = nil
      auto.subscribe(second)
    }
    first.cancel()
    #expect(upstream.connections == 2)
    #expect(upstream.mostLiveAtOnce == 1)
    #expect(upstream.live == 1)
    upstream.subject.send(1)
    #expect(second.values == [1])
    #expect(first.values == [])
    second.cancel()
    #expect(upstream.live == 0)
  }

  /// As in Combine: the subscriber sees the upstream's subscription's description, here the
  /// multicast's.
  @Test func theSubscriptionDescribesItselfAsTheUpstreams() {
    let source = PassthroughSubject<Int, Never>()
    let auto = source.multicast { PassthroughSubject<Int, Never>() }.autoconnect()
    let subscriber = TestSubscriber<Int, Never>()
    auto.subscribe(subscriber)
    #expect(subscriber.subscription.map { "\($0)" } == "Multicast")
    subscriber.cancel()
  }

  /// Autoconnect connects with the first subscriber only, passes each subscriber's requests
  /// straight to its upstream subscription, and disconnects when the last one cancels.
  /// Evidence (OpenCombine): AutoconnectTests.swift `testBasicRefcountBehavior` (connection history
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
  /// Evidence (OpenCombine): AutoconnectTests.swift `testAutoconnectReflection` (description
  /// "CustomSubscription", the same `combineIdentifier`) and `testBasicRefcountBehavior`
  /// (four `.cancelled` in the upstream history for three subscribers, one cancelling twice).
  @Test func autoconnectHandsOverTheUpstreamSubscription() {
    let connectable = RecordingConnectable()
    #expect(subscriptionName(connectable.autoconnect()) == "HandDriven")
  }
}

@Suite(.leakChecked)
struct AutoconnectStressTests {
  @Test func subscribersComingAndGoingOnManyThreadsWhileValuesFlow() {
    let source = PassthroughSubject<Int, Never>()
    let shared = source.share()
    let watcher = TestSubscriber<Int, Never>()
    shared.subscribe(watcher)
    let sending = SendingFlag()

    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) {
      var value = 0
      while sending.isOn.load(ordering: .relaxed) {
        source.send(value)
        value += 1
      }
    }
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      for _ in 0..<500 {
        let subscriber = TestSubscriber<Int, Never>()
        shared.subscribe(subscriber)
        subscriber.cancel()
        #expect(subscriber.violations.isEmpty)
        let values = subscriber.values
        #expect(values == values.sorted())
      }
    }
    sending.isOn.store(false, ordering: .relaxed)
    group.wait()

    let values = watcher.values
    #expect(values == Array(0..<values.count))
    #expect(watcher.violations.isEmpty)
    watcher.cancel()
  }

  @Test func subscribersJoiningAsOthersLeaveDuringTheirSubscriptionNeverConnectTwice() {
    for _ in 0..<2_000 {
      let source = CurrentValueSubject<Int, Never>(0)
      let shared = source.share()
      let stays = TestSubscriber<Int, Never>()
      // The two threads start together, which makes the interleaving that connected twice common.
      runOnThreads(2) { index in
        if index == 0 {
          shared.subscribe(AnySubscriber<Int, Never>(receiveSubscription: { $0.cancel() }))
        } else {
          shared.subscribe(stays)
        }
      }
      source.send(1)
      // Connected once, the subscriber that stays sees the current value at most once (not at
      // all if it joined the multicast subject after the connection sent it), then 1.
      #expect(stays.values == [0, 1] || stays.values == [1])
      #expect(stays.violations.isEmpty)
      stays.cancel()
    }
  }

  /// share() subscribers, some asking for a few values only, join and leave on two threads while
  /// two others send through the share: one that stays gets every value, those that leave get
  /// nothing after leaving, and once the last one leaves the share lets go of the upstream.
  @Test func subscribersJoiningAndLeavingWhileTwoThreadsSendMissNothingForOneThatStays() {
    let source = PassthroughSubject<Int, Never>()
    let shared = source.share()
    let witness = StressSubscriber()
    shared.subscribe(witness)
    let sendersDone = Atomic<Int>(0)
    let churned = Locked<[StressSubscriber]>([])
    runOnThreads(4) { thread in
      if thread < 2 {
        for index in 0..<5_000 { source.send(thread * 1_000_000 + index) }
        sendersDone.wrappingAdd(1, ordering: .releasing)
        return
      }
      var mine: [StressSubscriber] = []
      while sendersDone.load(ordering: .acquiring) < 2 {
        let subscriber = StressSubscriber(demand: mine.count.isMultiple(of: 2) ? .unlimited : .max(3))
        shared.subscribe(subscriber)
        subscriber.cancelAndRecord()
        mine.append(subscriber)
      }
      churned.withLock { $0.append(contentsOf: mine) }
    }
    let values = witness.values
    #expect(values.filter { $0 < 1_000_000 } == Array(0..<5_000))
    #expect(values.filter { $0 >= 1_000_000 } == Array(1_000_000..<1_005_000))
    #expect(witness.overlaps == 0)
    let subscribers = churned.withLock { $0 }
    let keptTheContract = subscribers.allSatisfy {
      $0.overlaps == 0 && !$0.completed && $0.count <= $0.countWhenCancelReturned + 1
    }
    #expect(keptTheContract)
    witness.cancelAndRecord()
    #expect(source.core.memberCount == 0)
  }
}

private final class SendingFlag: Sendable {
  let isOn = Atomic<Bool>(true)
}

/// A subject behind a `Deferred` that counts how often it is subscribed to, multicast and
/// autoconnected.
private final class CountingUpstream {
  let source = PassthroughSubject<Int, Never>()
  private(set) var subscriptions = 0
  private(set) lazy var autoconnected = Deferred { [unowned self] () -> PassthroughSubject<Int, Never> in
    subscriptions += 1
    return source
  }
  .multicast { PassthroughSubject<Int, Never>() }.autoconnect()
}

/// A connectable publisher that counts its connections and how many are live at once, and runs
/// `beforeCancel` inside a connection's `cancel()`, while that connection is still live.
private final class CountingConnectable: ConnectablePublisher, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never

  final class Connection: Cancellable {
    let parent: CountingConnectable
    var isLive = true
    init(parent: CountingConnectable) { self.parent = parent }
    func cancel() {
      guard isLive else { return }
      parent.beforeCancel?()
      isLive = false
      parent.live -= 1
    }
  }

  let subject = PassthroughSubject<Int, Never>()
  var beforeCancel: (() -> Void)?
  private(set) var connections = 0
  private(set) var live = 0
  private(set) var mostLiveAtOnce = 0

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    subject.receive(subscriber: subscriber)
  }

  func connect() -> any Cancellable {
    connections += 1
    live += 1
    mostLiveAtOnce = Swift.max(mostLiveAtOnce, live)
    return Connection(parent: self)
  }
}

/// A connectable publisher that hands each subscriber a `SpySubscription` it keeps, and counts
/// its connections and disconnections.
private final class SpyConnectable: ConnectablePublisher, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never

  private(set) var subscriptions: [SpySubscription] = []
  private(set) var subscribers: [AnySubscriber<Int, Never>] = []
  private(set) var erasedSubscribers: [Any] = []
  private(set) var connections = 0
  private(set) var disconnections = 0

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    let subscription = SpySubscription(name: "Spy")
    subscriptions.append(subscription)
    subscribers.append(AnySubscriber(subscriber))
    erasedSubscribers.append(subscriber)
    subscriber.receive(subscription: subscription)
  }

  /// Lets go of the subscribers, which hold the autoconnect publisher that holds this one.
  func forgetSubscribers() {
    subscribers = []
    erasedSubscribers = []
  }

  /// Completes every subscriber.
  func finish() {
    for subscriber in subscribers { subscriber.receive(completion: .finished) }
  }

  func connect() -> any Cancellable {
    connections += 1
    return AnyCancellable { [weak self] in self?.disconnections += 1 }
  }
}

import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct MulticastTests {
  @Test func nothingFlowsUntilConnect() {
    let multicast = [1, 2, 3].publisher.multicast { PassthroughSubject<Int, Never>() }
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    multicast.subscribe(first)
    multicast.subscribe(second)
    #expect(first.values.isEmpty)
    let connection = multicast.connect()
    #expect(first.values == [1, 2, 3])
    #expect(second.values == [1, 2, 3])
    #expect(first.completion == .finished)
    #expect(second.completion == .finished)
    connection.cancel()
  }

  @Test func subjectIsCreatedOnceAndLazily() {
    var created = 0
    let multicast = [1].publisher.multicast { () -> PassthroughSubject<Int, Never> in
      created += 1
      return PassthroughSubject()
    }
    #expect(created == 0)
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    multicast.subscribe(first)
    multicast.subscribe(second)
    let connection = multicast.connect()
    #expect(created == 1)
    connection.cancel()
  }

  @Test func upstreamRunsOncePerConnection() {
    var subscriptions = 0
    let upstream = Deferred { () -> Publishers.Sequence<[Int], Never> in
      subscriptions += 1
      return [1, 2].publisher
    }
    let multicast = upstream.multicast { PassthroughSubject<Int, Never>() }
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    multicast.subscribe(first)
    multicast.subscribe(second)
    let connection = multicast.connect()
    #expect(subscriptions == 1)
    #expect(first.values == [1, 2])
    #expect(second.values == [1, 2])
    connection.cancel()
  }

  @Test func currentValueSubjectServesLateSubscribersTheLatest() {
    let source = PassthroughSubject<Int, Never>()
    let multicast = source.multicast(subject: CurrentValueSubject<Int, Never>(0))
    let connection = multicast.connect()
    source.send(5)
    source.send(7)
    let late = TestSubscriber<Int, Never>()
    multicast.subscribe(late)
    #expect(late.values == [7])
    source.send(8)
    #expect(late.values == [7, 8])
    connection.cancel()
    late.cancel()
  }

  @Test func cancellingTheConnectionStopsValues() {
    let source = PassthroughSubject<Int, Never>()
    let multicast = source.multicast { PassthroughSubject<Int, Never>() }
    let subscriber = TestSubscriber<Int, Never>()
    multicast.subscribe(subscriber)
    let connection = multicast.connect()
    source.send(1)
    connection.cancel()
    source.send(2)
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == nil)
    subscriber.cancel()
  }

  @Test func failureReachesEverySubscriber() {
    struct Boom: Error, Equatable {}
    let source = PassthroughSubject<Int, Boom>()
    let multicast = source.multicast { PassthroughSubject<Int, Boom>() }
    let first = TestSubscriber<Int, Boom>()
    let second = TestSubscriber<Int, Boom>()
    multicast.subscribe(first)
    multicast.subscribe(second)
    let connection = multicast.connect()
    source.send(completion: .failure(Boom()))
    #expect(first.completion == .failure(Boom()))
    #expect(second.completion == .failure(Boom()))
    connection.cancel()
  }

  @Test func demandIsPerSubscriber() {
    let source = PassthroughSubject<Int, Never>()
    let multicast = source.multicast { PassthroughSubject<Int, Never>() }
    let slow = TestSubscriber<Int, Never>(initialDemand: .max(1))
    let fast = TestSubscriber<Int, Never>()
    multicast.subscribe(slow)
    multicast.subscribe(fast)
    let connection = multicast.connect()
    source.send(1)
    source.send(2)
    #expect(slow.values == [1])
    #expect(fast.values == [1, 2])
    #expect(slow.violations.isEmpty)
    connection.cancel()
    slow.cancel()
    fast.cancel()
  }

  // MARK: The multicast's subscription, as in Combine

  /// Described and shown in playgrounds as "Multicast", reflected with no children.
  @Test func theSubscriptionIsTheMulticastsOwn() throws {
    let multicast = PassthroughSubject<Int, Never>().multicast { PassthroughSubject<Int, Never>() }
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    multicast.subscribe(subscriber)
    let subscription = try #require(subscriber.subscription)
    #expect("\(subscription)" == "Multicast")
    #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Multicast")
    #expect((subscription as? any CustomReflectable)?.customMirror.children.isEmpty == true)
    subscriber.cancel()
  }

  /// What the subject sends before its subscription, or after the completion or a cancel, is
  /// dropped; a second subscription is cancelled; demand the subscriber returns is requested from
  /// the subject's subscription, and requests and a cancel are passed on to it.
  @Test func theInnerSubscriberKeepsToItsSubscription() throws {
    let subject = GrabbingSubject()
    let multicast = PassthroughSubject<Int, Never>().multicast(subject: subject)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none, demandPerValue: .max(2))
    multicast.subscribe(subscriber)
    let inner = try #require(subject.subscriber)
    #expect(inner.receive(1) == .none)
    #expect(subscriber.events == [])
    let first = SpySubscription()
    inner.receive(subscription: first)
    let second = SpySubscription()
    inner.receive(subscription: second)
    #expect(second.cancelCount == 1)
    #expect(subscriber.subscriptionCount == 1)
    subscriber.request(.max(1))
    #expect(inner.receive(2) == .none)
    #expect(first.requests == [.max(1), .max(2)])
    inner.receive(completion: .finished)
    inner.receive(completion: .finished)
    #expect(inner.receive(3) == .none)
    #expect(subscriber.events == [.subscription, .value(2), .completion(.finished)])
    #expect(first.cancelCount == 0)
    subject.subscriber = nil
  }

  @Test func aCancelReachesTheSubjectsSubscriptionOnce() throws {
    let subject = GrabbingSubject()
    let multicast = PassthroughSubject<Int, Never>().multicast(subject: subject)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    multicast.subscribe(subscriber)
    let inner = try #require(subject.subscriber)
    let upstream = SpySubscription()
    inner.receive(subscription: upstream)
    let subscription = try #require(subscriber.subscription)
    subscription.request(.max(4))
    subscription.cancel()
    subscription.cancel()
    subscription.request(.max(5))
    #expect(inner.receive(1) == .none)
    #expect(upstream.requests == [.max(4)])
    #expect(upstream.cancelCount == 1)
    #expect(subscriber.values.isEmpty)
    subject.subscriber = nil
  }

  /// As in Combine, a subject other than Conduit's is not kept alive by the connection: letting
  /// go of it frees it, and cancelling the connection afterwards still cancels the upstream.
  @Test func aConnectionDoesNotKeepAForeignSubjectAlive() {
    let upstream = HandDrivenUpstream<Int, Never>()
    weak var weakSubject: GrabbingSubject?
    var connection: (any Cancellable)?
    do {
      let subject = GrabbingSubject()
      weakSubject = subject
      connection = upstream.multicast(subject: subject).connect()
    }
    #expect(weakSubject == nil)
    connection?.cancel()
    #expect(upstream.link?.isCancelled == true)
    connection = nil
  }

  /// Nothing flows before `connect()`; cancelling the connection stops values; connecting again
  /// subscribes upstream afresh, and its completion reaches the subscriber once.
  /// Evidence (OpenCombine): MulticastTests.swift `testMulticast` (history `[.subscription, -1, 42, 15,
  /// .finished]`: 0 and 12 before the connection and 14 after its cancel are lost), used by
  /// MakeConnectableTests.swift `testMulticast`.
  @Test func multicastConnectCancelAndReconnect() {
    func check<C: ConnectablePublisher>(_ make: (HandDrivenUpstream<Int, Never>) -> C) where C.Output == Int {
      let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
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
  /// Evidence (OpenCombine): MulticastTests.swift `testMulticastConnectTwice` (history `[.subscription, 42,
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
  /// Evidence (OpenCombine): MulticastTests.swift `testLateSubscriber` (early `.max(3)`: 1, 2, 3; late
  /// `.max(2)`: 5, 6; upstream `[.requested(.unlimited)]`; the latest subscriber
  /// `[.subscription, .completion(.finished)]`).
  @Test func multicastServesEachSubscriberItsOwnDemand() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
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
}

/// A subject of the test's own that keeps the last subscriber it was given and hands it
/// nothing, so a test can drive that subscriber by hand.
private final class GrabbingSubject: Subject, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never

  var subscriber: AnySubscriber<Int, Never>?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    self.subscriber = AnySubscriber(subscriber)
  }

  func send(_ value: Int) { _ = subscriber?.receive(value) }
  func send(completion: Subscribers.Completion<Never>) { subscriber?.receive(completion: completion) }
  func send(subscription: any Subscription) { subscription.request(.unlimited) }
}

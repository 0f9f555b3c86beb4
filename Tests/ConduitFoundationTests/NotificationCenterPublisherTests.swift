import ConduitTesting
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import ConduitFoundation

/// An object that posts notifications.
private final class Poster: Sendable {}

/// A subscriber that requests once and keeps no reference to its subscription.
private final class ForgetfulSubscriber: Subscriber, @unchecked Sendable {
  typealias Input = Notification
  typealias Failure = Never

  let received = Atomic<Int>(0)

  func receive(subscription: any Subscription) { subscription.request(.unlimited) }

  func receive(_ input: Notification) -> Subscribers.Demand {
    received.add(1, ordering: .acquiringAndReleasing)
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {}
}

private let ping = Notification.Name("NotificationCenterPublisherTests.ping")
private let other = Notification.Name("NotificationCenterPublisherTests.other")

private func index(of notification: Notification) -> Int? {
  notification.userInfo?["index"] as? Int
}

@Suite(.leakChecked)
struct NotificationCenterPublisherTests {
  @Test func publisherKeepsItsCenterNameAndObjectAndComparesThem() {
    let center = NotificationCenter()
    let poster = Poster()
    let publisher = center.publisher(for: ping, object: poster)
    #expect(publisher.center === center)
    #expect(publisher.name == ping)
    #expect(publisher.object === poster)
    #expect(publisher == NotificationCenter.Publisher(center: center, name: ping, object: poster))
    #expect(publisher != center.publisher(for: ping))
    #expect(publisher != center.publisher(for: other, object: poster))
    #expect(publisher != center.publisher(for: ping, object: Poster()))
    #expect(publisher != NotificationCenter().publisher(for: ping, object: poster))
    #expect(center.publisher(for: ping) == center.publisher(for: ping))
  }

  @Test func deliversNotificationsAgainstDemandAndDropsThoseBeyondIt() {
    let center = NotificationCenter()
    let subscriber = TestSubscriber<Notification, Never>(initialDemand: .none)
    center.publisher(for: ping).subscribe(subscriber)
    #expect(subscriber.subscriptionCount == 1)
    center.post(name: ping, object: nil, userInfo: ["index": 0])
    subscriber.request(.max(2))
    for index in 1...4 { center.post(name: ping, object: nil, userInfo: ["index": index]) }
    #expect(subscriber.values.map(index(of:)) == [1, 2])
    // What went beyond demand is gone, not kept for the next request.
    subscriber.request(.max(1))
    #expect(subscriber.values.map(index(of:)) == [1, 2])
    center.post(name: ping, object: nil, userInfo: ["index": 5])
    center.post(name: other, object: nil, userInfo: ["index": 6])
    #expect(subscriber.values.map(index(of:)) == [1, 2, 5])
    #expect(subscriber.completion == nil)
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func demandReturnedFromReceiveCountsAndNoneIsAccepted() {
    let center = NotificationCenter()
    let subscriber = TestSubscriber<Notification, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    center.publisher(for: ping).subscribe(subscriber)
    subscriber.request(.none)
    for index in 0..<5 { center.post(name: ping, object: nil, userInfo: ["index": index]) }
    #expect(subscriber.values.map(index(of:)) == [0, 1, 2, 3, 4])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func theObjectFiltersWhoseNotificationsArrive() {
    let center = NotificationCenter()
    let mine = Poster()
    let theirs = Poster()
    let fromMine = TestSubscriber<Notification, Never>()
    let fromAnyone = TestSubscriber<Notification, Never>()
    center.publisher(for: ping, object: mine).subscribe(fromMine)
    center.publisher(for: ping).subscribe(fromAnyone)
    center.post(name: ping, object: mine, userInfo: ["index": 0])
    center.post(name: ping, object: theirs, userInfo: ["index": 1])
    center.post(name: ping, object: nil, userInfo: ["index": 2])
    center.post(name: other, object: mine, userInfo: ["index": 3])
    center.post(name: ping, object: mine, userInfo: ["index": 4])
    #expect(fromMine.values.map(index(of:)) == [0, 4])
    #expect(fromMine.values.allSatisfy { $0.object as? Poster === mine })
    #expect(fromAnyone.values.map(index(of:)) == [0, 1, 2, 4])
    fromMine.cancel()
    fromAnyone.cancel()
  }

  // The center's observer block holds the observation, which the census counts, so a leak check
  // that passes proves the center let go of the observer.
  @Test func aLiveSubscriptionKeepsItsObserverInTheCenterAndCancelRemovesIt() throws {
    let center = NotificationCenter()
    let subscriber = TestSubscriber<Notification, Never>()
    let failure = #expect(throws: LeakCheckFailure.self) {
      try withLeakCheck(timeout: .milliseconds(50)) { _ in center.publisher(for: ping).subscribe(subscriber) }
    }
    let survivors = failure?.survivors.map(\.typeName) ?? []
    #expect(survivors.contains { $0.contains("NotificationObservation") })
    #expect(survivors.contains { $0.contains("NotificationSubscription") })
    center.post(name: ping, object: nil)
    #expect(subscriber.values.count == 1)
    try withLeakCheck { _ in
      let other = TestSubscriber<Notification, Never>()
      center.publisher(for: ping).subscribe(other)
      center.post(name: ping, object: nil)
      other.cancel()
      other.subscription?.cancel()
      center.post(name: ping, object: nil)
      #expect(other.values.count == 1)
      #expect(other.completion == nil)
    }
    #expect(subscriber.values.count == 3)
    subscriber.cancel()
    center.post(name: ping, object: nil)
    #expect(subscriber.values.count == 3)
  }

  @Test func eachSubscriptionObservesOnItsOwn() {
    let center = NotificationCenter()
    let publisher = center.publisher(for: ping)
    let first = TestSubscriber<Notification, Never>()
    let second = TestSubscriber<Notification, Never>(initialDemand: .max(1))
    publisher.subscribe(first)
    publisher.subscribe(second)
    center.post(name: ping, object: nil)
    center.post(name: ping, object: nil)
    #expect(first.values.count == 2)
    #expect(second.values.count == 1)
    first.cancel()
    second.request(.max(1))
    center.post(name: ping, object: nil)
    #expect(first.values.count == 2)
    #expect(second.values.count == 2)
    second.cancel()
  }

  @Test func aSinkTokenRemovesItsObserverWhenCancelledOrReleased() throws {
    let center = NotificationCenter()
    let count = Atomic<Int>(0)
    try withLeakCheck { _ in
      let token = center.publisher(for: ping).sink { _ in count.add(1, ordering: .acquiringAndReleasing) }
      center.post(name: ping, object: nil)
      token.cancel()
      center.post(name: ping, object: nil)
    }
    try withLeakCheck { _ in
      var token: AnyCancellable? = center.publisher(for: ping).sink { _ in
        count.add(1, ordering: .acquiringAndReleasing)
      }
      #expect(token != nil)
      token = nil
      center.post(name: ping, object: nil)
    }
    let received = count.load(ordering: .acquiring)
    #expect(received == 1)
  }

  @Test func aSubscriptionThatGoesAwayUncancelledRemovesItsObserver() throws {
    let center = NotificationCenter()
    let subscriber = ForgetfulSubscriber()
    try withLeakCheck { _ in center.publisher(for: ping).subscribe(subscriber) }
    center.post(name: ping, object: nil)
    let received = subscriber.received.load(ordering: .acquiring)
    #expect(received == 0)
  }

  @Test func aCancelFromInsideReceiveStopsTheNotificationsAndRemovesTheObserver() throws {
    let center = NotificationCenter()
    let subscriber = TestSubscriber<Notification, Never>()
    try withLeakCheck { _ in
      subscriber.onValue { _ in subscriber.cancel() }
      center.publisher(for: ping).subscribe(subscriber)
      for _ in 0..<3 { center.post(name: ping, object: nil) }
    }
    #expect(subscriber.values.count == 1)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aPostFromInsideReceiveIsDeliveredAfterTheOneInHand() {
    let center = NotificationCenter()
    let subscriber = TestSubscriber<Notification, Never>()
    let order = Locked<[String]>([])
    subscriber.onValue { notification in
      let position = index(of: notification) ?? -1
      order.withLock { $0.append("enter \(position)") }
      if position < 3 { center.post(name: ping, object: nil, userInfo: ["index": position + 1]) }
      order.withLock { $0.append("leave \(position)") }
    }
    center.publisher(for: ping).subscribe(subscriber)
    center.post(name: ping, object: nil, userInfo: ["index": 0])
    #expect(subscriber.values.map(index(of:)) == [0, 1, 2, 3])
    #expect(
      order.withLock { $0 } == [
        "enter 0", "leave 0", "enter 1", "leave 1", "enter 2", "leave 2", "enter 3", "leave 3",
      ])
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func postsFromSeveralThreadsArriveOnceEachInEachSendersOrderWithoutOverlap() {
    let center = NotificationCenter()
    let subscriber = TestSubscriber<Notification, Never>()
    center.publisher(for: ping).subscribe(subscriber)
    let senders = 4
    let perSender = 500
    DispatchQueue.concurrentPerform(iterations: senders) { sender in
      for index in 0..<perSender {
        center.post(name: ping, object: nil, userInfo: ["sender": sender, "index": index])
      }
    }
    let values = subscriber.values
    #expect(values.count == senders * perSender)
    for sender in 0..<senders {
      let indices = values.filter { $0.userInfo?["sender"] as? Int == sender }.compactMap(index(of:))
      #expect(indices == Array(0..<perSender), "sender \(sender)")
    }
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func postsFromSeveralThreadsNeverExceedDemand() {
    let center = NotificationCenter()
    let subscriber = TestSubscriber<Notification, Never>(initialDemand: .max(100))
    center.publisher(for: ping).subscribe(subscriber)
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      for _ in 0..<200 { center.post(name: ping, object: nil) }
    }
    #expect(subscriber.values.count == 100)
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func theDescriptionIsCombines() {
    let center = NotificationCenter()
    let subscriber = TestSubscriber<Notification, Never>()
    center.publisher(for: ping).subscribe(subscriber)
    #expect(subscriber.subscription.map { String(describing: $0) } == "NotificationCenter Observer")
    subscriber.cancel()
  }
}

/// Drives a notification subscription's machine, answering with the index of the notification
/// each step delivers to its subscriber, `nil` for none.
private final class MachineDriver {
  var machine = NotificationSubscriptionStateMachine<String, Int>(downstream: "downstream")

  var downstream: String? { machine.downstream }

  func post(_ index: Int) -> Int? {
    delivered(machine.post(Notification(name: ping, object: nil, userInfo: ["index": index])))
  }

  func startDraining() -> Int? { delivered(machine.startDraining()) }

  func delivered(additional: Subscribers.Demand) -> Int? { delivered(machine.delivered(additional: additional)) }

  func request(_ demand: Subscribers.Demand) { machine.request(demand) }

  func observe(_ observer: Int) { machine.observe(observer) }

  func cancel() -> NotificationSubscriptionStateMachine<String, Int>.Ended? { machine.cancel() }

  private func delivered(_ delivery: NotificationDelivery<String>) -> Int? {
    guard case .deliver(let downstream, let notification) = delivery else { return nil }
    #expect(downstream == "downstream")
    return index(of: notification)
  }
}

@Suite(.leakChecked)
struct NotificationSubscriptionStateMachineTests {
  @Test func theSubscribingThreadOwnsDeliveryUntilTheSubscriptionIsReceived() {
    let machine = MachineDriver()
    #expect(machine.downstream == "downstream")
    #expect(machine.post(0) == nil)
    machine.request(.max(2))
    #expect(machine.post(1) == nil)
    #expect(machine.startDraining() == 1)
    #expect(machine.delivered(additional: .none) == nil)
    #expect(machine.post(2) == 2)
    #expect(machine.delivered(additional: .none) == nil)
    #expect(machine.post(3) == nil)
  }

  @Test func postsWhileDeliveringWaitInOrderAndCountAgainstDemand() {
    let machine = MachineDriver()
    machine.request(.max(3))
    #expect(machine.startDraining() == nil)
    #expect(machine.post(0) == 0)
    #expect(machine.post(1) == nil)
    #expect(machine.post(2) == nil)
    #expect(machine.post(3) == nil)
    #expect(machine.delivered(additional: .max(1)) == 1)
    #expect(machine.delivered(additional: .none) == 2)
    #expect(machine.delivered(additional: .none) == nil)
    #expect(machine.post(4) == 4)
  }

  @Test func cancelHandsBackTheSubscriberTheObserverAndWhatWaitsOnce() {
    let machine = MachineDriver()
    machine.observe(7)
    machine.request(.unlimited)
    #expect(machine.post(0) == nil)
    let ended = machine.cancel()
    #expect(ended?.downstream == "downstream")
    #expect(ended?.observer == 7)
    #expect(ended?.waiting.elements.map(index(of:)) == [0])
    #expect(machine.cancel() == nil)
    #expect(machine.downstream == nil)
    #expect(machine.post(1) == nil)
    #expect(machine.delivered(additional: .unlimited) == nil)
  }
}

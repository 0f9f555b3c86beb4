import Conduit
import ConduitTesting
import Testing

/// `subscribe(_:)` with a subject: the relay between the publisher and the subject.
@Suite(.leakChecked)
struct PublisherTests {
  /// As in Combine: the subject's subscription is the relay itself, described "Subject", which
  /// passes the subject's requests and cancel on to the upstream.
  @Test func theSubjectsSubscriptionIsTheRelay() throws {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subject = KeepingSubject()
    let token = upstream.subscribe(subject)
    let subscription = try #require(subject.subscriptions.first)
    #expect("\(subscription)" == "Subject")
    #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Subject")
    let link = try #require(upstream.link)
    #expect(link.requests == [])
    subscription.request(.max(42))
    #expect(link.requests == [.max(42)])
    upstream.send(1)
    #expect(subject.values == [1])
    subscription.cancel()
    subscription.cancel()
    subscription.request(.max(37))
    #expect(link.requests == [.max(42)])
    #expect(link.isCancelled)
    upstream.send(2)
    #expect(subject.values == [1])
    token.cancel()
    subject.subscriptions = []
  }

  /// As in Combine: a subject other than Conduit's is referenced weakly, so one that keeps its
  /// subscription (the relay) is still freed once its owner and the token let go of it, even
  /// while the upstream keeps the relay.
  @Test func aForeignSubjectKeepingItsSubscriptionIsFreed() {
    let upstream = HandDrivenUpstream<Int, Never>()
    weak var weakSubject: KeepingSubject?
    do {
      let subject = KeepingSubject()
      weakSubject = subject
      let token = upstream.subscribe(subject)
      upstream.send(1)
      #expect(subject.values == [1])
      token.cancel()
    }
    #expect(weakSubject == nil)
    #expect(upstream.link?.isCancelled == true)
  }

  /// One of Conduit's subjects gets its subscription as the relay too, and forgets it when the
  /// token is cancelled.
  @Test func conduitsSubjectForgetsTheCancelledRelay() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.subscribe(subscriber)
    let token = upstream.subscribe(subject)
    #expect(upstream.link?.requests == [.unlimited])
    upstream.send(1)
    token.cancel()
    upstream.send(2)
    #expect(subscriber.values == [1])
    #expect(upstream.link?.isCancelled == true)
    subscriber.cancel()
  }
}

/// A subject of the test's own that keeps every subscription it is given and records values.
private final class KeepingSubject: Subject, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never

  var subscriptions: [any Subscription] = []
  private(set) var values: [Int] = []

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    subscriber.receive(subscription: Subscriptions.empty)
  }

  func send(_ value: Int) { values.append(value) }
  func send(completion: Subscribers.Completion<Never>) {}
  func send(subscription: any Subscription) { subscriptions.append(subscription) }
}

import ConduitTesting
import Testing

@testable import Conduit

private enum AnyPublisherTestError: Error, Equatable {
  case failed
}

@Suite(.leakChecked)
struct AnyPublisherTests {
  @Test func forwardsValuesAndCompletion() {
    let erased = [1, 2, 3].publisher.eraseToAnyPublisher()
    let subscriber = TestSubscriber<Int, Never>()
    erased.subscribe(subscriber)
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.subscriptionCount == 1)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func forwardsFailure() {
    let erased = Fail<Int, AnyPublisherTestError>(error: .failed).eraseToAnyPublisher()
    let subscriber = TestSubscriber<Int, AnyPublisherTestError>(initialDemand: .none)
    erased.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.failure(.failed))])
  }

  @Test func forwardsDemand() {
    let erased = AnyPublisher([1, 2, 3].publisher)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    erased.subscribe(subscriber)
    #expect(subscriber.values == [1])
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion == nil)
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func forwardsCancellation() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.eraseToAnyPublisher().subscribe(subscriber)
    subject.send(1)
    subscriber.cancel()
    subject.send(2)
    subject.send(completion: .finished)
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == nil)
  }

  @Test func forwardsEachSubscriberSeparately() {
    let erased = Deferred { [10, 20].publisher }.eraseToAnyPublisher()
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>(initialDemand: .max(1))
    erased.subscribe(first)
    erased.subscribe(second)
    #expect(first.values == [10, 20])
    #expect(second.values == [10])
    second.cancel()
  }

  @Test func erasingTwiceDoesNotNest() {
    let recorder = SubscriberRecordingPublisher()
    let thrice = AnyPublisher(recorder.eraseToAnyPublisher().eraseToAnyPublisher())
    let subscriber = TestSubscriber<Int, Never>()
    thrice.subscribe(subscriber)
    let seen = recorder.received.withLock { $0 }
    #expect(seen.count == 1)
    let erased = seen.first as? AnySubscriber<Int, Never>
    #expect(erased != nil)
    #expect(erased?.censusWrapped as? TestSubscriber<Int, Never> === subscriber)
    #expect(erased?.combineIdentifier == subscriber.combineIdentifier)
    recorder.received.withLock { $0.removeAll() }
  }

  @Test func erasedTwiceStillDelivers() {
    let subscriber = TestSubscriber<Int, Never>()
    Just(5).eraseToAnyPublisher().eraseToAnyPublisher().subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(5), .completion(.finished)])
  }

  @Test func describesItself() {
    #expect(Just(1).eraseToAnyPublisher().description == "AnyPublisher")
    #expect(Just(1).eraseToAnyPublisher().playgroundDescription as? String == "AnyPublisher")
  }

  @Test func releasesTheSubscriberWhenDone() {
    weak var weakSubscriber: TestSubscriber<Int, Never>?
    let subject = PassthroughSubject<Int, Never>()
    do {
      let subscriber = TestSubscriber<Int, Never>()
      weakSubscriber = subscriber
      subject.eraseToAnyPublisher().subscribe(subscriber)
    }
    #expect(weakSubscriber != nil)
    subject.send(completion: .finished)
    #expect(weakSubscriber == nil)
  }

  /// An erased publisher hands the subscriber's own `combineIdentifier` to what it wraps.
  /// Evidence (OpenCombine): AnyPublisherTests.swift `testErasePublisher` and `testDoubleErasure`.
  @Test func erasedPublisherShowsTheSubscribersIdentifier() {
    let upstream = IdentifierRecordingPublisher()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.eraseToAnyPublisher().eraseToAnyPublisher().subscribe(subscriber)
    #expect(upstream.identifiers == [subscriber.combineIdentifier])
  }
}

/// Completes every subscriber at once and remembers the subscriber it was handed.
private final class SubscriberRecordingPublisher: Publisher, Sendable {
  typealias Output = Int
  typealias Failure = Never

  let received = Locked<[Any]>([])

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    received.withLock { $0.append(subscriber) }
    subscriber.receive(subscription: Subscriptions.empty)
    subscriber.receive(completion: .finished)
  }
}

/// Records the identifiers of the subscribers it is given, and completes them at once.
private final class IdentifierRecordingPublisher: Publisher {
  typealias Output = Int
  typealias Failure = Never
  private(set) var identifiers: [CombineIdentifier] = []

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    identifiers.append(subscriber.combineIdentifier)
    subscriber.receive(subscription: Subscriptions.empty)
    subscriber.receive(completion: .finished)
  }
}

import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct ShareTests {
  @Test func expensiveUpstreamRunsOnceForTwoSubscribers() {
    var runs = 0
    let source = PassthroughSubject<Int, Never>()
    let shared = Deferred { () -> PassthroughSubject<Int, Never> in
      runs += 1
      return source
    }
    .map { $0 * 10 }
    .share()
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    shared.subscribe(first)
    shared.subscribe(second)
    source.send(1)
    source.send(2)
    #expect(runs == 1)
    #expect(first.values == [10, 20])
    #expect(second.values == [10, 20])
    source.send(completion: .finished)
    #expect(first.completion == .finished)
    #expect(second.completion == .finished)
  }

  @Test func lateSubscribersMissEarlierValues() {
    let source = PassthroughSubject<Int, Never>()
    let shared = source.share()
    let early = TestSubscriber<Int, Never>()
    shared.subscribe(early)
    source.send(1)
    let late = TestSubscriber<Int, Never>()
    shared.subscribe(late)
    source.send(2)
    #expect(early.values == [1, 2])
    #expect(late.values == [2])
    early.cancel()
    late.cancel()
  }

  @Test func subscriberAfterCompletionGetsOnlyTheCompletion() {
    let source = PassthroughSubject<Int, Never>()
    let shared = source.share()
    let early = TestSubscriber<Int, Never>()
    shared.subscribe(early)
    source.send(1)
    source.send(completion: .finished)
    let late = TestSubscriber<Int, Never>()
    shared.subscribe(late)
    #expect(late.values.isEmpty)
    #expect(late.completion == .finished)
  }

  @Test func identityIsTheInstance() {
    let source = PassthroughSubject<Int, Never>()
    let shared = source.share()
    let other = source.share()
    #expect(shared == shared)
    #expect(shared != other)
  }

  @Test func cancellingAllSubscribersCancelsUpstream() {
    var cancelled = 0
    let source = PassthroughSubject<Int, Never>()
    let shared = source.handleCancel { cancelled += 1 }.share()
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    shared.subscribe(first)
    shared.subscribe(second)
    first.cancel()
    #expect(cancelled == 0)
    second.cancel()
    #expect(cancelled == 1)
  }
}

extension Publisher {
  /// Calls `action` when the subscription is cancelled; a stand-in for `handleEvents` in these
  /// tests so that they do not depend on it.
  fileprivate func handleCancel(_ action: @escaping () -> Void) -> AnyPublisher<Output, Failure> {
    CancelWatch(upstream: eraseToAnyPublisher(), action: action).eraseToAnyPublisher()
  }
}

private struct CancelWatch<Output, Failure: Error>: Publisher {
  let upstream: AnyPublisher<Output, Failure>
  let action: () -> Void

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    upstream.subscribe(
      AnySubscriber<Output, Failure>(
        receiveSubscription: { subscription in
          subscriber.receive(subscription: Watched(base: subscription, action: action))
        },
        receiveValue: { subscriber.receive($0) },
        receiveCompletion: { subscriber.receive(completion: $0) }))
  }

  final class Watched: Subscription {
    let base: any Subscription
    let action: () -> Void
    init(base: any Subscription, action: @escaping () -> Void) {
      self.base = base
      self.action = action
    }
    func request(_ demand: Subscribers.Demand) { base.request(demand) }
    func cancel() {
      action()
      base.cancel()
    }
  }
}

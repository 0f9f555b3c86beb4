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
}

import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct AutoconnectTests {
  @Test func connectsOnFirstSubscriber() {
    var subscriptions = 0
    let source = PassthroughSubject<Int, Never>()
    let upstream = Deferred { () -> PassthroughSubject<Int, Never> in
      subscriptions += 1
      return source
    }
    let auto = upstream.multicast { PassthroughSubject<Int, Never>() }.autoconnect()
    #expect(subscriptions == 0)
    let first = TestSubscriber<Int, Never>()
    auto.subscribe(first)
    #expect(subscriptions == 1)
    let second = TestSubscriber<Int, Never>()
    auto.subscribe(second)
    #expect(subscriptions == 1)
    source.send(1)
    #expect(first.values == [1])
    #expect(second.values == [1])
    first.cancel()
    second.cancel()
  }

  @Test func disconnectsWhenTheLastSubscriberLeavesAndReconnectsLater() {
    var subscriptions = 0
    let source = PassthroughSubject<Int, Never>()
    let upstream = Deferred { () -> PassthroughSubject<Int, Never> in
      subscriptions += 1
      return source
    }
    let auto = upstream.multicast { PassthroughSubject<Int, Never>() }.autoconnect()
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
    #expect(subscriptions == 2)
    source.send(3)
    #expect(third.values == [3])
    third.cancel()
  }

  @Test func completionCountsTheSubscriberOut() {
    let source = PassthroughSubject<Int, Never>()
    let auto = source.multicast { PassthroughSubject<Int, Never>() }.autoconnect()
    let subscriber = TestSubscriber<Int, Never>()
    auto.subscribe(subscriber)
    source.send(completion: .finished)
    #expect(subscriber.completion == .finished)
  }
}

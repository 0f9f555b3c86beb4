import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct MakeConnectableTests {
  @Test func subscribersAttachBeforeValuesFlow() {
    let connectable = [1, 2].publisher.makeConnectable()
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    connectable.subscribe(first)
    connectable.subscribe(second)
    #expect(first.values.isEmpty && second.values.isEmpty)
    let connection = connectable.connect()
    #expect(first.values == [1, 2])
    #expect(second.values == [1, 2])
    #expect(first.completion == .finished)
    connection.cancel()
  }

  // Combine's PassthroughSubject asks its upstream for values only once a subscriber has asked
  // for some, so connecting before anyone subscribes does not run a synchronous upstream dry.
  @Test func connectingBeforeAnySubscriberAsksTheUpstreamForNothing() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let connectable = upstream.makeConnectable()
    let connection = connectable.connect()
    #expect(upstream.link?.requests == [])

    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    connectable.subscribe(subscriber)
    #expect(upstream.link?.requests == [.unlimited])
    subscriber.request(.max(1))
    #expect(upstream.link?.requests == [.unlimited])
    subscriber.cancel()
    connection.cancel()
  }

  @Test func aSubscriberAfterTheConnectionStillGetsASynchronousUpstreamsValues() {
    let connectable = [1, 2, 3].publisher.makeConnectable()
    let connection = connectable.connect()
    let subscriber = TestSubscriber<Int, Never>()
    connectable.subscribe(subscriber)
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == .finished)
    connection.cancel()
  }

  @Test func disconnectStopsDelivery() {
    let source = PassthroughSubject<Int, Never>()
    let connectable = source.makeConnectable()
    let subscriber = TestSubscriber<Int, Never>()
    connectable.subscribe(subscriber)
    let connection = connectable.connect()
    source.send(1)
    connection.cancel()
    source.send(2)
    #expect(subscriber.values == [1])
    subscriber.cancel()
  }
}

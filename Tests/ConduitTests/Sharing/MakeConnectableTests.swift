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

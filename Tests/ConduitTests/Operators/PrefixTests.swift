import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct PrefixTests {
  @Test func isOutputFromZero() {
    let subject = PassthroughSubject<Int, Never>()
    let prefix = subject.prefix(3)
    #expect(type(of: prefix) == Publishers.Output<PassthroughSubject<Int, Never>>.self)
    #expect(prefix.range == 0..<3)
  }

  @Test func republishesAtMostMaxLengthValues() {
    let subscriber = TestSubscriber<Int, Never>()
    (1...10).publisher.eraseToAnyPublisher().prefix(2).subscribe(subscriber)
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelsUpstreamOnceTheRangeIsOver() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.prefix(1).subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    #expect(upstream.link?.isCancelled == true)
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func theSubscriberGetsOutputsOwnSubscription() {
    expectOwnSubscription(named: "Output", mirrorLabels: []) { $0.prefix(2) }
  }
}

import Conduit
import ConduitTesting
import Testing

private struct BreakpointTestError: Error, Equatable {}

// A closure returning true raises SIGTRAP, which would stop the test process: these tests only
// take the false path, and check that each closure is asked at its moment.
@Suite(.leakChecked)
struct BreakpointTests {
  @Test func asksEveryClosureAndPassesEverythingThrough() {
    var asked: [String] = []
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream
      .breakpoint(
        receiveSubscription: { subscription in
          asked.append("subscription \(subscription)")
          return false
        },
        receiveOutput: { value in
          asked.append("value \(value)")
          return false
        },
        receiveCompletion: { completion in
          asked.append("completion \(completion)")
          return false
        }
      )
      .subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(asked == ["subscription HandDriven", "value 1", "value 2", "completion finished"])
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func asksBeforeTheSubscriberReceives() {
    var order: [String] = []
    let subject = PassthroughSubject<Int, Never>()
    let cancellable =
      subject
      .breakpoint(receiveOutput: { value in
        order.append("breakpoint \(value)")
        return false
      })
      .sink { order.append("sink \($0)") }
    subject.send(1)
    #expect(order == ["breakpoint 1", "sink 1"])
    cancellable.cancel()
  }

  @Test func withoutClosuresItPassesEverythingThrough() {
    let upstream = HandDrivenPublisher<Int, BreakpointTestError>()
    let subscriber = TestSubscriber<Int, BreakpointTestError>()
    upstream.breakpoint().subscribe(subscriber)
    upstream.send(1)
    upstream.send(completion: .failure(BreakpointTestError()))
    #expect(subscriber.events == [.subscription, .value(1), .completion(.failure(BreakpointTestError()))])
  }

  @Test func breakpointOnErrorLetsValuesAndFinishThrough() {
    let subscriber = TestSubscriber<Int, BreakpointTestError>()
    [1, 2].publisher.setFailureType(to: BreakpointTestError.self).breakpointOnError().subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func passesDemandAndCancelStraightUpstream() {
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(2))
    upstream.breakpoint(receiveOutput: { _ in false }).subscribe(subscriber)
    #expect(upstream.send(1) == .max(2))
    subscriber.request(.max(3))
    #expect(upstream.link?.requests == [.max(1), .max(3)])
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    upstream.send(2)
    #expect(subscriber.values == [1])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func exposesItsParts() {
    let breakpoint = Publishers.Breakpoint(upstream: Just(1), receiveOutput: { $0 > 5 })
    #expect(breakpoint.upstream == Just(1))
    #expect(breakpoint.receiveOutput?(1) == false)
    #expect(breakpoint.receiveSubscription == nil)
    #expect(breakpoint.receiveCompletion == nil)
  }

  @Test func itsSubscriberIsDescribedAndReflectedAsInCombine() {
    expectPassThroughSubscriber(named: "Breakpoint", mirrorLabels: []) { $0.breakpointOnError() }
  }
}

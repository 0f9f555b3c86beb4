import Conduit
import ConduitTesting
import Testing

private struct HandleEventsTestError: Error, Equatable {}

private final class Captured {}

/// Records every closure call of `handleEvents` in `log`.
private func logEvents<Upstream: Publisher>(
  of upstream: Upstream, into log: EventLog
) -> Publishers.HandleEvents<Upstream> {
  upstream.handleEvents(
    receiveSubscription: { log.append("subscription \($0)") },
    receiveOutput: { log.append("output \($0)") },
    receiveCompletion: { log.append("completion \($0)") },
    receiveCancel: { log.append("cancel") },
    receiveRequest: { log.append("request \($0)") })
}

private final class EventLog {
  private(set) var entries: [String] = []
  func append(_ entry: String) { entries.append(entry) }
}

@Suite(.leakChecked)
struct HandleEventsTests {
  @Test func callsEachClosureAtItsMoment() {
    let log = EventLog()
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: .max(1))
    logEvents(of: upstream, into: log).subscribe(subscriber)
    #expect(log.entries == ["subscription HandDriven", "request max(2)"])
    #expect(upstream.link?.requests == [.max(2)])
    upstream.send(1)
    subscriber.request(.max(3))
    upstream.send(completion: .finished)
    #expect(
      log.entries == [
        "subscription HandDriven", "request max(2)", "output 1", "request max(1)", "request max(3)",
        "completion finished",
      ])
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    #expect(upstream.link?.requests == [.max(2), .max(3)])
  }

  @Test func closuresRunBeforeTheSubscriberSeesTheEvent() {
    let log = EventLog()
    let upstream = HandDrivenPublisher<Int, HandleEventsTestError>()
    let subscriber = TestSubscriber<Int, HandleEventsTestError>()
    subscriber.onValue { log.append("subscriber \($0)") }
    upstream.handleEvents(receiveOutput: { log.append("output \($0)") }).subscribe(subscriber)
    upstream.send(1)
    upstream.send(completion: .failure(HandleEventsTestError()))
    #expect(log.entries == ["output 1", "subscriber 1"])
    #expect(subscriber.completion == .failure(HandleEventsTestError()))
  }

  @Test func reportsFailure() {
    let log = EventLog()
    let upstream = HandDrivenPublisher<Int, HandleEventsTestError>()
    let subscriber = TestSubscriber<Int, HandleEventsTestError>()
    logEvents(of: upstream, into: log).subscribe(subscriber)
    upstream.send(completion: .failure(HandleEventsTestError()))
    #expect(log.entries.last?.hasPrefix("completion failure(") == true)
    #expect(subscriber.events == [.subscription, .completion(.failure(HandleEventsTestError()))])
  }

  @Test func cancelRunsTheClosureThenCancelsUpstream() {
    let log = EventLog()
    let upstream = HandDrivenPublisher<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    logEvents(of: upstream, into: log).subscribe(subscriber)
    upstream.send(1)
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    upstream.send(2)
    upstream.send(completion: .finished)
    subscriber.cancel()
    #expect(log.entries == ["subscription HandDriven", "request unlimited", "output 1", "cancel"])
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  @Test func neverDeliversBeyondDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    (1...5).publisher.handleEvents().subscribe(subscriber)
    #expect(subscriber.values == [1])
    subscriber.request(.max(2))
    #expect(subscriber.values == [1, 2, 3])
    subscriber.cancel()
    #expect(subscriber.violations.isEmpty)
  }

  @Test func releasesTheClosuresWhenTheStreamEnds() {
    for ending in ["finish", "cancel"] {
      weak var weakCaptured: Captured?
      let upstream = HandDrivenPublisher<Int, Never>()
      let subscriber = TestSubscriber<Int, Never>()
      do {
        let captured = Captured()
        weakCaptured = captured
        upstream.handleEvents(receiveOutput: { _ in withExtendedLifetime(captured) {} }).subscribe(subscriber)
      }
      upstream.send(1)
      #expect(weakCaptured != nil)
      if ending == "finish" {
        upstream.send(completion: .finished)
      } else {
        subscriber.cancel()
      }
      #expect(weakCaptured == nil, "after \(ending)")
    }
  }

  @Test func reentrantRequestFromInsideAValue() {
    let log = EventLog()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subscriber.onValue { value in
      if value < 3 { subscriber.request(.max(1)) }
    }
    (1...5).publisher.handleEvents(receiveRequest: { log.append("request \($0)") }).subscribe(subscriber)
    #expect(subscriber.values == [1, 2, 3])
    #expect(log.entries == ["request max(1)", "request max(1)", "request max(1)"])
    subscriber.cancel()
    #expect(subscriber.violations.isEmpty)
  }

  @Test func exposesItsClosures() {
    var handled = Publishers.HandleEvents(upstream: Just(1), receiveOutput: { _ in }, receiveRequest: nil)
    #expect(handled.upstream == Just(1))
    #expect(handled.receiveOutput != nil)
    #expect(handled.receiveRequest == nil)
    handled.receiveRequest = { _ in }
    #expect(handled.receiveRequest != nil)
  }
}
